import { describe, expect, it } from 'vitest';
import { routeList } from '../../functions/routes.js';
import { createRouter } from '../../lib/local/router.js';

describe('createRouter', () => {
  const match = createRouter(routeList);
  it('prefers a literal segment over a parameter, as API Gateway does', () => {
    const m = match('POST', '/api/arthr/apiKeys/issue');
    expect(m.kind === 'found' && m.route.operationId).toBe('issueToken');
    const u = match('POST', '/api/arthr/apiKeys/abc');
    expect(u.kind === 'found' && u.route.operationId).toBe('updateApiKey');
    expect(u.kind === 'found' && u.pathParameters).toEqual({ apiKeyId: 'abc' });
  });
  it('tells a wrong method from an unknown path', () => {
    expect(match('PATCH', '/api/arthr/apiKeys/abc')).toEqual({ kind: 'method', allowed: expect.arrayContaining(['GET', 'POST', 'DELETE']) });
    expect(match('GET', '/api/arthr/apiKeys/abc/extra')).toEqual({ kind: 'none' });
    expect(match('GET', '/api/arthr/apiKeys//x')).toEqual({ kind: 'none' });
  });
  it('routes a path with a trailing slash as the path without it, as API Gateway does', () => {
    const m = match('POST', '/api/theme-server/themes/3b241101-e2bb-4255-8caf-4136c566a962/assets/');
    expect(m.kind === 'found' && m.route.operationId).toBe('addThemeAsset');
    const list = match('GET', '/api/arthr/apiKeys/');
    expect(list.kind === 'found' && list.route.operationId).toBe('listApiKeys');
  });
});
