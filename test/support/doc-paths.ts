/**
 * What a Markdown page names in the repository: the paths in its code (inline and fenced) and
 * the targets of its links, for the docs test (test/unit/docs.test.ts).
 *
 * A code token counts as a repository path only when it starts at one of the repository's own
 * top-level entries (`functions/`, `lib/local/`, `cdk.json`, ...) or climbs out with `../`, so
 * prose, HTTP paths (`/api/...`), S3 keys (`tenants/...`), URLs and shorthand relative to a
 * folder the text has just named (`store/codec.ts`) are left alone. Tokens with placeholders
 * (`<type>`, `{id}`, `...`, `$VAR`) name no one file and are skipped; a trailing `*` is a prefix.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

export interface NamedPath {
  /** As written. */
  text: string;
  /** 1-based line in the page. */
  line: number;
  kind: 'code' | 'link';
}

/** The repository's top-level entries, without what .gitignore keeps out of it (`.local/`, `node_modules/`, ...). */
export function topLevelEntries(root: string): Set<string> {
  const ignored = new Set(['.git']);
  const gitignore = join(root, '.gitignore');
  if (existsSync(gitignore)) {
    for (const raw of readFileSync(gitignore, 'utf8').split('\n')) {
      const name = raw.trim().replace(/^\//, '').replace(/\/$/, '');
      if (name && !name.startsWith('#') && !/[*?[\]/]/.test(name)) ignored.add(name);
    }
  }
  return new Set(readdirSync(root).filter((name) => !ignored.has(name)));
}

const PLACEHOLDER = /[<>{}$…]|\.\.\.|\[|\]/;

/** Code spans and fenced code blocks, each with the line it starts on. */
function codeOf(markdown: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  const lines = markdown.split('\n');
  let fence: string[] | undefined;
  let fenceLine = 0;
  lines.forEach((l, i) => {
    if (/^\s*```/.test(l)) {
      if (fence) {
        out.push({ text: fence.join('\n'), line: fenceLine });
        fence = undefined;
      } else {
        fence = [];
        fenceLine = i + 2;
      }
      return;
    }
    if (fence) {
      fence.push(l);
      return;
    }
    for (const m of l.matchAll(/(`+)(.+?)\1/g)) out.push({ text: m[2]!, line: i + 1 });
  });
  return out;
}

/** Prose without its code, for finding links. */
function proseOf(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').map((l) => {
    if (/^\s*```/.test(l)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : l.replace(/(`+).+?\1/g, '');
  });
}

/** Every repository path a page's code names (see the module comment for what counts). */
export function codePaths(markdown: string, topLevel: ReadonlySet<string>): NamedPath[] {
  const out: NamedPath[] = [];
  for (const { text, line } of codeOf(markdown)) {
    const tokens = text.split(/[\s"'`(),;=|]+/);
    for (const raw of tokens) {
      const token = raw.replace(/[.:]+$/, '');
      if (!token || token.includes('://') || PLACEHOLDER.test(raw)) continue;
      const first = token.split('/')[0]!;
      const climbs = token.startsWith('../');
      const named = topLevel.has(first) && (token.includes('/') || /\.[a-z]+$/i.test(token));
      if (named || climbs) out.push({ text: token, line, kind: 'code' });
    }
  }
  return out;
}

/** Every link target of a page that is not a URL (files, folders and anchors). */
export function linkTargets(markdown: string): NamedPath[] {
  const out: NamedPath[] = [];
  proseOf(markdown).forEach((l, i) => {
    for (const m of l.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      out.push({ text: target, line: i + 1, kind: 'link' });
    }
  });
  return out;
}

/** GitHub's anchors for a page's headings (lower case, punctuation dropped, spaces to `-`, repeats numbered). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const l of markdown.split('\n')) {
    if (/^\s*```/.test(l)) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(l);
    if (!m) continue;
    const base = m[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  return anchors;
}

/**
 * What is wrong with one named path of the page at `pagePath`, or undefined when it resolves:
 * code paths are read from the repository's root (or the page's folder, for `../`), links from
 * the page's folder; nothing may lead out of the repository, and a link's `#anchor` must be a
 * heading of the page it points to.
 */
export function problemWith(named: NamedPath, pagePath: string, root: string): string | undefined {
  const [pathPart, anchor] = named.text.split('#', 2) as [string, string | undefined];
  const from = named.kind === 'link' || pathPart.startsWith('../') ? dirname(pagePath) : root;
  const target = pathPart ? resolve(from, decodeURI(pathPart)) : pagePath;
  const inside = relative(root, target);
  if (inside.startsWith('..') || inside.startsWith(sep)) return 'leads out of the repository';
  if (pathPart.endsWith('*')) {
    const dir = dirname(target);
    const prefix = target.slice(dir.length + 1, -1);
    return existsSync(dir) && readdirSync(dir).some((n) => n.startsWith(prefix)) ? undefined : 'matches no file';
  }
  if (!existsSync(target)) return 'does not exist';
  if (pathPart.endsWith('/') && !statSync(target).isDirectory()) return 'is not a folder';
  if (anchor !== undefined && target.endsWith('.md') && !headingAnchors(readFileSync(target, 'utf8')).has(anchor)) {
    return `has no heading #${anchor}`;
  }
  return undefined;
}
