/**
 * The theme server's storage, put together here and only here: handlers import the stores they
 * use from this module and hand them to the domain functions (themes.ts, custom-pages.ts).
 */
import { themeStore } from '../store/themes.js';
import { themeAssetStore } from '../adapters/theme-assets.js';
import { customPageStore } from '../store/custom-pages.js';
import { pageFileStore } from '../adapters/page-files.js';
import type { CustomPageDeps } from './custom-pages.js';
import type { ThemeAssetStore, ThemeStore } from './model.js';

export const themes: ThemeStore = themeStore;
/** Fonts and images, in S3 under `tenants/{tenantId}/themes/{themeId}/`. */
export const themeAssets: ThemeAssetStore = themeAssetStore;
/** Custom page versions and their files (the pages bucket). */
export const customPages: CustomPageDeps = { pages: customPageStore, files: pageFileStore };
