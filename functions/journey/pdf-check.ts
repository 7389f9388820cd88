/**
 * A PDF sent as an additional document, judged by its bytes alone (nothing renders or parses it
 * further: it is kept for the relying party as it came). A PDF is taken when it starts with
 * `%PDF-1.x` or `%PDF-2.0`, has `%%EOF` within its last 1 KiB, is not encrypted (an `/Encrypt`
 * entry: the relying party could not open it), and its pages can be counted: the `/Type /Page`
 * objects (not `/Pages`, the page tree's nodes). A PDF whose objects are in compressed object
 * streams (`/Type /ObjStm`) hides its pages from that count and is refused as unreadable.
 */
import { MAX_DOCUMENT_IMAGE_BYTES } from './document-limits.js';

/** Why a PDF is refused. */
export type PdfProblem = 'notPdf' | 'tooLarge' | 'truncated' | 'encrypted' | 'unreadable' | 'noPages';

const EOF_WINDOW = 1024;

export function inspectPdf(bytes: Uint8Array, maxBytes = MAX_DOCUMENT_IMAGE_BYTES): { pages: number } | { problem: PdfProblem } {
  if (bytes.length > maxBytes) return { problem: 'tooLarge' };
  // latin1 keeps one character per byte: offsets and binary streams stay as they are.
  const head = Buffer.from(bytes.subarray(0, 16)).toString('latin1');
  if (!/^%PDF-(1\.[0-7]|2\.0)\s/.test(head)) return { problem: 'notPdf' };
  const tail = Buffer.from(bytes.subarray(Math.max(0, bytes.length - EOF_WINDOW))).toString('latin1');
  if (!tail.includes('%%EOF')) return { problem: 'truncated' };
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  if (/\/Encrypt[\s/<\d]/.test(text)) return { problem: 'encrypted' };
  if (/\/Type\s*\/ObjStm\b/.test(text)) return { problem: 'unreadable' };
  // `/Type /Page` followed by anything but a name character: `/Pages` does not count.
  const pages = text.match(/\/Type\s*\/Page(?![A-Za-z0-9_.#-])/g)?.length ?? 0;
  return pages === 0 ? { problem: 'noPages' } : { pages };
}
