/** `btoa` and `atob`: forgiving-base64 of the HTML standard, on Latin-1 strings. */
import { fromCharCode, install, namedError } from './intrinsics.js';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_INDEX: Record<string, number> = {};
for (let i = 0; i < 64; i++) B64_INDEX[B64[i]!] = i;

export function installBase64(): void {
  install('btoa', function btoa(data: unknown): string {
    const s = String(data);
    const out: string[] = [];
    for (let i = 0; i < s.length; i += 3) {
      const a = s.charCodeAt(i), b = i + 1 < s.length ? s.charCodeAt(i + 1) : 0, c = i + 2 < s.length ? s.charCodeAt(i + 2) : 0;
      if (a > 255 || b > 255 || c > 255) throw namedError('InvalidCharacterError', 'btoa: the string has characters outside Latin-1');
      const n = (a << 16) | (b << 8) | c;
      out.push(B64[(n >> 18) & 63]! + B64[(n >> 12) & 63]! + (i + 1 < s.length ? B64[(n >> 6) & 63]! : '=') + (i + 2 < s.length ? B64[n & 63]! : '='));
    }
    return out.join('');
  });
  install('atob', function atob(data: unknown): string {
    let s = String(data).replace(/[\t\n\f\r ]/g, '');
    if (s.length % 4 === 0) s = s.replace(/==?$/, '');
    if (s.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(s)) throw namedError('InvalidCharacterError', 'atob: the string is not correctly encoded');
    const out: string[] = [];
    let buffer = 0, bits = 0;
    for (let i = 0; i < s.length; i++) {
      buffer = ((buffer << 6) | B64_INDEX[s[i]!]!) & 0xffffff;
      bits += 6;
      if (bits >= 8) { bits -= 8; out.push(fromCharCode((buffer >> bits) & 255)); }
    }
    return out.join('');
  });
}
