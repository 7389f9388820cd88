/**
 * Makes the synthetic recapture fixtures (test/fixtures/faces/README.md): a face crop shown on a
 * phone screen, and as a printed photo, each rendered in Chromium and screenshot at 640 × 480.
 * Run by hand (`npx tsx test/support/make-recaptures.ts`); the outputs are committed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM } from '../e2e/browser.js';

const FACES = resolve(import.meta.dirname, '../fixtures/faces');

export const scenes = {
  genuine: (src: string) =>
    `<body style="margin:0;background:#777;display:flex;align-items:center;justify-content:center;height:480px"><img src="${src}" style="width:330px;height:330px"></body>`,
  phone: (src: string) => `<body style="margin:0;background:linear-gradient(#c9b9a0,#8a7a60);height:480px;display:flex;align-items:center;justify-content:center">
<div style="background:#111;border-radius:28px;padding:26px 14px;transform:perspective(700px) rotateY(12deg) rotateX(4deg);box-shadow:8px 12px 30px rgba(0,0,0,.6)">
<div style="position:relative;width:300px;height:400px;overflow:hidden;background:#000"><img src="${src}" style="width:300px;height:300px;margin-top:50px;filter:saturate(1.3) contrast(1.15) brightness(1.1)">
<div style="position:absolute;inset:0;background:repeating-linear-gradient(0deg,rgba(255,255,255,.10) 0 1px,transparent 1px 3px),repeating-linear-gradient(90deg,rgba(0,0,0,.12) 0 1px,transparent 1px 3px)"></div>
<div style="position:absolute;inset:0;background:linear-gradient(120deg,transparent 30%,rgba(255,255,255,.35) 45%,transparent 60%)"></div></div></div></body>`,
  print: (src: string) => `<body style="margin:0;background:#5a4a3a;height:480px;display:flex;align-items:center;justify-content:center">
<div style="background:#f4f1ea;padding:18px 18px 40px;transform:perspective(700px) rotateZ(-4deg) rotateY(-10deg);box-shadow:6px 8px 18px rgba(0,0,0,.5)">
<div style="position:relative"><img src="${src}" style="width:300px;height:300px;display:block;filter:sepia(.25) contrast(.85) brightness(1.05) blur(.6px)">
<div style="position:absolute;inset:0;background:radial-gradient(circle at 25% 20%,rgba(255,255,255,.45),transparent 40%)"></div></div></div></body>`,
};

export async function render(face: string, scene: keyof typeof scenes): Promise<Buffer> {
  const src = `data:image/jpeg;base64,${readFileSync(resolve(FACES, face)).toString('base64')}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: 640, height: 480 } });
    await page.setContent(scenes[scene](src));
    await page.waitForTimeout(100);
    return await page.screenshot({ type: 'jpeg', quality: 90 });
  } finally {
    await browser.close();
  }
}

if (process.argv[1] === import.meta.filename) {
  for (const [person, face] of [['a', 'person-a-crop-qtlogo.jpg'], ['b', 'person-b-crop-bar55-2.jpg']] as const) {
    for (const scene of ['phone', 'print'] as const) writeFileSync(resolve(FACES, `recapture-${scene}-person-${person}.jpg`), await render(face, scene));
  }
}
