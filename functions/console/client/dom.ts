/**
 * Building the console's DOM: elements and text nodes only, never HTML strings, so nothing an
 * API answer holds (a name, a form value, a comment) can become markup or script.
 */
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined | ((e: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Replaces what `parent` holds. */
export function replace(parent: Element, ...children: (Child | Child[])[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** A date-time as the reader's locale writes it, with the ISO value for machines. */
export function time(iso: string | undefined | null): Node {
  if (!iso) return document.createTextNode('–');
  const d = new Date(iso);
  return h('time', { datetime: iso }, Number.isNaN(d.getTime()) ? iso : d.toLocaleString());
}

/** A definition list of label and value pairs. */
export function facts(pairs: [string, Child | Child[]][]): HTMLDListElement {
  return h('dl', { class: 'facts' }, pairs.map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, ...(Array.isArray(v) ? v : [v])))));
}

/** A status as a badge: its text always shown (colour is never the only signal). */
export function badge(text: string): HTMLSpanElement {
  const tone = /SUCCESS|PASS|APPROVE|ACTIVE$/.test(text) ? 'good' : /ERROR|FAIL|REJECT|BLOCKED|TERMINATED/.test(text) ? 'bad' : /REVIEW/.test(text) ? 'warn' : 'neutral';
  return h('span', { class: `badge ${tone}` }, text);
}

/** A message in a polite live region, so a screen reader hears what an action did. */
export function notice(text: string, tone: 'info' | 'success' | 'error' = 'info'): HTMLParagraphElement {
  return h('p', { class: `notice ${tone}`, role: tone === 'error' ? 'alert' : 'status' }, text);
}
