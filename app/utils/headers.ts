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

/** Screens and answers no cache may keep: the admin, the resident portal (pages and their data), a profile, a sign-in token. */
const PRIVATE_PATHS = [/^\/admin(?:[/.]|$)/, /^\/portal(?:[/.]|$)/, /^\/api\/user-portal\/profile$/, /^\/api\/auth\/login$/];

export function isPrivatePath(pathname: string) {
  return PRIVATE_PATHS.some((pattern) => pattern.test(pathname));
}

/** Marks a private answer `Cache-Control: no-store` unless it already says so. */
export function markPrivate(headers: Headers, pathname: string) {
  if (isPrivatePath(pathname) && !/\bno-store\b/i.test(headers.get("Cache-Control") ?? "")) headers.set("Cache-Control", "no-store");
}

/**
 * A resource route's loader or action whose every answer, refusals
 * included, is private (markPrivate): resource routes pass through no entry
 * point of Remix's where the pages get it.
 */
export function privateAnswers<Args extends { request: Request }>(handler: (args: Args) => Promise<Response>) {
  return async (args: Args): Promise<Response> => {
    const { pathname } = new URL(args.request.url);
    try {
      const response = await handler(args);
      markPrivate(response.headers, pathname);
      return response;
    } catch (thrown) {
      if (thrown instanceof Response) markPrivate(thrown.headers, pathname);
      throw thrown;
    }
  };
}
