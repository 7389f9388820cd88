/**
 * The Face Liveness capture's browser script (Liveness Check REKOGNITION): the page's entry
 * (functions/journey/client/face-liveness.ts) with Amazon's FaceLivenessDetectorCore
 * (@aws-amplify/ui-react-liveness), React and the component's styles, bundled into one IIFE.
 * About 1.5 MB, so it is no string in a route's bundle (journey assets are): the stack builds it
 * beside the getFaceLivenessAsset function's bundle when it bundles that function, and the
 * browser test builds it for its page. Third-party licence comments are kept at its end.
 */
import { build } from 'esbuild';
import { join } from 'node:path';
import { FACE_LIVENESS_ASSET } from '../functions/faces/liveness-service.js';

export const FACE_LIVENESS_ENTRY = 'functions/journey/client/face-liveness.ts';

/** Builds the script into `outDir` (as FACE_LIVENESS_ASSET) and answers its path. */
export async function buildFaceLivenessAsset(root: string, outDir: string): Promise<string> {
  const outfile = join(outDir, FACE_LIVENESS_ASSET);
  await build({
    entryPoints: [join(root, FACE_LIVENESS_ENTRY)],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2020'],
    minify: true,
    // Apache-2.0 and MIT notices of what it bundles.
    legalComments: 'eof',
    // The component's style sheet, injected by the script (the pages allow inline styles, one asset to serve).
    loader: { '.css': 'text' },
    define: { 'process.env.NODE_ENV': '"production"' },
    outfile,
    logLevel: 'silent',
  });
  return outfile;
}
