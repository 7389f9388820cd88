import { describe, expect, it } from 'vitest';
import { renderInline, renderMarkdown } from '../../../functions/platform/markdown.js';

describe('renderMarkdown', () => {
  it('renders inline code, strong, emphasis and paragraphs', () => {
    expect(renderMarkdown('Send `X-API-Key`, **once**, *then* forget it.\n\nA second one.')).toBe(
      '<p>Send <code>X-API-Key</code>, <strong>once</strong>, <em>then</em> forget it.</p><p>A second one.</p>',
    );
  });

  it('renders a fenced block as code, its content escaped and never markdown', () => {
    const html = renderMarkdown('For example:\n\n```js\nconst a = `b` < c && **d**;\n```\n\nAfter.');
    expect(html).toBe('<p>For example:</p><pre><code>const a = `b` &lt; c &amp;&amp; **d**;</code></pre><p>After.</p>');
  });

  it('escapes everything a description holds: a script in one is text', () => {
    const html = renderMarkdown('<script>alert(1)</script> and <img src=x onerror="alert(2)"> and `<b>`');
    expect(html).not.toMatch(/<script|<img|<b>/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('<code>&lt;b&gt;</code>');
  });

  it('makes links only to http(s), this page and this host, and keeps the others as text', () => {
    expect(renderInline('See [the docs](https://example.com/a?b=1&c=2).')).toBe('See <a href="https://example.com/a?b=1&amp;c=2">the docs</a>.');
    expect(renderInline('[up](#op-issueToken) [home](/docs)')).toBe('<a href="#op-issueToken">up</a> <a href="/docs">home</a>');
    for (const bad of ['javascript:alert(1)', 'data:text/html,x', '//evil.example/x', 'vbscript:x']) {
      const html = renderInline(`[click](${bad})`);
      expect(html, bad).not.toContain('<a');
      expect(html, bad).toContain('[click]');
    }
    // A quote cannot leave the attribute.
    expect(renderInline('[x](https://a.example/"onmouseover="alert(1))')).not.toContain('" onmouseover');
  });

  it('leaves a lone star, a product and snake_case alone', () => {
    expect(renderInline('Event types, or `*` (the default) for all; 2 * 3 * 4; error_description_x')).toBe(
      'Event types, or <code>*</code> (the default) for all; 2 * 3 * 4; error_description_x',
    );
  });
});
