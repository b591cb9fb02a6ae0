// Whether a request that changes something comes from another site: its
// Origin names another host (or is "null", or cannot be read), or, without
// an Origin, the browser says Sec-Fetch-Site: cross-site. A browser always
// sends one of them on a cross-site POST. Used by requireSameOrigin
// (auth.server.ts) and, for every page, where the request arrives
// (http-server-patch.server.ts), before Remix's own check would answer 500.

export const CROSS_ORIGIN = "Solicitud rechazada: origen no permitido.";

export function isCrossSite(origin: string | null | undefined, secFetchSite: string | null | undefined, ownHosts: readonly string[]) {
  if (origin && origin !== "null") {
    let host: string | null;
    try {
      host = new URL(origin).host;
    } catch {
      host = null;
    }
    return !host || !ownHosts.includes(host);
  }
  return origin === "null" || secFetchSite === "cross-site";
}
