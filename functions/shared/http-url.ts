/**
 * Where the service may send an end user's browser: an absolute http(s) URL with a host and no
 * credentials, at most 2048 characters. The one rule for a process token's `_redirectUrl` and for
 * the URL a Redirect User step builds: `javascript:`, `data:` and relative URLs are refused.
 */
export const MAX_REDIRECT_URL_LENGTH = 2048;

export function isHttpUrl(value: string): boolean {
  if (value.length > MAX_REDIRECT_URL_LENGTH) return false;
  try {
    const u = new URL(value);
    return (u.protocol === 'https:' || u.protocol === 'http:') && !!u.hostname && !u.username && !u.password;
  } catch {
    return false;
  }
}
