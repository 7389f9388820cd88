import { createHash } from 'node:crypto';

/**
 * The frame of the service's pages for developers, the home page and the API reference
 * (docs/api-reference.md): plain HTML rendered on the server, no script at all, readable at phone
 * width, each page linking to the others and to the console.
 */

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The service's name, as the OpenAPI document's title says it. */
export const SERVICE_NAME = 'Identity verification and authentication orchestration';

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2937;background:#f9fafb}
a{color:#1d4ed8}a:focus,summary:focus{outline:3px solid #2563eb;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:.5rem;background:#fff;padding:.4rem .8rem;z-index:1}
header{background:#111827;color:#fff;padding:.6rem 1rem}
header nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1.1rem;list-style:none;margin:0 auto;padding:0;max-width:64rem;align-items:center}
header a{color:#fff;text-decoration:none;padding:.3rem 0;display:inline-block}header a[aria-current=page]{font-weight:700;border-bottom:2px solid #fff}
header .brand{font-weight:700}
main{max-width:64rem;margin:0 auto;padding:1rem 1rem 3rem;overflow-wrap:anywhere}
h1{font-size:1.75rem;line-height:1.25;margin:.75rem 0 .5rem}h2{font-size:1.4rem;margin:2.25rem 0 .5rem;padding-top:.5rem;border-top:2px solid #d1d5db}
h3{font-size:1.15rem;margin:1.75rem 0 .35rem}h4{font-size:1rem;margin:1rem 0 .25rem}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
code{background:#eef0f3;border-radius:.25rem;padding:.05rem .25rem}
pre{background:#111827;color:#f3f4f6;padding:.75rem 1rem;border-radius:.5rem;overflow-x:auto;white-space:pre-wrap;word-break:break-word}
pre code{background:none;padding:0;color:inherit}
.lead{font-size:1.1rem;color:#374151}
.cards{list-style:none;padding:0;display:grid;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr));gap:.75rem}
.cards li{background:#fff;border:1px solid #d1d5db;border-radius:.5rem;padding:.75rem 1rem}.cards a{font-weight:600}
.op{background:#fff;border:1px solid #d1d5db;border-radius:.5rem;padding:.25rem 1rem 1rem;margin:1rem 0}
.op h3{margin-top:.75rem}
.method{display:inline-block;min-width:4.2rem;text-align:center;font:700 .8rem/1.6 ui-monospace,Menlo,Consolas,monospace;border-radius:.25rem;padding:0 .35rem;color:#fff;background:#374151;margin-right:.4rem}
.m-get{background:#1e40af}.m-post{background:#166534}.m-put,.m-patch{background:#854d0e}.m-delete{background:#991b1b}
.path{font-family:ui-monospace,Menlo,Consolas,monospace;word-break:break-all}
.meta{margin:.25rem 0;color:#374151}.meta dt{font-weight:600;display:inline}.meta dd{display:inline;margin:0 1rem 0 .3rem}
.fields{list-style:none;margin:.25rem 0;padding:0}.fields .fields{margin-left:.5rem;padding-left:.9rem;border-left:2px solid #d1d5db}
.fields li{margin:.45rem 0}.field-name{font-weight:600}.type{color:#4b5563}.req{color:#991b1b;font-size:.85rem;font-weight:600}
.rules{color:#4b5563;font-size:.9rem}.fields p{margin:.1rem 0}
.deprecated{color:#854d0e;font-weight:600}
details{margin:.5rem 0}summary{cursor:pointer;font-weight:600}
.index ul{padding-left:1.2rem}.index li{margin:.15rem 0}
.responses{list-style:none;padding:0;margin:.25rem 0}.responses li{margin:.3rem 0}.status{font-weight:700;font-family:ui-monospace,Menlo,Consolas,monospace}
`;

/** The one style sheet, allowed by its hash: no inline style anywhere else, no `unsafe-inline`. */
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/**
 * The pages' CSP: no script at all, the style sheet above by its hash, nothing loaded from
 * anywhere (the pages are whole) but the browser's own request for the site's icon, no forms
 * posted, no <base>, no framing.
 */
export const PAGES_CSP = `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; img-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'`;

/** The pages use no camera, microphone or location. */
export const PAGES_PERMISSIONS = 'camera=(), microphone=(), geolocation=(), payment=(), usb=()';

/** The pages every frame links to, in the header's order. */
const LINKS = [
  { href: '/', label: SERVICE_NAME },
  { href: '/docs', label: 'API reference' },
  { href: '/openapi.json', label: 'OpenAPI document' },
  { href: '/console', label: 'Console' },
] as const;

/** A whole page: `body` is HTML the caller escaped; `current` the header link it is. */
export function pageFrame(opts: { title: string; current: '/' | '/docs'; body: string }): string {
  const nav = LINKS.map(
    (l) => `<li><a href="${l.href}"${l.href === opts.current ? ' aria-current="page"' : ''}${l.href === '/' ? ' class="brand"' : ''}>${escapeHtml(l.label)}</a></li>`,
  ).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(opts.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<a class="skip" href="#main">Skip to the content</a>
<header><nav aria-label="Service"><ul>${nav}</ul></nav></header>
<main id="main">
${opts.body}
</main>
</body>
</html>
`;
}
