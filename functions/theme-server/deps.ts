/**
 * The theme server's custom page storage, put together here and only here: handlers import what
 * they use from this module and hand it to the domain functions.
 */
import { customPageStore } from '../store/custom-pages.js';
import { pageFileStore } from '../adapters/page-files.js';
import type { CustomPageDeps } from './custom-pages.js';

export const customPages: CustomPageDeps = { pages: customPageStore, files: pageFileStore };
