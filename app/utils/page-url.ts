// Links and redirects that keep a page's query (filters, page, open modal).
// Browser-safe.

/** `pathname` with the current query changed: a null value removes the parameter. */
export function withSearchParams(pathname: string, search: string | URLSearchParams, changes: Record<string, string | null> = {}) {
  const params = new URLSearchParams(search);
  // Remix adds ?index to posts aimed at an index route; it is not part of the page's state.
  params.delete("index");
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) params.delete(name);
    else params.set(name, value);
  }
  const query = params.toString();
  return `${pathname}${query ? `?${query}` : ""}`;
}

/** The modal the query opens (`?modal=…`), when it is one of the screen's; null otherwise. */
export function modalOf<const M extends string>(params: URLSearchParams, modals: readonly M[]): M | null {
  const name = params.get("modal");
  return (modals as readonly string[]).includes(name ?? "") ? (name as M) : null;
}

/** The URL the request was made to, as a page link, with the query changed. */
export function pageUrl(request: Request, changes: Record<string, string | null> = {}) {
  const url = new URL(request.url);
  return withSearchParams(url.pathname, url.search, changes);
}

/**
 * A hidden field a fetcher's form sends (with JavaScript) to be answered in
 * place: data and a toast instead of a redirect, so a save that lands after
 * the admin moved on (a note saved on blur, then "Cerrar") never takes them
 * back. Without JavaScript the form is answered with a redirect as usual.
 */
export const STAY_ON_PAGE_FIELD = "stayOnPage";
