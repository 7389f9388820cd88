// The worker thread's entry: worker threads do not inherit the runtime's TypeScript loader, so
// this plain module loads the worker's TypeScript through tsx's API.
import { tsImport } from 'tsx/esm/api';

await tsImport('./face-engine-worker.ts', import.meta.url);
