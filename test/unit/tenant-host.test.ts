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
});
