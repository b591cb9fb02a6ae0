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
//
// The key is the loaders' data written out by dataKey, which tells apart
// every value a loader can return (Map, Set, Date, undefined against absent);
// a page with deferred data, or data it cannot write, is never cached.
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

const MARKER = new RegExp(`${MARKER_PREFIX}(\\d+)-`, "g");

// key → the page as first rendered while it waits for a second render to
// agree, then as stored: its bytes between the holes (a hit joins them with
// this request's values, no string to search and encode again). Map order is
// recency: a hit moves its page to the end.
type StoredPage =
  | { agreed: false; html: string; holeValues: string[] }
  | { agreed: true; segments: Buffer[]; holeIndexes: number[]; length: number };
const pages = new Map<string, StoredPage>();

function readPath(data: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((value, step) => (value && typeof value === "object" ? (value as Record<string, unknown>)[step] : undefined), data);
}

/**
 * The loader data as a key that tells apart every value a loader can return:
 * Maps, Sets and Dates by their contents, `undefined` from an absent field,
 * -0 from 0, a sparse array's hole from `undefined`. Strings are written as
 * their JSON, so a hole value (inert, INERT_VALUE) reads `"value"`. Anything
 * else (a class instance, a function, a promise: deferred data) has no key,
 * and the page is rendered. Each hole value becomes a marker.
 */
export function dataKey(loaderData: unknown, holeValues: readonly string[] = []): string | null {
  const parts: string[] = [];
  if (!writeKey(loaderData, parts)) return null;
  let key = parts.join("");
  for (const value of holeValues) key = key.replaceAll(`"${value}"`, '"\u0000hole"');
  return key;
}

function writeKey(value: unknown, parts: string[]): boolean {
  switch (typeof value) {
    case "string":
      parts.push(JSON.stringify(value));
      return true;
    case "number":
      parts.push(Object.is(value, -0) ? "-0" : String(value));
      return true;
    case "boolean":
      parts.push(value ? "T" : "F");
      return true;
    case "undefined":
      parts.push("U");
      return true;
    case "bigint":
      parts.push(`${value}n`);
      return true;
    case "object":
      break;
    default:
      return false; // a function or a symbol
  }
  if (value === null) {
    parts.push("N");
    return true;
  }
  if (Array.isArray(value)) {
    parts.push("[");
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) parts.push("_");
      else if (!writeKey(value[i], parts)) return false;
      parts.push(",");
    }
    parts.push("]");
    return true;
  }
  if (value instanceof Date) {
    parts.push(`D${value.getTime()}`);
    return true;
  }
  if (value instanceof Map || value instanceof Set) {
    parts.push(value instanceof Map ? "M[" : "S[");
    for (const entry of value instanceof Map ? value : [...value].map((item) => [item])) {
      for (const item of entry as unknown[]) {
        if (!writeKey(item, parts)) return false;
        parts.push(",");
      }
    }
    parts.push("]");
    return true;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  parts.push("{");
  for (const [name, field] of Object.entries(value)) {
    parts.push(JSON.stringify(name), ":");
    if (!writeKey(field, parts)) return false;
    parts.push(",");
  }
  parts.push("}");
  return true;
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
  const data = dataKey(loaderData, holes.map((hole) => hole.value));
  if (data === null) return null;
  const key = createHash("sha256").update(request.url).update("\u0000").update(data).digest("base64url");
  return { key, holes };
}

/** The stored page's bytes with this request's holes filled, or null. */
export function cachedPage(page: CacheablePage): Buffer<ArrayBuffer> | null {
  const stored = pages.get(page.key);
  if (!stored?.agreed) return null;
  pages.delete(page.key);
  pages.set(page.key, stored);
  const values = page.holes.map((hole) => Buffer.from(hole.value, "utf8"));
  const parts: Buffer[] = [];
  let length = stored.length;
  stored.segments.forEach((segment, index) => {
    parts.push(segment);
    const value = index < stored.holeIndexes.length ? values[stored.holeIndexes[index]!]! : null;
    if (value) {
      parts.push(value);
      length += value.length;
    }
  });
  // Buffer.concat allocates a plain ArrayBuffer (never a shared one), as a Response body must be.
  return Buffer.concat(parts, length) as Buffer<ArrayBuffer>;
}

/** The agreed page cut at its holes: the bytes between them, and which hole follows each. */
function storedPage(template: string): StoredPage {
  const pieces = template.split(MARKER);
  const segments = pieces.filter((_, index) => index % 2 === 0).map((text) => Buffer.from(text, "utf8"));
  const holeIndexes = pieces.filter((_, index) => index % 2 === 1).map(Number);
  return { agreed: true, segments, holeIndexes, length: segments.reduce((sum, segment) => sum + segment.length, 0) };
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
  pages.set(page.key, agreed ? storedPage(template) : { agreed: false, html: template, holeValues });
  if (pages.size > MAX_CACHED_PAGES) pages.delete(pages.keys().next().value!);
}

/** For tests: forget every page. */
export function clearRenderCache() {
  pages.clear();
}
