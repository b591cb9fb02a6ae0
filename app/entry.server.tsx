import type { AppLoadContext, EntryContext, HandleDataRequestFunction } from "@remix-run/node";
import { createReadableStreamFromReadable } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToPipeableStream } from "react-dom/server";
import { bootOnce } from "~/boot.server";
import { randomNonce } from "~/utils/crypto.server";
import { useRouteTable } from "~/utils/http-metrics.server";
import { markPrivate } from "~/utils/headers";
import { withoutNulBytes } from "~/utils/html-stream.server";
import { NonceContext } from "~/utils/nonce";
import { cachedPage, cacheablePage, rememberPage } from "~/utils/render-cache.server";

// Top-level await: remix-serve imports this build before it listens, so no
// request is served before the database is migrated.
await bootOnce();

// The routes of this build, for the HTTP metrics' route templates. The build
// is the module that imports this one: it is read once it has loaded (an
// await here would wait for itself).
void import("virtual:remix/server-build").then((build) => useRouteTable(build.routes, build.assetsBuildDirectory));

export const streamTimeout = 5_000;

/**
 * The pages' Content-Security-Policy: scripts only from our origin, and the
 * inline ones Remix writes (its context, route modules, scroll restoration,
 * streamed data) only with this response's nonce; styles only from our
 * origin, but style attributes (React's `style={…}`); nothing framed, no
 * plugins, no <base>, forms posted only to us. A cached page (ADR 0008) gets
 * a new nonce in each response: the nonce is a hole of the render cache.
 * `npm run dev` sends none (Vite's dev client brings its own scripts).
 */
function contentSecurityPolicy(nonce: string) {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self'",
    "style-src-attr 'unsafe-inline'",
    "img-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** A page's data (`*.data`, single fetch): private screens' data is never stored by a cache. */
export const handleDataRequest: HandleDataRequestFunction = (response, { request }) => {
  markPrivate(response.headers, new URL(request.url).pathname);
  return response;
};

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  _loadContext: AppLoadContext,
) {
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  responseHeaders.set("X-Content-Type-Options", "nosniff");
  responseHeaders.set("Referrer-Policy", "same-origin");
  responseHeaders.set("X-Frame-Options", "DENY");
  markPrivate(responseHeaders, new URL(request.url).pathname);
  const nonce = randomNonce();
  if (process.env.NODE_ENV === "production") responseHeaders.set("Content-Security-Policy", contentSecurityPolicy(nonce));

  const page = cacheablePage(request, responseStatusCode, remixContext, [nonce]);
  if (page) {
    const html = cachedPage(page);
    responseHeaders.set("Server-Timing", `render;desc="${html === null ? "cache miss" : "cache hit"}"`);
    if (html !== null) return new Response(html, { headers: responseHeaders, status: responseStatusCode });
  }

  const waitForAll = isbot(request.headers.get("user-agent") ?? "");
  return new Promise((resolve, reject) => {
    let shellRendered = false;
    let failed = false;
    const app = (
      <NonceContext.Provider value={nonce}>
        <RemixServer context={remixContext} url={request.url} nonce={nonce} />
      </NonceContext.Provider>
    );
    const { pipe, abort } = renderToPipeableStream(app, {
      nonce, // React's own inline scripts, for Suspense boundaries that stream in
      [waitForAll ? "onAllReady" : "onShellReady"]() {
        shellRendered = true;
        const body = withoutNulBytes();
        if (page) {
          const chunks: Buffer[] = [];
          body.on("data", (chunk: Buffer) => chunks.push(chunk));
          body.on("end", () => {
            if (!failed) rememberPage(page, Buffer.concat(chunks).toString("utf8"));
          });
        }
        resolve(
          new Response(createReadableStreamFromReadable(body), {
            headers: responseHeaders,
            status: responseStatusCode,
          }),
        );
        pipe(body);
      },
      onShellError(error: unknown) {
        reject(error);
      },
      onError(error: unknown) {
        failed = true;
        responseStatusCode = 500;
        if (shellRendered) console.error(error);
      },
    });
    setTimeout(() => {
      failed = true;
      abort();
    }, streamTimeout + 1000);
  });
}
