import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { decodeRgb, type RgbImage } from '../../functions/adapters/face-image.js';

/** Debian's Chromium (apt-get install chromium), or CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SHOTS = resolve(import.meta.dirname, '../../test-results/screenshots');
export const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/** What the fake camera shows unless a test says otherwise: a face (test/fixtures/faces/README.md). */
export const CAMERA_FACE = resolve(import.meta.dirname, '../fixtures/face-640x480.jpg');

/**
 * A Y4M video (what Chromium's `--use-file-for-fake-video-capture` plays, looping) of one still
 * image: its pixels in 4:2:0 YUV (BT.601), as one frame.
 */
export function stillVideo(imagePath: string): string {
  return framesVideo(imagePath.replace(/^.*\//, '').replace(/\.[a-z]+$/, ''), [decodeRgb(readFileSync(imagePath), 4096)], 30);
}

/**
 * A Y4M video of frames (RGB, all of one size) at `fps`, written to `name` beside the screenshots:
 * what the fake camera plays from its first frame when a page opens it, looping.
 */
export function framesVideo(name: string, frames: RgbImage[], fps: number): string {
  const { width, height } = frames[0]!;
  const w = width & ~1;
  const h = height & ~1;
  const parts: Buffer[] = [Buffer.from(`YUV4MPEG2 W${w} H${h} F${fps}:1 Ip A1:1 C420jpeg\n`, 'latin1')];
  for (const image of frames) parts.push(Buffer.from('FRAME\n', 'latin1'), ...yuv420(image, w, h));
  mkdirSync(SHOTS, { recursive: true });
  const out = resolve(SHOTS, `../${name}.y4m`);
  writeFileSync(out, Buffer.concat(parts));
  return out;
}

/** An image's pixels in 4:2:0 YUV (BT.601), cut to w × h. */
function yuv420(image: RgbImage, w: number, h: number): [Buffer, Buffer, Buffer] {
  const y = Buffer.alloc(w * h);
  const u = Buffer.alloc((w / 2) * (h / 2));
  const v = Buffer.alloc((w / 2) * (h / 2));
  const d = image.data;
  for (let row = 0; row < h; row++) {
    for (let col = 0; col < w; col++) {
      const i = (row * image.width + col) * 3;
      y[row * w + col] = Math.round(16 + 0.257 * d[i]! + 0.504 * d[i + 1]! + 0.098 * d[i + 2]!);
    }
  }
  for (let row = 0; row < h; row += 2) {
    for (let col = 0; col < w; col += 2) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (const [dx, dy] of [[0, 0], [1, 0], [0, 1], [1, 1]] as const) {
        const i = ((row + dy) * image.width + col + dx) * 3;
        r += d[i]! / 4;
        g += d[i + 1]! / 4;
        b += d[i + 2]! / 4;
      }
      const i = (row / 2) * (w / 2) + col / 2;
      u[i] = Math.round(128 - 0.148 * r - 0.291 * g + 0.439 * b);
      v[i] = Math.round(128 + 0.439 * r - 0.368 * g - 0.071 * b);
    }
  }
  return [y, u, v];
}

/** A headless Chromium for the journey pages, with the fake camera showing `cameraImage` (a face by default), or playing `video` (a Y4M file). */
export async function launchChromium(cameraImage: string = CAMERA_FACE, video?: string): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is needed at ${CHROMIUM} (apt-get install chromium), or set CHROMIUM_PATH`);
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    // The machine's network is closed: no background calls home, no sandbox as root.
    // The fake camera: a generated video stream in place of a device, without the permission prompt.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--use-fake-device-for-media-stream',
      '--use-fake-ui-for-media-stream',
      `--use-file-for-fake-video-capture=${video ?? stillVideo(cameraImage)}`,
    ],
  });
}

/**
 * On the face capture page (its heading in English): the camera is started, a photo taken and
 * shown, and the page's form sent (Enter, as the page's one button would).
 */
export async function takeFacePhoto(page: Page, timeout = 15_000): Promise<void> {
  await page.getByRole('heading', { name: 'A photo of your face' }).waitFor({ timeout });
  await page.getByRole('button', { name: 'Use the camera' }).click();
  await page.locator('#face-video').waitFor({ state: 'visible' });
  // A function, not a string: the page's CSP forbids eval, which a string predicate would need.
  await page.waitForFunction(() => (globalThis as any).document.getElementById('face-video').videoWidth > 0);
  await page.getByRole('button', { name: 'Take the photo' }).click();
  await page.getByRole('img', { name: 'Your photo' }).waitFor();
  await page.keyboard.press('Enter');
}
