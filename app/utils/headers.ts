import type { HeadersFunction } from "@remix-run/node";

/**
 * A route's `headers` for pages whose action may answer something no cache
 * may keep (a secret shown once): Remix passes only cookies on by itself.
 */
export const keepActionCacheControl: HeadersFunction = ({ actionHeaders, loaderHeaders }) => {
  const headers = new Headers();
  const cacheControl = actionHeaders.get("Cache-Control") ?? loaderHeaders.get("Cache-Control");
  if (cacheControl) headers.set("Cache-Control", cacheControl);
  return headers;
};
