// Route `handle`s shared by several pages.

export type RenderCacheOptions = {
  /** Dotted paths into the route's loader data of per-request strings, e.g. "captcha.captchaId". */
  holes?: readonly string[];
};
export type RenderCacheHandle = { renderCache: RenderCacheOptions };

/**
 * The handle of a public page whose rendered HTML may be reused while its
 * loaders return the same data (app/utils/render-cache.server.ts).
 */
export const cachedPageHandle = (holes: readonly string[] = []): RenderCacheHandle => ({ renderCache: { holes } });
