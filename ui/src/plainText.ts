/**
 * Markdown as one line of plain text, for snippets (search results, the home page): what a reader sees once it is
 * rendered, without its marks. A few regular expressions rather than the Markdown parser, which stays out of the
 * search page's chunk; good enough for a two-line snippet, where a missed mark costs a character, not safety (the
 * result is text, never HTML).
 */
export function markdownToText(md: string): string {
  return md
    .replace(/```[^\n]*\n?([\s\S]*?)```/g, ' $1 ') // fenced code: its text
    .replace(/<[^>]+>/g, ' ') // HTML tags
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1') // images: their alt text
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1') // links: their text
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1') // reference links
    .replace(/^\s{0,3}\[[^\]]+\]:\s*\S+.*$/gm, '') // link definitions
    .replace(/^\s{0,3}#{1,6}\s+/gm, '') // headings
    .replace(/^\s{0,3}>\s?/gm, '') // quotes
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+/gm, '') // list items
    .replace(/^\s*(?:[-*_]\s*){3,}$/gm, ' ') // rules
    .replace(/^\s*\|?(?:\s*:?-+:?\s*\|)+\s*:?-*:?\s*$/gm, ' ') // table separators
    .replace(/\s\|\s|^\||\|$/gm, ' ') // table cells
    .replace(/`+([^`]*)`+/g, '$1') // inline code
    .replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, '$2') // bold
    .replace(/(^|[^\w*])([*_])(?=\S)([\s\S]*?\S)\2(?![\w*])/g, '$1$3') // italics
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, '$1') // strikethrough
    .replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, '$1') // escapes
    .replace(/&nbsp;/g, ' ').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}
