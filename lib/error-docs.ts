import { ERRORS, ERROR_DOCS, OPERATOR_ONLY_CODES, type ErrorCode } from '../functions/errors.js';

/** The page that holds the generated table, from the repository's root. */
export const ERROR_DOCS_FILE = 'docs/errors.md';

/** Where the generated table sits in docs/errors.md ("The codes"). */
export const ERRORS_START = '<!-- errors:start: generated from functions/errors.ts by `npm run docs:errors`; do not edit -->';
export const ERRORS_END = '<!-- errors:end -->';

const operatorOnly = (code: ErrorCode) => (OPERATOR_ONLY_CODES as readonly string[]).includes(code);

/** The error table of docs/errors.md: one row per HTTP code, by status, in catalogue order within a status. */
export function errorTableMarkdown(): string {
  const codes = (Object.keys(ERRORS) as ErrorCode[]).map((code, i) => ({ code, i }));
  // A stable sort by status keeps the catalogue's order inside each status.
  codes.sort((a, b) => ERRORS[a.code].status - ERRORS[b.code].status || a.i - b.i);
  const row = (code: ErrorCode) => `| ${ERRORS[code].status} | \`${code}\` | ${ERROR_DOCS[code]} |`;
  const cli = codes.filter(({ code }) => operatorOnly(code)).map(({ code }) => `\`${code}\` (${ERRORS[code].status}: ${ERROR_DOCS[code]})`);
  return [
    '| Status | Code | When |',
    '|---|---|---|',
    ...codes.filter(({ code }) => !operatorOnly(code)).map(({ code }) => row(code)),
    '',
    `Only the operator CLI reports ${cli.join(' and ')}: tenants have no HTTP routes.`,
  ].join('\n');
}

/** The page with its error table replaced by the generated one; throws if the markers are missing. */
export function withErrorTable(page: string): string {
  const start = page.indexOf(ERRORS_START);
  const end = page.indexOf(ERRORS_END);
  if (start < 0 || end < start) throw new Error(`${ERROR_DOCS_FILE} has no ${ERRORS_START} ... ${ERRORS_END} block`);
  return `${page.slice(0, start + ERRORS_START.length)}\n${errorTableMarkdown()}\n${page.slice(end)}`;
}
