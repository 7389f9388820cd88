/**
 * How a tenant connects the Regula Document Processor step to its Regula Document Reader web
 * service: a cloud secret named as the step's Service ID (the family's files write
 * `docprocessor-regula-71`). Its value is the service's base URL, or JSON with the URL and the
 * Authorization header its gateway wants. A tenant with no such secret has its Regula steps read
 * on the deployment's engine (docs/documents.md, "Engines").
 */
import type { RegulaService } from './model.js';

export type RegulaServiceConfig = { ok: true; service: RegulaService } | { ok: false; problem: string };

/** An Authorization header value: printable ASCII, no line break (it goes into a request header). */
const HEADER_VALUE = /^[\x20-\x7e]{1,2048}$/;

function checkedUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 2048) return undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
    if (url.username || url.password || url.search || url.hash) return undefined;
    return url.toString().replace(/\/+$/, '');
  } catch {
    return undefined;
  }
}

/**
 * The service a secret's value names. The scheme and address rules (HTTPS to a public address)
 * are the outbound guard's, at each call; here only the value's shape.
 */
export function regulaServiceOf(value: string): RegulaServiceConfig {
  const text = value.trim();
  if (!text.startsWith('{')) {
    const url = checkedUrl(text);
    return url ? { ok: true, service: { url } } : { ok: false, problem: 'the secret is neither an http(s) URL without query or credentials nor JSON with "url"' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'the secret starts as JSON but is not valid JSON' };
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return { ok: false, problem: 'the secret is not a JSON object' };
  const { url, authorization, ...rest } = parsed as Record<string, unknown>;
  const unknownKeys = Object.keys(rest);
  if (unknownKeys.length) return { ok: false, problem: `the secret has properties other than "url" and "authorization": ${unknownKeys.slice(0, 3).join(', ')}` };
  const checked = checkedUrl(url);
  if (!checked) return { ok: false, problem: 'the secret\'s "url" is not an http(s) URL without query or credentials' };
  if (authorization !== undefined && (typeof authorization !== 'string' || !HEADER_VALUE.test(authorization))) {
    return { ok: false, problem: 'the secret\'s "authorization" is not a header value (printable ASCII, at most 2,048 characters)' };
  }
  return { ok: true, service: { url: checked, ...(authorization ? { authorization } : {}) } };
}
