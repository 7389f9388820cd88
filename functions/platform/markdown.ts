import { escapeHtml } from './page-frame.js';

/**
 * The little markdown the OpenAPI document's descriptions use, as HTML: paragraphs (a blank
 * line), fenced code blocks, `inline code`, **strong**, *emphasis* and [links](url). No markdown
 * library is a dependency of the service, and a full one would be most of this route's bundle
 * for what the descriptions hold. Everything is escaped first, so a description can add no
 * markup of its own: a `<script>` in one is shown as text. Links go only to http(s) addresses,
 * the page's own anchors and this host's paths; any other target is shown as text.
 */
export function renderMarkdown(text: string): string {
  const blocks: string[] = [];
  // Fenced blocks first: their content is code, not paragraphs.
  const parts = text.split(/^```[^\n]*\n([\s\S]*?)^```[ \t]*$/m);
  for (const [i, part] of parts.entries()) {
    if (i % 2 === 1) blocks.push(`<pre><code>${escapeHtml(part.replace(/\n$/, ''))}</code></pre>`);
    else for (const para of part.split(/\n\s*\n/)) if (para.trim()) blocks.push(`<p>${renderInline(para.trim())}</p>`);
  }
  return blocks.join('');
}

/** One paragraph's inline markdown; a line break inside it stays a line break. */
export function renderInline(text: string): string {
  // Code spans are cut out first: nothing inside them is markdown.
  return text
    .split(/(`[^`\n]+`)/)
    .map((piece, i) => (i % 2 === 1 ? `<code>${escapeHtml(piece.slice(1, -1))}</code>` : prose(piece)))
    .join('');
}

/** A link target this page may point at: http(s), an anchor of this page, or a path of this host. */
function safeHref(url: string): boolean {
  return /^(https?:\/\/[^\s"'<>]+|#[\w-]+|\/(?!\/)[^\s"'<>]*)$/.test(url);
}

function prose(text: string): string {
  let html = '';
  let rest = text;
  // Links are found in the raw text (the URL must be judged before escaping), the rest escaped.
  const link = /\[([^\]\n]+)\]\(([^)\s]+)\)/;
  for (let m = link.exec(rest); m; m = link.exec(rest)) {
    html += emphasis(escapeHtml(rest.slice(0, m.index)));
    html += safeHref(m[2]!) ? `<a href="${escapeHtml(m[2]!)}">${emphasis(escapeHtml(m[1]!))}</a>` : emphasis(escapeHtml(m[0]));
    rest = rest.slice(m.index + m[0].length);
  }
  return (html + emphasis(escapeHtml(rest))).replace(/\n/g, '<br>');
}

/**
 * **strong** and *emphasis* on escaped text. Emphasis needs a word character right inside each
 * star and no word character outside, so a lone `*` (the webhooks' "all events") stays a star.
 */
function emphasis(escaped: string): string {
  return escaped
    .replace(/\*\*(?=\S)([^*]+?)(?<=\S)\*\*/g, '<strong>$1</strong>')
    .replace(/(^|[^\w*])\*(?=\w)([^*\n]+?)(?<=\w)\*(?![\w*])/g, '$1<em>$2</em>');
}
