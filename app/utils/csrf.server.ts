import { data } from "@remix-run/node";
import { getEnv } from "./env.server";

/**
 * Cookie-authenticated mutations must come from our own pages: a browser
 * always sends Origin (or Sec-Fetch-Site) on a cross-site POST.
 */
export function assertSameOrigin(request: Request) {
  if (request.method === "GET" || request.method === "HEAD") return;
  const origin = request.headers.get("origin");
  const ownHosts = new Set([new URL(request.url).host, new URL(getEnv().PUBLIC_URL).host]);
  if (origin && origin !== "null") {
    let host: string | null = null;
    try {
      host = new URL(origin).host;
    } catch {
      host = null;
    }
    if (host && ownHosts.has(host)) return;
    throw data("Solicitud rechazada: origen no permitido.", { status: 403 });
  }
  if (origin === "null" || request.headers.get("sec-fetch-site") === "cross-site") {
    throw data("Solicitud rechazada: origen no permitido.", { status: 403 });
  }
}
