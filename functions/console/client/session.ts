/**
 * The signed-in session: the bearer token the API key was exchanged for, kept in this tab's
 * sessionStorage (gone when the tab closes; never localStorage, never the key itself). What the
 * token allows is read from its claims to shape the screens; the API checks it on every call.
 */
export interface Session {
  token: string;
  tenantId: string;
  /** Bare permission names (the token's `scope`). */
  permissions: string[];
  /** When the token expires, epoch milliseconds. */
  expiresAt: number;
  /** The key's id (`sub` is `apikey:{id}`). */
  keyId: string;
}

const KEY = 'console.session';
let current: Session | undefined;
/** Set when a stored token was found expired: the sign-in says so rather than starting blank. */
let expiredFound = false;

function claimsOf(token: string): Record<string, unknown> {
  const part = token.split('.')[1] ?? '';
  const json = atob(part.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(part.length / 4) * 4, '='));
  return JSON.parse(json) as Record<string, unknown>;
}

/** The session of a freshly issued token. */
export function sessionOf(token: string): Session {
  const c = claimsOf(token);
  return {
    token,
    tenantId: String(c.tid ?? ''),
    permissions: String(c.scope ?? '').split(' ').filter(Boolean),
    expiresAt: Number(c.exp) * 1000,
    keyId: String(c.sub ?? '').replace(/^apikey:/, ''),
  };
}

export function saveSession(s: Session): void {
  current = s;
  try {
    sessionStorage.setItem(KEY, s.token);
  } catch {
    // Storage refused (a private window's quota): the session lives in memory only.
  }
}

/** The session, unless there is none or its token has expired. */
export function loadSession(now = Date.now()): Session | undefined {
  if (!current) {
    let token: string | null = null;
    try {
      token = sessionStorage.getItem(KEY);
    } catch {
      token = null;
    }
    if (token) {
      try {
        current = sessionOf(token);
      } catch {
        current = undefined;
      }
    }
  }
  if (current && current.expiresAt <= now) {
    clearSession();
    expiredFound = true;
    return undefined;
  }
  return current;
}

export function clearSession(): void {
  current = undefined;
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // Nothing was stored.
  }
}

export function can(s: Session | undefined, permission: string): boolean {
  return !!s && s.permissions.includes(permission);
}

/** Whether a session was dropped as expired since the last ask (once). */
export function takeExpired(): boolean {
  const was = expiredFound;
  expiredFound = false;
  return was;
}
