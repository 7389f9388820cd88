import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BlobReader, TextReader, Uint8ArrayReader, Uint8ArrayWriter, ZipWriter, configure } from '@zip.js/zip.js';
import tar from 'tar-stream';
import { BUNDLE_LIMITS, plainPath, readBundle } from '../../../functions/theme-server/bundle.js';

configure({ useWebWorkers: false });

type Content = string | Uint8Array;
const INDEX = '<!doctype html><title>p</title>';

async function zipOf(files: Record<string, Content>, options: { level?: number; password?: string } = {}): Promise<Buffer> {
  const writer = new ZipWriter(new Uint8ArrayWriter(), { useWebWorkers: false, dataDescriptor: false, zip64: false, level: options.level ?? 6 });
  for (const [name, content] of Object.entries(files)) {
    const reader = typeof content === 'string' ? new TextReader(content) : new Uint8ArrayReader(content);
    await writer.add(name, name.endsWith('/') ? undefined : reader, { directory: name.endsWith('/'), ...(options.password ? { password: options.password } : {}) });
  }
  return Buffer.from(await writer.close());
}

interface TarEntry {
  name: string;
  body?: Content;
  type?: 'file' | 'directory' | 'symlink' | 'link' | 'character-device' | 'fifo';
  linkname?: string;
}

async function tarGzOf(entries: TarEntry[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((ok) => pack.on('end', ok));
  for (const e of entries) {
    const body = e.body === undefined ? undefined : Buffer.from(e.body);
    await new Promise<void>((ok, fail) => pack.entry({ name: e.name, type: e.type ?? 'file', ...(e.linkname ? { linkname: e.linkname } : {}), ...(body ? { size: body.length } : {}) }, body, (err) => (err ? fail(err) : ok())));
  }
  pack.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}

async function refusal(archive: Buffer | Promise<Buffer>, limits = BUNDLE_LIMITS): Promise<string> {
  try {
    await readBundle(await archive, limits);
  } catch (err) {
    return (err as { code?: string }).code ?? `uncoded: ${(err as Error).message}`;
  }
  return 'accepted';
}

describe('readBundle: what it accepts', () => {
  it('reads a zip with folders into /paths with content types', async () => {
    const bundle = await readBundle(await zipOf({ 'index.html': INDEX, 'assets/': '', 'assets/app.JS': 'x()', 'assets/logo.png': new Uint8Array([1, 2, 3]) }));
    expect(bundle.files.map((f) => [f.path, f.contentType])).toEqual([
      ['/assets/app.JS', 'text/javascript; charset=utf-8'],
      ['/assets/logo.png', 'image/png'],
      ['/index.html', 'text/html; charset=utf-8'],
    ]);
    expect(bundle.files.find((f) => f.path === '/index.html')!.bytes.toString()).toBe(INDEX);
  });

  it('reads a tar.gz, with ./ prefixes as tar -C dir . writes them', async () => {
    const bundle = await readBundle(await tarGzOf([{ name: './', type: 'directory' }, { name: './index.html', body: INDEX }, { name: './css/a.css', body: 'a{}' }]));
    expect(bundle.files.map((f) => f.path)).toEqual(['/css/a.css', '/index.html']);
  });

  it('reads a bundle whose files all sit in one top folder holding index.html', async () => {
    const bundle = await readBundle(await zipOf({ 'page/index.html': INDEX, 'page/a.js': '1' }));
    expect(bundle.files.map((f) => f.path)).toEqual(['/a.js', '/index.html']);
  });

  it('leaves out macOS Finder noise (__MACOSX, .DS_Store)', async () => {
    const bundle = await readBundle(await zipOf({ 'index.html': INDEX, '__MACOSX/._index.html': 'x', '.DS_Store': 'x' }));
    expect(bundle.files.map((f) => f.path)).toEqual(['/index.html']);
  });

  it('takes every allowed type, in any case', async () => {
    const types = ['html', 'js', 'css', 'json', 'xml', 'txt', 'map', 'wasm', 'png', 'jpeg', 'jpg', 'gif', 'svg', 'ico', 'mp4', 'mov', 'webm', 'woff', 'woff2', 'ttf', 'pdf', 'mp3'];
    const files: Record<string, string> = { 'index.html': INDEX };
    for (const t of types) files[`f.${t.toUpperCase()}`] = 'x';
    expect((await readBundle(await zipOf(files))).files).toHaveLength(types.length + 1);
  });
});

describe('readBundle: each refusal at its edge', () => {
  it('15 MiB exactly is read; one byte more is BUNDLE_TOO_LARGE', async () => {
    const probe = await zipOf({ 'index.html': INDEX, 'big.png': new Uint8Array(1000) }, { level: 0 });
    const overhead = probe.length - 1000;
    const exact = await zipOf({ 'index.html': INDEX, 'big.png': randomBytes(BUNDLE_LIMITS.maxArchiveBytes - overhead) }, { level: 0 });
    expect(exact.length).toBe(BUNDLE_LIMITS.maxArchiveBytes);
    expect((await readBundle(exact)).files).toHaveLength(2);
    const over = await zipOf({ 'index.html': INDEX, 'big.png': randomBytes(BUNDLE_LIMITS.maxArchiveBytes - overhead + 1) }, { level: 0 });
    expect(await refusal(over)).toBe('BUNDLE_TOO_LARGE');
  });

  it('refuses types not on the list (BUNDLE_FILE_TYPE), and files without an extension', async () => {
    expect(await refusal(zipOf({ 'index.html': INDEX, 'run.sh': 'x' }))).toBe('BUNDLE_FILE_TYPE');
    expect(await refusal(zipOf({ 'index.html': INDEX, 'app.md5': 'x' }))).toBe('BUNDLE_FILE_TYPE');
    expect(await refusal(zipOf({ 'index.html': INDEX, Makefile: 'x' }))).toBe('BUNDLE_FILE_TYPE');
    expect(await refusal(tarGzOf([{ name: 'index.html', body: INDEX }, { name: 'x.php', body: 'x' }]))).toBe('BUNDLE_FILE_TYPE');
  });

  it('refuses a bundle without index.html at its root (BUNDLE_NO_INDEX)', async () => {
    expect(await refusal(zipOf({ 'main.html': INDEX }))).toBe('BUNDLE_NO_INDEX');
    expect(await refusal(zipOf({ 'a/index.html': INDEX, 'b/x.js': '1' }))).toBe('BUNDLE_NO_INDEX');
    expect(await refusal(zipOf({ 'a/b/index.html': INDEX }))).toBe('BUNDLE_NO_INDEX');
  });

  it('refuses zip slip in every form (BUNDLE_UNSAFE_PATH)', async () => {
    for (const name of ['../evil.html', 'a/../../evil.html', '/etc/index.html', 'C:/x.html', 'a\\..\\x.html', 'a\u0000.html', 'a//b.html']) {
      expect(await refusal(zipOf({ 'index.html': INDEX, [name]: 'x' })), name).toBe('BUNDLE_UNSAFE_PATH');
    }
    expect(await refusal(tarGzOf([{ name: 'index.html', body: INDEX }, { name: '../../x.js', body: 'x' }]))).toBe('BUNDLE_UNSAFE_PATH');
  });

  it('refuses links and devices in a tar (BUNDLE_LINK)', async () => {
    for (const e of [
      { name: 'x.js', type: 'symlink', linkname: '/etc/passwd' },
      { name: 'y.js', type: 'link', linkname: 'index.html' },
      { name: 'z.js', type: 'character-device' },
      { name: 'f.js', type: 'fifo' },
    ] as TarEntry[]) {
      expect(await refusal(tarGzOf([{ name: 'index.html', body: INDEX }, e])), e.type).toBe('BUNDLE_LINK');
    }
  });

  it('refuses a zip bomb by ratio (BUNDLE_BOMB), counting what inflates', async () => {
    expect(await refusal(zipOf({ 'index.html': INDEX, 'pad.txt': new Uint8Array(12 * 1024 * 1024) }))).toBe('BUNDLE_BOMB');
    expect(await refusal(tarGzOf([{ name: 'index.html', body: INDEX }, { name: 'pad.txt', body: new Uint8Array(12 * 1024 * 1024) }]))).toBe('BUNDLE_BOMB');
  });

  it('refuses a file whose declared size lies, by the bytes actually inflated', async () => {
    const zip = await zipOf({ 'index.html': INDEX, 'pad.txt': new Uint8Array(30 * 1024 * 1024) });
    // Declare 100 bytes for pad.txt in its local header and its central directory record.
    let at = 0;
    for (;;) {
      at = zip.indexOf(Buffer.from('pad.txt'), at + 1);
      if (at < 0) break;
      if (zip.readUInt32LE(at - 30) === 0x04034b50) zip.writeUInt32LE(100, at - 30 + 22);
      if (zip.readUInt32LE(at - 46) === 0x02014b50) zip.writeUInt32LE(100, at - 46 + 24);
    }
    // Without the ratio check, the per-file cap still stops it (25 MiB), whatever was declared.
    expect(await refusal(zip, { ...BUNDLE_LIMITS, maxRatio: 1e9 })).toMatch(/^BUNDLE_(BOMB|UNREADABLE)$/);
    expect(await refusal(zip)).toMatch(/^BUNDLE_(BOMB|UNREADABLE)$/);
  });

  it('caps the total inflated bytes across files', async () => {
    const files: Record<string, Uint8Array | string> = { 'index.html': INDEX };
    for (let i = 0; i < 6; i++) files[`p${i}.png`] = randomBytes(1024 * 1024);
    expect(await refusal(zipOf(files, { level: 0 }), { ...BUNDLE_LIMITS, maxTotalBytes: 5 * 1024 * 1024 })).toBe('BUNDLE_BOMB');
  });

  it('reads 1,000 files; refuses 1,001 (BUNDLE_TOO_MANY_FILES)', async () => {
    const files: Record<string, string> = { 'index.html': INDEX };
    for (let i = 1; i < 1000; i++) files[`f/${i}.txt`] = String(i);
    expect((await readBundle(await zipOf(files, { level: 0 }))).files).toHaveLength(1000);
    files['f/1000.txt'] = 'x';
    expect(await refusal(zipOf(files, { level: 0 }))).toBe('BUNDLE_TOO_MANY_FILES');
  });

  it('takes a 255-byte path; refuses 256 bytes and 17 folders (BUNDLE_PATH_TOO_LONG)', async () => {
    const name = (n: number) => `${'a'.repeat(n - 4)}.txt`;
    expect((await readBundle(await zipOf({ 'index.html': INDEX, [name(255)]: 'x' }))).files).toHaveLength(2);
    expect(await refusal(zipOf({ 'index.html': INDEX, [name(256)]: 'x' }))).toBe('BUNDLE_PATH_TOO_LONG');
    expect(await refusal(zipOf({ 'index.html': INDEX, [`${'d/'.repeat(16)}x.txt`]: 'x' }))).toBe('BUNDLE_PATH_TOO_LONG');
    expect((await readBundle(await zipOf({ 'index.html': INDEX, [`${'d/'.repeat(15)}x.txt`]: 'x' }))).files).toHaveLength(2);
  });

  it('refuses the same path twice (BUNDLE_DUPLICATE_PATH), also spelt ./x', async () => {
    expect(await refusal(tarGzOf([{ name: 'index.html', body: INDEX }, { name: 'a.js', body: '1' }, { name: './a.js', body: '2' }]))).toBe('BUNDLE_DUPLICATE_PATH');
    expect(await refusal(tarGzOf([{ name: 'index.html', body: INDEX }, { name: 'index.html', body: INDEX }]))).toBe('BUNDLE_DUPLICATE_PATH');
  });

  it('refuses an encrypted entry (BUNDLE_ENCRYPTED)', async () => {
    expect(await refusal(zipOf({ 'index.html': INDEX, 'a.js': 'secret' }, { password: 'pw' }))).toBe('BUNDLE_ENCRYPTED');
  });

  it('refuses garbage, a plain tar and a truncated archive (BUNDLE_UNREADABLE)', async () => {
    expect(await refusal(Buffer.from('not an archive at all'))).toBe('BUNDLE_UNREADABLE');
    expect(await refusal(Buffer.alloc(0))).toBe('BUNDLE_UNREADABLE');
    const zip = await zipOf({ 'index.html': INDEX });
    expect(await refusal(zip.subarray(0, zip.length - 30))).toBe('BUNDLE_UNREADABLE');
    const tgz = await tarGzOf([{ name: 'index.html', body: INDEX }]);
    expect(await refusal(tgz.subarray(0, 20))).toBe('BUNDLE_UNREADABLE');
  });

  it('refuses an empty archive (BUNDLE_EMPTY), and one of folders only', async () => {
    expect(await refusal(zipOf({}))).toBe('BUNDLE_EMPTY');
    expect(await refusal(zipOf({ 'a/': '' }))).toBe('BUNDLE_EMPTY');
    expect(await refusal(tarGzOf([]))).toBe('BUNDLE_EMPTY');
  });
});

describe('plainPath', () => {
  it('drops ./ and keeps plain paths', () => {
    expect(plainPath('./a/./b.js')).toBe('a/b.js');
    expect(plainPath('a/')).toBe('a');
  });
});

void BlobReader;
