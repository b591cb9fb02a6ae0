import type { AppLoadContext, EntryContext } from "@remix-run/node";
import { createReadableStreamFromReadable } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToPipeableStream } from "react-dom/server";
import { bootOnce } from "~/utils/boot.server";
import { withoutNulBytes } from "~/utils/html-stream.server";
import { cachedPage, cacheablePage, rememberPage } from "~/utils/render-cache.server";

// Top-level await: remix-serve imports this build before it listens, so no
// request is served before the database is migrated.
await bootOnce();

export const streamTimeout = 5_000;

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

  const page = cacheablePage(request, responseStatusCode, remixContext);
  if (page) {
    const html = cachedPage(page);
    responseHeaders.set("Server-Timing", `render;desc="${html === null ? "cache miss" : "cache hit"}"`);
    if (html !== null) return new Response(html, { headers: responseHeaders, status: responseStatusCode });
  }

  const waitForAll = isbot(request.headers.get("user-agent") ?? "");
  return new Promise((resolve, reject) => {
    let shellRendered = false;
    let failed = false;
    const { pipe, abort } = renderToPipeableStream(<RemixServer context={remixContext} url={request.url} />, {
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
