// Pages of a list of `total` rows. Browser-safe.

/**
 * The page to read and its offset. With `clamp` (the screens), a page past
 * the last one shows the last; the JSON API answers it empty instead.
 */
export function pageWindow(total: number, { page, limit, clamp = false }: { page: number; limit: number; clamp?: boolean }) {
  const pages = Math.max(1, Math.ceil(total / limit));
  const shown = clamp ? Math.min(pages, Math.max(1, Math.floor(page) || 1)) : page;
  return { page: shown, pages, limit, offset: (shown - 1) * limit };
}

/** The `page` query parameter of a screen (anything unreadable is page 1). */
export function requestedPage(params: URLSearchParams) {
  return Math.max(1, Math.floor(Number(params.get("page")) || 1));
}
