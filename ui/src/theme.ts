/**
 * Light and dark themes: the page follows prefers-color-scheme unless the user picked one with the toggle (kept in
 * localStorage). The choice is the `data-theme` attribute of <html>; theme.css defines the tokens for both.
 */
const KEY = 'almanac.theme';
export type Theme = 'light' | 'dark';

export function systemTheme(): Theme {
  return window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export function currentTheme(): Theme {
  const attr = document.documentElement.dataset.theme;
  return attr === 'dark' || attr === 'light' ? attr : systemTheme();
}

export function initTheme() {
  let saved: string | null = null;
  try {
    saved = window.localStorage.getItem(KEY);
  } catch {
    // storage unavailable: follow the system
  }
  document.documentElement.dataset.theme = saved === 'dark' || saved === 'light' ? saved : systemTheme();
  window.matchMedia?.('(prefers-color-scheme: dark)').addEventListener('change', () => {
    if (!window.localStorage.getItem(KEY)) document.documentElement.dataset.theme = systemTheme();
  });
}

export function setTheme(theme: Theme) {
  document.documentElement.dataset.theme = theme;
  window.localStorage.setItem(KEY, theme);
}
