import qrcode from 'qrcode-generator';
import { escapeHtml } from './layout.js';

/** The light margin around a QR code that readers need, in modules (ISO/IEC 18004 asks for 4). */
export const QR_QUIET_ZONE = 4;

/**
 * The modules of `text` as a QR code (qrcode-generator 2.0.4: the smallest version that holds
 * it, error correction M, byte mode), true where dark: rows of columns.
 */
export function qrModules(text: string): boolean[][] {
  const qr = qrcode(0, 'M');
  qr.addData(text, 'Byte');
  qr.make();
  const n = qr.getModuleCount();
  return Array.from({ length: n }, (_, row) => Array.from({ length: n }, (_, col) => qr.isDark(row, col)));
}

/**
 * `text` as a QR code in inline SVG, drawn on the server: one path of the dark modules (each run
 * of a row as one rectangle) on a white square with the quiet zone, so the page needs no script,
 * no image request and nothing the pages' CSP refuses. `label` names it for screen readers.
 * Scales to its container (at most `size` CSS pixels wide), with crisp edges.
 */
export function qrCodeSvg(text: string, label: string, size = 264): string {
  const modules = qrModules(text);
  const side = modules.length + 2 * QR_QUIET_ZONE;
  let path = '';
  modules.forEach((row, y) => {
    for (let x = 0; x < row.length; ) {
      if (!row[x]) {
        x++;
        continue;
      }
      let run = 1;
      while (row[x + run]) run++;
      path += `M${x + QR_QUIET_ZONE} ${y + QR_QUIET_ZONE}h${run}v1h-${run}z`;
      x += run;
    }
  });
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="qr" role="img" aria-label="${escapeHtml(label)}" viewBox="0 0 ${side} ${side}" ` +
    `width="${size}" height="${size}" style="display:block;max-width:100%;height:auto;margin:0 auto 1rem" shape-rendering="crispEdges">` +
    `<rect width="${side}" height="${side}" fill="#fff"/><path fill="#000" d="${path}"/></svg>`
  );
}
