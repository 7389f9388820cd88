/** UTF-8 (the Encoding standard's encoder and decoder), and `TextEncoder`/`TextDecoder` on it. */
import { fromCharCode, install, isView } from './intrinsics.js';

export function bytesOf(input: unknown, what: string): Uint8Array {
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  throw new TypeError(what + ': expected an ArrayBuffer or a typed array');
}

export function encodeUtf8(input: unknown): Uint8Array {
  const s = String(input);
  const out = new Uint8Array(s.length * 3);
  let o = 0;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) {
      const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) { c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00); i++; }
      else c = 0xfffd;
    }
    if (c < 0x80) out[o++] = c;
    else if (c < 0x800) { out[o++] = 0xc0 | (c >> 6); out[o++] = 0x80 | (c & 63); }
    else if (c < 0x10000) { out[o++] = 0xe0 | (c >> 12); out[o++] = 0x80 | ((c >> 6) & 63); out[o++] = 0x80 | (c & 63); }
    else { out[o++] = 0xf0 | (c >> 18); out[o++] = 0x80 | ((c >> 12) & 63); out[o++] = 0x80 | ((c >> 6) & 63); out[o++] = 0x80 | (c & 63); }
  }
  return out.slice(0, o);
}

/** Decodes UTF-8; a malformed sequence is U+FFFD, or a TypeError when `fatal`. */
export function decodeUtf8(bytes: ArrayLike<number>, fatal: boolean): string {
  const parts: string[] = [];
  let units: number[] = [];
  const emit = (cp: number) => {
    if (cp > 0xffff) { cp -= 0x10000; units.push(0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff)); }
    else units.push(cp);
    if (units.length >= 8192) { parts.push(fromCharCode.apply(null, units)); units = []; }
  };
  const bad = () => {
    if (fatal) throw new TypeError('TextDecoder: the data is not valid UTF-8');
    emit(0xfffd);
  };
  let cp = 0, needed = 0, seen = 0, lower = 0x80, upper = 0xbf;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (needed === 0) {
      if (b <= 0x7f) emit(b);
      else if (b >= 0xc2 && b <= 0xdf) { needed = 1; cp = b & 0x1f; }
      else if (b >= 0xe0 && b <= 0xef) { if (b === 0xe0) lower = 0xa0; if (b === 0xed) upper = 0x9f; needed = 2; cp = b & 0xf; }
      else if (b >= 0xf0 && b <= 0xf4) { if (b === 0xf0) lower = 0x90; if (b === 0xf4) upper = 0x8f; needed = 3; cp = b & 7; }
      else bad();
      continue;
    }
    if (b < lower || b > upper) {
      cp = needed = seen = 0; lower = 0x80; upper = 0xbf;
      bad();
      i--;
      continue;
    }
    lower = 0x80; upper = 0xbf;
    cp = (cp << 6) | (b & 0x3f);
    if (++seen === needed) { emit(cp); cp = needed = seen = 0; }
  }
  if (needed) bad();
  parts.push(fromCharCode.apply(null, units));
  return parts.join('');
}

class TextEncoder {
  get encoding(): string { return 'utf-8'; }
  encode(input: unknown = ''): Uint8Array { return encodeUtf8(input); }
}

class TextDecoder {
  #fatal: boolean; #ignoreBOM: boolean;
  constructor(label: unknown = 'utf-8', options: { fatal?: unknown; ignoreBOM?: unknown } | null = {}) {
    const name = String(label).trim().toLowerCase();
    if (name !== 'utf-8' && name !== 'utf8' && name !== 'unicode-1-1-utf-8') throw new RangeError('TextDecoder: only utf-8 is supported');
    this.#fatal = Boolean(options && options.fatal);
    this.#ignoreBOM = Boolean(options && options.ignoreBOM);
  }
  get encoding(): string { return 'utf-8'; }
  get fatal(): boolean { return this.#fatal; }
  get ignoreBOM(): boolean { return this.#ignoreBOM; }
  decode(input?: ArrayBuffer | ArrayBufferView): string {
    if (input === undefined) return '';
    const text = decodeUtf8(bytesOf(input, 'TextDecoder.decode'), this.#fatal);
    return !this.#ignoreBOM && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
}

export function installEncoding(): void {
  install('TextEncoder', TextEncoder);
  install('TextDecoder', TextDecoder);
}
