import { describe, expect, it } from 'vitest';
import { tenantFromHost } from '../../functions/http/tenant.js';

const config = { SERVICE_REGION: 'fir' as const, SERVICE_DOMAIN: 'example.com' };

describe('tenantFromHost', () => {
  it('takes the first label of {tenant}.{region}.{domain}, with or without a port', () => {
    expect(tenantFromHost('acme.fir.example.com', config)).toBe('acme');
    expect(tenantFromHost('ACME.fir.example.com:443', config)).toBe('acme');
    expect(tenantFromHost('bank-1.fir.example.com.', config)).toBe('bank-1');
  });
  it.each([
    [undefined],
    ['example.com'],
    ['fir.example.com'],
    ['acme.gum.example.com'],
    ['a.acme.fir.example.com'],
    ['acme.fir.example.com.evil.net'],
    ['acme.fir.notexample.com'],
    ['-acme.fir.example.com'],
    ['ac#me.fir.example.com'],
    ['acme.fir.example.com:443:443'],
    ['acme.fir.example.com:443:8080'],
    ['acme.fir.example.com:'],
    ['acme.fir.example.com:123456'],
    ['user@acme.fir.example.com'],
    ['acme.fir.example.com, other.fir.example.com'],
    [' acme.fir.example.com'],
  ])('rejects %s', (host) => {
    expect(() => tenantFromHost(host, config)).toThrow(expect.objectContaining({ code: 'INVALID_HOST', statusCode: 400 }));
  });

  it('names the exact URL to call, with the port the caller used (locally)', () => {
    const local = { SERVICE_REGION: 'fir' as const, SERVICE_DOMAIN: 'localhost' };
    expect(() => tenantFromHost('localhost', local, { scheme: 'http', host: 'localhost:8080', path: '/api/arthr/apiKeys' })).toThrow(
      "Tenant routes are served on http://{tenantId}.fir.localhost:8080, your tenant's id in place of {tenantId}: call http://{tenantId}.fir.localhost:8080/api/arthr/apiKeys.",
    );
    expect(() => tenantFromHost('127.0.0.1', local, { scheme: 'http', host: '127.0.0.1:41234', path: '/' })).toThrow(
      "Tenant routes are served on http://{tenantId}.fir.localhost:41234, your tenant's id in place of {tenantId}.",
    );
    expect(() => tenantFromHost('demo.gum.localhost', local, { scheme: 'http', host: 'demo.gum.localhost:8080', path: '/api/arthr/apiKeys' })).toThrow(
      'This deployment serves region fir; call http://demo.fir.localhost:8080/api/arthr/apiKeys.',
    );
  });

  it('names https without a port behind API Gateway, and no port it cannot read', () => {
    expect(() => tenantFromHost('example.com', config, { scheme: 'https', host: 'example.com', path: '/api/x' })).toThrow(
      "Tenant routes are served on https://{tenantId}.fir.example.com, your tenant's id in place of {tenantId}: call https://{tenantId}.fir.example.com/api/x.",
    );
    expect(() => tenantFromHost('example.com', config, { scheme: 'https', host: 'example.com:443' })).toThrow('served on https://{tenantId}.fir.example.com,');
    expect(() => tenantFromHost('a:1:2', config, { scheme: 'https', host: 'a:1:2' })).toThrow('served on https://{tenantId}.fir.example.com,');
    // A path too long to read back is left out (the query never reaches this function).
    expect(() => tenantFromHost('example.com', config, { host: 'example.com', path: `/${'x'.repeat(300)}` })).toThrow(/\{tenantId\}\.$/);
  });
});
