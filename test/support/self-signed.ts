import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A throwaway self-signed certificate (P-256, one day) for local HTTPS servers in tests, made
 * with the openssl command (node:crypto cannot issue X.509). `altNames` is the subjectAltName
 * list, e.g. `DNS:localhost,IP:127.0.0.1`. Returns the folder too, for the caller to remove.
 */
export function selfSignedCert(altNames: string, prefix: string): { dir: string; key: Buffer; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=localhost', '-addext', `subjectAltName=${altNames}`,
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ], { stdio: 'ignore' });
  return { dir, key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
}
