/**
 * Reading a custom page bundle (a `.zip` or `.tar.gz`) into its files, with the family's rules
 * enforced at their edges: a 400 with its own code for each refusal (docs/custom-pages.md).
 *
 * Nothing the archive declares is trusted: sizes are counted as bytes are inflated, and reading
 * stops at the first byte over a cap (zip bombs, sizes that lie). Paths are checked before any
 * file is read, and the result's paths are plain `/a/b.ext` (no `..`, no backslash, no NUL).
 */
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { apiError } from '../errors.js';

export const BUNDLE_LIMITS = {
  /** The archive as uploaded (decoded from base64): the family's 15 MB. */
  maxArchiveBytes: 15 * 1024 * 1024,
  /** Every file inflated, together. */
  maxTotalBytes: 50 * 1024 * 1024,
  /** One file inflated. */
  maxFileBytes: 25 * 1024 * 1024,
  /** Files (folders not counted). */
  maxFiles: 1000,
  /** A path's UTF-8 bytes, and its folders. */
  maxPathBytes: 255,
  maxDepth: 16,
  /** Inflated / compressed, checked once a file (or a tar.gz stream) passes `ratioFloorBytes`. */
  maxRatio: 100,
  ratioFloorBytes: 1024 * 1024,
};
export type BundleLimits = typeof BUNDLE_LIMITS;

/** The file types a bundle may hold, and the Content-Type each is served with. */
export const BUNDLE_CONTENT_TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  map: 'application/json; charset=utf-8',
  wasm: 'application/wasm',
  png: 'image/png',
  jpeg: 'image/jpeg',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  ico: 'image/x-icon',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  pdf: 'application/pdf',
  mp3: 'audio/mpeg',
};

export class BundleTooLargeError extends apiError('BUNDLE_TOO_LARGE') {}
export class BundleFileTypeError extends apiError('BUNDLE_FILE_TYPE') {}
export class BundleNoIndexError extends apiError('BUNDLE_NO_INDEX') {}
export class BundleUnsafePathError extends apiError('BUNDLE_UNSAFE_PATH') {}
export class BundleLinkError extends apiError('BUNDLE_LINK') {}
export class BundleBombError extends apiError('BUNDLE_BOMB') {}
export class BundleTooManyFilesError extends apiError('BUNDLE_TOO_MANY_FILES') {}
export class BundlePathTooLongError extends apiError('BUNDLE_PATH_TOO_LONG') {}
export class BundleDuplicatePathError extends apiError('BUNDLE_DUPLICATE_PATH') {}
export class BundleEncryptedError extends apiError('BUNDLE_ENCRYPTED') {}
export class BundleUnreadableError extends apiError('BUNDLE_UNREADABLE') {}
export class BundleEmptyError extends apiError('BUNDLE_EMPTY') {}

export interface BundleFile {
  /** `/index.html`, `/assets/app.js`: from the bundle's root, starting with `/`. */
  path: string;
  bytes: Buffer;
  contentType: string;
}

export interface Bundle {
  /** In path order; `/index.html` among them. */
  files: BundleFile[];
  totalBytes: number;
}

/** What archivers add that is no part of a page (macOS Finder's resource forks and folder files). */
function isOsNoise(path: string): boolean {
  return path.startsWith('__MACOSX/') || path === '__MACOSX' || /(^|\/)\.DS_Store$/.test(path);
}

/**
 * An entry's name as a plain relative path (`a/b.js`), or a refusal: absolute paths, drive
 * letters, backslashes, NUL and other control characters, `..`, empty segments. A leading `./`
 * (what `tar -C dir .` writes) and inner `.` segments are dropped.
 */
export function plainPath(raw: string, limits: BundleLimits = BUNDLE_LIMITS): string {
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u001f\u007f]/.test(raw)) throw new BundleUnsafePathError(`Entry "${printable(raw)}" has a backslash or a control character in its path.`);
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw)) throw new BundleUnsafePathError(`Entry "${printable(raw)}" has an absolute path.`);
  const segments = raw.replace(/\/$/, '').split('/').filter((s) => s !== '.');
  // `./` itself: the root folder, which tar -C dir . lists first.
  if (segments.length === 0 && raw.length > 0 && raw.endsWith('/')) return '';
  if (segments.some((s) => s === '..')) throw new BundleUnsafePathError(`Entry "${printable(raw)}" climbs out of the bundle (..).`);
  if (segments.length === 0 || segments.some((s) => s === '')) throw new BundleUnsafePathError(`Entry "${printable(raw)}" has an empty path segment.`);
  const path = segments.join('/');
  if (Buffer.byteLength(path, 'utf8') > limits.maxPathBytes || segments.length > limits.maxDepth) {
    throw new BundlePathTooLongError(`Entry "${printable(path.slice(0, 80))}..." is longer than ${limits.maxPathBytes} bytes or deeper than ${limits.maxDepth} folders.`);
  }
  return path;
}

function printable(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f]/g, '?').slice(0, 300);
}

function contentTypeOf(path: string): string {
  const ext = /\.([^./]+)$/.exec(path)?.[1]?.toLowerCase();
  const type = ext === undefined ? undefined : BUNDLE_CONTENT_TYPES[ext];
  if (!type) {
    throw new BundleFileTypeError(`"${printable(path)}" is not of a type a bundle may hold (${Object.keys(BUNDLE_CONTENT_TYPES).join(', ')}).`);
  }
  return type;
}

/** Counts the files and bytes of one read, refusing past the caps. */
class Budget {
  files = 0;
  total = 0;
  readonly seen = new Set<string>();
  constructor(readonly limits: BundleLimits) {}

  /** A file entry is about to be read: its path is free and there is room for one more. */
  admit(path: string): void {
    const key = path.normalize('NFC');
    if (this.seen.has(key)) throw new BundleDuplicatePathError(`"${printable(path)}" is in the bundle twice.`);
    this.seen.add(key);
    this.files += 1;
    if (this.files > this.limits.maxFiles) throw new BundleTooManyFilesError(`The bundle has more than ${this.limits.maxFiles} files.`);
  }

  /** Inflated bytes of one file so far; `compressed` its stored size, for the ratio. */
  grow(path: string, fileBytes: number, chunk: number, compressed: number | undefined): void {
    this.total += chunk;
    if (fileBytes > this.limits.maxFileBytes) throw new BundleBombError(`"${printable(path)}" inflates past ${this.limits.maxFileBytes} bytes.`);
    if (this.total > this.limits.maxTotalBytes) throw new BundleBombError(`The bundle inflates past ${this.limits.maxTotalBytes} bytes.`);
    if (compressed !== undefined && fileBytes > this.limits.ratioFloorBytes && fileBytes > Math.max(compressed, 1) * this.limits.maxRatio) {
      throw new BundleBombError(`"${printable(path)}" inflates more than ${this.limits.maxRatio} times its stored size.`);
    }
  }
}

/**
 * The files of a bundle, after every rule. `index.html` must be at the root; a bundle whose
 * files all sit in one top folder with `index.html` in it (what zipping a folder makes) is read
 * from that folder.
 */
export async function readBundle(archive: Buffer, limits: BundleLimits = BUNDLE_LIMITS): Promise<Bundle> {
  if (archive.length > limits.maxArchiveBytes) {
    throw new BundleTooLargeError(`The archive is ${archive.length} bytes; a bundle is at most ${limits.maxArchiveBytes}.`);
  }
  const budget = new Budget(limits);
  let files: BundleFile[];
  if (archive.length >= 4 && archive.readUInt32LE(0) === 0x04034b50) files = await readZip(archive, budget);
  else if (archive.length >= 4 && archive.readUInt32LE(0) === 0x06054b50) throw new BundleEmptyError('The archive holds no files.');
  else if (archive.length >= 3 && archive[0] === 0x1f && archive[1] === 0x8b && archive[2] === 0x08) files = await readTarGz(archive, budget);
  else throw new BundleUnreadableError('The archive is neither a .zip nor a .tar.gz.');
  if (files.length === 0) throw new BundleEmptyError('The archive holds no files.');
  files = rooted(files);
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, totalBytes: budget.total };
}

/** Files as `/path`, from the root or from the one top folder that holds index.html. */
function rooted(files: BundleFile[]): BundleFile[] {
  if (files.some((f) => f.path === 'index.html')) return files.map((f) => ({ ...f, path: `/${f.path}` }));
  const tops = new Set(files.map((f) => f.path.split('/')[0]));
  const [top] = tops;
  if (tops.size === 1 && files.every((f) => f.path.includes('/')) && files.some((f) => f.path === `${top}/index.html`)) {
    return files.map((f) => ({ ...f, path: f.path.slice(top!.length) }));
  }
  throw new BundleNoIndexError('The bundle has no index.html at its root.');
}

async function readZip(archive: Buffer, budget: Budget): Promise<BundleFile[]> {
  const zip = await import('@zip.js/zip.js');
  zip.configure({ useWebWorkers: false });
  const reader = new zip.ZipReader(new zip.Uint8ArrayReader(new Uint8Array(archive.buffer, archive.byteOffset, archive.length)), { useWebWorkers: false, checkCrc32: true });
  let entries: Awaited<ReturnType<typeof reader.getEntries>>;
  try {
    // Names are checked by plainPath, so that each refusal has its own code.
    entries = await reader.getEntries({ filenameValidation: 'tolerant' });
  } catch (err) {
    throw new BundleUnreadableError(`The zip cannot be read: ${(err as Error).message}`.slice(0, 300));
  }
  // Folders do not count, but a central directory this long is refused before anything is read.
  if (entries.length > budget.limits.maxFiles * 4) throw new BundleTooManyFilesError(`The bundle has more than ${budget.limits.maxFiles} files.`);
  const files: BundleFile[] = [];
  for (const entry of entries) {
    if (isOsNoise(entry.filename)) continue;
    const path = plainPath(entry.directory && !entry.filename.endsWith('/') ? `${entry.filename}/` : entry.filename, budget.limits);
    if (entry.directory) continue;
    if (entry.encrypted) throw new BundleEncryptedError(`"${printable(path)}" is encrypted; a bundle is read without a password.`);
    if (entry.symlink) throw new BundleLinkError(`"${printable(path)}" is a symbolic link; a bundle holds only files and folders.`);
    const contentType = contentTypeOf(path);
    budget.admit(path);
    const chunks: Buffer[] = [];
    let size = 0;
    const sink = new WritableStream<Uint8Array>({
      write(chunk) {
        size += chunk.length;
        budget.grow(path, size, chunk.length, entry.compressedSize);
        chunks.push(Buffer.from(chunk));
      },
    });
    try {
      await entry.getData!(sink);
    } catch (err) {
      if (err instanceof BundleBombError) throw err;
      throw new BundleUnreadableError(`"${printable(path)}" cannot be read from the zip: ${(err as Error).message}`.slice(0, 300));
    }
    // A size that lies the other way (more declared than stored) is corruption, not a bomb.
    if (size !== entry.uncompressedSize) {
      throw new BundleUnreadableError(`"${printable(path)}" inflates to ${size} bytes but the zip declares ${entry.uncompressedSize}.`);
    }
    files.push({ path, bytes: Buffer.concat(chunks), contentType });
  }
  await reader.close();
  return files;
}

async function readTarGz(archive: Buffer, budget: Budget): Promise<BundleFile[]> {
  const tar = (await import('tar-stream')).default;
  const extract = tar.extract();
  const files: BundleFile[] = [];
  // The whole tar stream as inflated, capped like the files (plus its headers) and by ratio.
  const limits = budget.limits;
  const streamCap = limits.maxTotalBytes + (limits.maxFiles * 4 + 16) * 1024;
  let inflated = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      inflated += chunk.length;
      if (inflated > streamCap) return done(new BundleBombError(`The bundle inflates past ${limits.maxTotalBytes} bytes.`));
      if (inflated > limits.ratioFloorBytes && inflated > archive.length * limits.maxRatio) {
        return done(new BundleBombError(`The bundle inflates more than ${limits.maxRatio} times its size.`));
      }
      done(null, chunk);
    },
  });
  extract.on('entry', (header, stream, next) => {
    // The entry's stream is destroyed with the extractor: its error is the one pipeline reports.
    stream.on('error', () => undefined);
    const fail = (err: unknown) => extract.destroy(err as Error);
    try {
      if (isOsNoise(header.name)) {
        stream.on('end', next).resume();
        return;
      }
      const path = plainPath(header.type === 'directory' && !header.name.endsWith('/') ? `${header.name}/` : header.name, limits);
      if (header.type === 'directory') {
        stream.on('end', next).resume();
        return;
      }
      if (header.type !== 'file' && header.type !== 'contiguous-file') {
        throw new BundleLinkError(`"${printable(path)}" is a ${header.type ?? 'special entry'}; a bundle holds only files and folders.`);
      }
      const contentType = contentTypeOf(path);
      budget.admit(path);
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        try {
          budget.grow(path, size, chunk.length, undefined);
          chunks.push(chunk);
        } catch (err) {
          fail(err);
        }
      });
      stream.on('end', () => {
        files.push({ path, bytes: Buffer.concat(chunks), contentType });
        next();
      });
    } catch (err) {
      fail(err);
    }
  });
  try {
    await pipeline(Readable.from([archive]), createGunzip(), counter, extract);
  } catch (err) {
    if (isBundleError(err)) throw err;
    throw new BundleUnreadableError(`The tar.gz cannot be read: ${(err as Error).message}`.slice(0, 300));
  }
  return files;
}

function isBundleError(err: unknown): boolean {
  return (
    err instanceof BundleTooLargeError ||
    err instanceof BundleFileTypeError ||
    err instanceof BundleUnsafePathError ||
    err instanceof BundleLinkError ||
    err instanceof BundleBombError ||
    err instanceof BundleTooManyFilesError ||
    err instanceof BundlePathTooLongError ||
    err instanceof BundleDuplicatePathError ||
    err instanceof BundleEncryptedError ||
    err instanceof BundleUnreadableError ||
    err instanceof BundleEmptyError
  );
}
