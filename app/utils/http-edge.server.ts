// The HTTP edge: what must happen to a request before Remix sees it, and only
// that. remix-serve offers no hook between Node's http.Server and Remix, so
// the edge wraps the server's 'request' event once at boot (installHttpEdge);
// each concern is a function of its own:
// - notePeerAddress: the socket's address, for getClientIp(); an
//   X-Forwarded-For that TRUST_PROXY does not trust is noted once
//   (untrusted-proxy.server.ts: a log line and the dashboard's warning);
// - requestContextFor: the request's context (request-context.server.ts);
// - refusals that must come first: Remix's old data protocol (`?_data=`, 400:
//   Remix 2.17 still routes it to a path that crashes on a loader returning
//   null), a page's cross-site mutation (403: Remix's own check,
//   throwIfPotentialCSRFAttack, would throw and answer 500) and a body whose
//   Content-Length is over its cap (413), each logged as one line;
// - timeRequest (http-metrics.server.ts): the request's arrival is only known here;
// - keepQueryOutOfLog: remix-serve's request log never prints a guest's email.
// Everything else (Cache-Control of private screens, security headers) is
// set by Remix's own entry points (entry.server.tsx) and the routes.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import http from "node:http";
import { timeRequest } from "./http-metrics.server";
import { BODY_TOO_LARGE, bodyLimitFor } from "./request-body.server";
import { PEER_IP_HEADER, withRequestContext, type RequestContext } from "./request-context.server";
import { CROSS_ORIGIN, isCrossSite } from "./same-origin.server";
import { noteForwardedFor } from "./untrusted-proxy.server";

/** Copies the socket's address onto the request, overwriting whatever a client sent. */
export function notePeerAddress(req: IncomingMessage) {
  req.headers[PEER_IP_HEADER] = req.socket.remoteAddress ?? "unknown";
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The context every request runs in. */
export function requestContextFor(req: IncomingMessage, res: ServerResponse): RequestContext {
  const path = (req.url ?? "/").split("?")[0]!;
  return {
    rendersDocument: !path.endsWith(".data") && !path.startsWith("/api/"),
    toasts: [],
    forwardedProto: header(req, "x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() ?? null,
    response: res,
    incoming: req,
    readOnly: req.method === "GET" || req.method === "HEAD",
  };
}

/** The methods Remix checks the Origin of on a page (document or data request). */
const MUTATIONS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The host a page's Origin must name, read as Remix reads it: X-Forwarded-Host first, else Host. */
function pageHosts(req: IncomingMessage) {
  const host = header(req, "x-forwarded-host")?.split(",")[0]?.trim() || header(req, "host");
  return host ? [host] : [];
}

export type EdgeRefusal = { status: 400 | 403 | 413; title: string; message: string; reason: string };

/** Remix's old data protocol, which this app (single fetch, `*.data` URLs) never speaks. */
export function legacyDataRefusal(url: string): EdgeRefusal | null {
  if (!/[?&]_data(=|&|$)/.test(url)) return null;
  return { status: 400, title: "Solicitud no válida", message: "Solicitud no válida", reason: "legacy ?_data request" };
}

/** A page's mutation that a browser marks as coming from another site. */
export function crossSiteRefusal(req: IncomingMessage, path: string): EdgeRefusal | null {
  if (!MUTATIONS.has(req.method ?? "GET") || path.startsWith("/api/")) return null;
  const origin = header(req, "origin");
  const fetchSite = header(req, "sec-fetch-site");
  if (!isCrossSite(origin, fetchSite, pageHosts(req))) return null;
  const reason = `cross-site (Origin ${JSON.stringify(origin ?? null)}, Sec-Fetch-Site ${JSON.stringify(fetchSite ?? null)})`;
  return { status: 403, title: "Acceso denegado", message: CROSS_ORIGIN, reason };
}

/** A body whose declared length is over the cap of its type (request-body.server.ts). */
export function declaredBodyRefusal(req: IncomingMessage): EdgeRefusal | null {
  const declared = Number(header(req, "content-length") ?? "");
  const limit = bodyLimitFor(header(req, "content-type"));
  if (!(declared > limit)) return null;
  return { status: 413, title: "Solicitud demasiado grande", message: BODY_TOO_LARGE, reason: `body of ${declared} bytes (cap ${limit})` };
}

/** How long a connection closing after an early answer still reads (and drops) what the client sends. */
export const LINGER_MS = 2_000;

/**
 * The refusal as the app words it: the API's JSON error for /api/* and
 * Remix's data requests, a small Spanish page for a browser's document. The
 * body is never handed to the app. The whole answer is written at once; the
 * response ends (and, being `Connection: close`, the connection with it)
 * once the client has sent the rest of its body or after LINGER_MS. Closing
 * at once would make the kernel reset the connection on the bytes still
 * coming, often before the client has read the answer (a "lingering close",
 * as nginx does).
 */
export function answerAtEdge(req: IncomingMessage, res: ServerResponse, path: string, refusal: EdgeRefusal) {
  console.warn(`[web] refused ${req.method} ${path.slice(0, 200)}: ${refusal.status} ${refusal.reason}`);
  const json = path.startsWith("/api/") || path.endsWith(".data");
  const body = json
    ? JSON.stringify({ success: false, error: { message: refusal.message } })
    : `<!DOCTYPE html><html lang="es"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
      `<title>${refusal.title}</title></head><body><main><h1>${refusal.title}</h1><p>${refusal.message}</p>` +
      `<p><a href="/">Volver al inicio</a></p></main></body></html>`;
  res.writeHead(refusal.status, {
    "Content-Type": json ? "application/json; charset=utf-8" : "text/html; charset=utf-8",
    "Content-Length": Buffer.byteLength(body),
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    Connection: "close",
  });
  res.write(body);
  const end = () => {
    clearTimeout(timer);
    res.end();
  };
  const timer = setTimeout(end, LINGER_MS);
  timer.unref();
  req.once("end", end);
  req.once("close", end);
  req.resume();
}

/** Paths whose query may hold personal data (a guest's email): logged without it. */
const QUIET_QUERY_PATHS = ["/api/anonymous-reservations/code/"];

/**
 * remix-serve's logger (morgan) prints `req.originalUrl` when the response
 * finishes; this listener runs before it, after Remix has read the URL.
 */
export function keepQueryOutOfLog(req: IncomingMessage & { originalUrl?: string }, res: ServerResponse) {
  const url = req.url ?? "/";
  if (!url.includes("?") || !QUIET_QUERY_PATHS.some((path) => url.startsWith(path))) return;
  res.once("finish", () => {
    req.originalUrl = url.split("?")[0];
  });
}

/** What the edge does with one request: false when it answered it itself. */
export function handleAtEdge(req: IncomingMessage, res: ServerResponse): boolean {
  notePeerAddress(req);
  noteForwardedFor(header(req, "x-forwarded-for"));
  const url = req.url ?? "/";
  const path = url.split("?")[0]!;
  timeRequest(req, res, path);
  const refusal = legacyDataRefusal(url) ?? crossSiteRefusal(req, path) ?? declaredBodyRefusal(req);
  if (refusal) {
    answerAtEdge(req, res, path, refusal);
    return false;
  }
  keepQueryOutOfLog(req, res);
  return true;
}

/** Wraps every http.Server's 'request' event with the edge (once per process). */
export function installHttpEdge() {
  const marker = Symbol.for("coliving.httpEdge");
  const proto = http.Server.prototype as Server & { [key: symbol]: boolean };
  if (proto[marker]) return;
  proto[marker] = true;
  const emit = proto.emit as (this: Server, event: string, ...args: unknown[]) => boolean;
  proto.emit = function (this: Server, event: string, ...args: unknown[]) {
    if (event !== "request") return emit.call(this, event, ...args);
    const req = args[0] as IncomingMessage;
    const res = args[1] as ServerResponse;
    if (!handleAtEdge(req, res)) return true;
    return withRequestContext(requestContextFor(req, res), () => emit.call(this, event, ...args));
  } as typeof proto.emit;
}
