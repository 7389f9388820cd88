import type { RouteDef } from '../../functions/http/route.js';

export type RouteMatch =
  | { kind: 'found'; route: RouteDef; pathParameters: Record<string, string> }
  | { kind: 'method'; allowed: string[] }
  | { kind: 'none' };

interface Compiled {
  route: RouteDef;
  segments: { literal?: string; param?: string }[];
}

/**
 * Matches a path the way API Gateway HTTP APIs do: a literal segment beats a `{param}`, so
 * `POST /api/arthr/apiKeys/issue` wins over `POST /api/arthr/apiKeys/{apiKeyId}`.
 */
export function createRouter(routes: RouteDef[]): (method: string, path: string) => RouteMatch {
  const compiled: Compiled[] = routes.map((route) => ({
    route,
    segments: route.path
      .split('/')
      .slice(1)
      .map((s) => (/^\{[^}]+\}$/.test(s) ? { param: s.slice(1, -1) } : { literal: s })),
  }));
  const match = (method: string, path: string): RouteMatch => {
    const parts = path.split('/').slice(1);
    const candidates: { c: Compiled; params: Record<string, string>; score: string }[] = [];
    for (const c of compiled) {
      if (c.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let score = '';
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const seg = c.segments[i]!;
        const part = parts[i]!;
        if (seg.literal !== undefined) {
          ok = seg.literal === part;
          score += '1';
        } else {
          let value: string;
          try {
            value = decodeURIComponent(part);
          } catch {
            value = part;
          }
          ok = value.length > 0;
          params[seg.param!] = value;
          score += '0';
        }
      }
      if (ok) candidates.push({ c, params, score });
    }
    // API Gateway routes `/a/b/` as `/a/b` (an HTTP API route cannot end with a slash); the
    // family's clients send some paths so (`POST .../themes/{id}/assets/`).
    if (!candidates.length) return path.length > 1 && path.endsWith('/') ? match(method, path.slice(0, -1)) : { kind: 'none' };
    const forMethod = candidates.filter((x) => x.c.route.method === method.toUpperCase());
    if (!forMethod.length) return { kind: 'method', allowed: [...new Set(candidates.map((x) => x.c.route.method))] };
    forMethod.sort((a, b) => (a.score < b.score ? 1 : a.score > b.score ? -1 : 0));
    const best = forMethod[0]!;
    return { kind: 'found', route: best.c.route, pathParameters: best.params };
  };
  return match;
}
