/**
 * An EXIF orientation (1, upright, to 8) as a mapping: where the pixel displayed at (x, y) is
 * stored in an image `w` x `h` as stored. Orientations 5 to 8 swap the displayed sides.
 */
export function storedPixel(orientation: number, x: number, y: number, w: number, h: number): [number, number] {
  switch (orientation) {
    case 2: return [w - 1 - x, y];
    case 3: return [w - 1 - x, h - 1 - y];
    case 4: return [x, h - 1 - y];
    case 5: return [y, x];
    case 6: return [y, h - 1 - x];
    case 7: return [w - 1 - y, h - 1 - x];
    case 8: return [w - 1 - y, x];
    default: return [x, y];
  }
}
