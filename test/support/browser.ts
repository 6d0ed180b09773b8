import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { IN_CI, REPO, artifactPath } from './run-env.js';

/** Debian's Chromium, driven by playwright-core (no browser downloads). */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * A browser suite's gate: outside CI, a missing Chromium skips the suite's tests (`skip`, the reason, warned once); in
 * CI it fails them (`requireChromium()`, called first in the suite's setup, throws).
 */
export function chromiumSuite(what: string): { skip: string | false; requireChromium: () => void } {
  const missing = !existsSync(CHROMIUM);
  const skip = missing && !IN_CI ? `${CHROMIUM} is missing` : false;
  if (skip) console.warn(`\n!!! SKIPPING the ${what}: ${skip} (apt-get install -y chromium) !!!\n`);
  return { skip, requireChromium: () => { if (missing) throw new Error(`${CHROMIUM} is required in CI (apt-get install -y chromium)`); } };
}

/** A headless Chromium with nothing running in the background (no network of its own, no updates, no sync). */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM, headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
}

/** A browser context signed in with a token, as the sign-in page's token form leaves it (in local storage). */
export async function signedInContext(browser: Browser, token: string, options: BrowserContextOptions): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  await context.addInitScript((t: string) => window.localStorage.setItem('almanac.token', t), token);
  return context;
}

/**
 * Records what a page must never do: requests to another origin (on `foreign`), console errors (and warnings when
 * asked), page errors and failed requests (on `problems`, each after the page's address). A request the page cancels
 * itself (superseded by a newer one, as a search by the next keystroke) is aborted, not failed.
 */
export function watchPage(page: Page, problems: string[], foreign: string[], opts: { warnings?: boolean } = {}): Page {
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.protocol !== 'data:' && u.protocol !== 'blob:' && u.hostname !== '127.0.0.1') foreign.push(r.url());
  });
  page.on('console', (m) => {
    if (m.type() === 'error' || (opts.warnings && m.type() === 'warning')) problems.push(`${page.url()}: ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`${page.url()}: pageerror: ${e.message}`));
  page.on('requestfailed', (r) => {
    if (r.failure()?.errorText !== 'net::ERR_ABORTED') problems.push(`${page.url()}: request failed: ${r.url()} ${r.failure()?.errorText}`);
  });
  return page;
}

const AXE_SOURCE = () => readFileSync(path.join(REPO, 'node_modules/axe-core/axe.min.js'), 'utf8');

/**
 * A screenshot of the page as it is (test-artifacts/ui-<name>.png), then axe-core in it (through the devtools
 * protocol, which the page's CSP does not govern): serious and critical findings fail.
 */
export async function audit(page: Page, name: string) {
  await page.screenshot({ path: artifactPath(`ui-${name}.png`), fullPage: true });
  if (!(await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe === 'object'))) await page.evaluate(AXE_SOURCE());
  const found = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
  });
  const bad = found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad, [], `axe-core on ${name}: ${JSON.stringify(bad, null, 2)}`);
}

/** Switches the UI's theme from the account menu in the header, then closes the menu (Escape). */
export async function switchTheme(page: Page, to: 'light' | 'dark') {
  const account = page.getByRole('banner').getByRole('button', { name: /^Account: / });
  if ((await account.getAttribute('aria-expanded')) !== 'true') await account.click();
  await page.locator('#user-menu').getByRole('button', { name: `Switch to ${to} theme` }).click();
  await page.waitForFunction((t) => document.documentElement.dataset.theme === t, to);
  await page.keyboard.press('Escape');
  await page.locator('#user-menu').waitFor({ state: 'detached' });
}
