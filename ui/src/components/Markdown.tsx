import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { useMemo } from 'react';

marked.setOptions({ gfm: true, breaks: false });

/**
 * Event-handler attributes are dropped from raw HTML before DOMPurify parses it: DOMPurify removes them anyway, but
 * the browser meets them while parsing and reports each to the page's CSP (which blocks them) as a console error.
 */
const HANDLER = /\s+on[a-z]+\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+)/gi;
marked.use({
  walkTokens(token) {
    if (token.type === 'html' && 'text' in token && typeof token.text === 'string') token.text = token.text.replace(HANDLER, '');
  },
});

// Links from documentation open in a new tab and tell the target nothing about us.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A' && node.getAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

/** Markdown rendered to sanitized HTML (DOMPurify: no script, no event handlers, no javascript: URLs). */
export function renderMarkdown(text: string): string {
  const html = marked.parse(text, { async: false }) as string;
  return DOMPurify.sanitize(html, { USE_PROFILES: { html: true }, FORBID_TAGS: ['style', 'form', 'input', 'button'] });
}

export function Markdown({ text, className }: { text: string; className?: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  // Sanitized above; the page's CSP would block script in any case.
  return <div className={`markdown ${className ?? ''}`} dangerouslySetInnerHTML={{ __html: html }} />;
}
