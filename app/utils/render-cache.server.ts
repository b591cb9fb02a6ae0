// The rendered HTML of public pages, kept in memory (ADR 0008). Loaders still
// run on every request (session, theme, toasts, flash cookies); only React's
// rendering is skipped when the loaders return exactly what they returned for
// an earlier render of the same URL. A page opts in with
// `export const handle = cachedPageHandle()` (app/utils/page-handle.ts).
//
// Per-request values (the anti-spam challenge) are "holes": paths into the
// page's loader data that are left out of the key and cut out of the stored
// HTML, then filled with each request's values; the scripts' nonce
// (entry.server.tsx) is a hole of the response's own. A page is stored only once
// two renders with the same key, and different hole values, agree after
// their holes are cut out. Output that depends on anything but the key (a
// clock read while rendering) never agrees with itself; a hole value that
// happens to equal other text on the page cuts that text out too, so that
// render disagrees with the next one, whose value is another.
import { createHash, randomBytes } from "node:crypto";
import type { EntryContext } from "@remix-run/node";
import type { RenderCacheHandle } from "./page-handle";

export type CacheablePage = { key: string; holes: { marker: string; value: string }[] };

export const MAX_CACHED_PAGES = 200;
const MAX_PAGE_CHARS = 512 * 1024;
// A hole value must read the same in HTML text, an attribute and the JSON of
// the hydration data, so nothing any of them escapes; and be long enough not
// to stand for ordinary words.
const INERT_VALUE = /^[^&<>"'`\\\u0000-\u001f\u2028\u2029]{8,}$/u;
const MARKER_PREFIX = `hole-${randomBytes(6).toString("hex")}-`;

// key → the page as stored, or as first rendered while it waits for a second
// render to agree. Map order is recency: a hit moves its page to the end.
const pages = new Map<string, { html: string; agreed: boolean; holeValues: string[] }>();

function readPath(data: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((value, step) => (value && typeof value === "object" ? (value as Record<string, unknown>)[step] : undefined), data);
}

/** JSON of the loader data that refuses what JSON would silently drop or blur (promises, functions, undefined). */
function keyJson(loaderData: unknown, holeValues: Set<string>) {
  return JSON.stringify(loaderData, (_key, value: unknown) => {
    if (value === undefined) return "\u0000undefined";
    if (typeof value === "function" || (value instanceof Object && "then" in value)) throw new Error("not plain data");
    if (typeof value === "string" && holeValues.has(value)) return "\u0000hole";
    return value;
  });
}

/**
 * Whether this render may come from (or go into) the cache, and under which
 * key. `responseHoles` are strings of this response alone that are not in
 * the loader data (the Content-Security-Policy nonce of its scripts): holes
 * too, filled with this response's values.
 */
export function cacheablePage(request: Request, statusCode: number, context: EntryContext, responseHoles: readonly string[] = []): CacheablePage | null {
  if (process.env.NODE_ENV !== "production") return null; // a dev server's components change under it
  const { matches, loaderData, actionData, errors } = context.staticHandlerContext;
  if (request.method !== "GET" || statusCode !== 200 || actionData || errors) return null;
  const leafRouteId = matches.at(-1)?.route.id;
  const options = leafRouteId ? (context.routeModules[leafRouteId]?.handle as Partial<RenderCacheHandle> | undefined)?.renderCache : undefined;
  if (!leafRouteId || !options) return null;

  const holes: CacheablePage["holes"] = [];
  for (const [index, path] of (options.holes ?? []).entries()) {
    const value = readPath(loaderData[leafRouteId], path);
    if (typeof value !== "string" || !INERT_VALUE.test(value)) return null;
    holes.push({ marker: `${MARKER_PREFIX}${index}-`, value });
  }
  for (const value of responseHoles) {
    if (!INERT_VALUE.test(value)) return null;
    holes.push({ marker: `${MARKER_PREFIX}${holes.length}-`, value });
  }
  let json: string;
  try {
    json = keyJson(loaderData, new Set(holes.map((hole) => hole.value)));
  } catch {
    return null;
  }
  const key = createHash("sha256").update(request.url).update("\u0000").update(json).digest("base64url");
  return { key, holes };
}

/** The stored page with this request's holes filled, or null. */
export function cachedPage(page: CacheablePage): string | null {
  const stored = pages.get(page.key);
  if (!stored?.agreed) return null;
  pages.delete(page.key);
  pages.set(page.key, stored);
  return page.holes.reduce((html, hole) => html.replaceAll(hole.marker, () => hole.value), stored.html);
}

/** Offers a complete render of a cacheable page; it is stored once a second render agrees with it. */
export function rememberPage(page: CacheablePage, html: string) {
  if (html.length > MAX_PAGE_CHARS || html.includes(MARKER_PREFIX)) return;
  let template = html;
  for (const hole of page.holes) {
    if (!template.includes(hole.value)) return; // a component changed the value on its way out
    template = template.replaceAll(hole.value, hole.marker);
  }
  const earlier = pages.get(page.key);
  if (earlier?.agreed) return;
  const holeValues = page.holes.map((hole) => hole.value);
  const agreed = earlier !== undefined && earlier.html === template && holeValues.every((value, i) => value !== earlier.holeValues[i]);
  pages.delete(page.key);
  pages.set(page.key, { html: template, agreed, holeValues });
  if (pages.size > MAX_CACHED_PAGES) pages.delete(pages.keys().next().value!);
}

/** For tests: forget every page. */
export function clearRenderCache() {
  pages.clear();
}
