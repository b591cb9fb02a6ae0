// A global patch of http.Server, installed once at boot, because remix-serve
// gives the app neither the socket nor a per-request context:
// - it copies the socket's address into PEER_IP_HEADER on every incoming
//   request (overwriting whatever a client sent), for getClientIp();
// - it runs each request inside an AsyncLocalStorage context, so what an
//   action decides to show (its toast) reaches the root loader of the same
//   response when the browser posted without JavaScript (see toast.server.ts);
// - it keeps query strings that carry a guest's email out of remix-serve's
//   request log (QUIET_QUERY_PATHS);
// - a long download can wait for the client (responseDrained), since
//   remix-serve writes each chunk of a streamed body without waiting for the
//   socket to drain;
// - it answers 400 to Remix's old data protocol (`?_data=`): this app uses
//   single fetch (`*.data` URLs), and Remix 2.17 still routes `?_data`
//   requests to a code path that crashes (500) on a loader returning null;
// - it refuses, before the app sees them, a page's cross-site mutation (403:
//   Remix's own check, throwIfPotentialCSRFAttack, would throw and answer
//   500 with a stack trace) and a body whose Content-Length is over its cap
//   (413, request-body.server.ts), each logged as one line;
// - a response sent before its request's body has all come in closes the
//   connection once the client has had time to read it (closeAfterAnswer);
// - private screens and answers (NO_STORE_PATHS) are sent with
//   `Cache-Control: no-store`;
// - it times every request for GET /metrics (http-metrics.server.ts).
import { AsyncLocalStorage } from "node:async_hooks";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import http from "node:http";
import { timeRequest } from "./http-metrics.server";
import { BODY_TOO_LARGE, bodyLimitFor } from "./request-body.server";
import { CROSS_ORIGIN, isCrossSite } from "./same-origin.server";
import type { Toast } from "./toast";

export const PEER_IP_HEADER = "x-coliving-peer-ip";

export type RequestContext = {
  /**
   * A document request renders its page in the same response (a plain form
   * post without JavaScript, or a page load); Remix's data requests
   * (`*.data`) do not: their loaders run in a later request.
   */
  rendersDocument: boolean;
  /** Toasts to show in this response's page. */
  toasts: Toast[];
  /** The first X-Forwarded-Proto value (trusted only with TRUST_PROXY; see client-ip.server.ts). */
  forwardedProto: string | null;
  /** The HTTP response being written (absent when code runs outside the server). */
  response?: ServerResponse;
  /**
   * A GET or HEAD: nothing this request runs changes data, so a read made by
   * several of its loaders (the signed-in user, read by the root loader, the
   * layout's guard and the page's) may be made once (`memoInRequest`).
   */
  readOnly?: boolean;
  memo?: Map<string, Promise<unknown>>;
  /** Who is asking, for the audit trail: the client's address and the signed-in user, noted by the guards (auth.server.ts). */
  requester?: { ip: string; user?: { id: string; username: string; role: string } };
};

const storage = new AsyncLocalStorage<RequestContext>();

/** The context of the request being handled; undefined outside the HTTP server (tests, scripts). */
export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
}

/**
 * `read()` once per read-only request (a GET or HEAD; see RequestContext) and
 * key; elsewhere (a form post, whose action may change what is read, or code
 * outside a request) every time.
 */
export function memoInRequest<T>(key: string, read: () => Promise<T>): Promise<T> {
  const context = storage.getStore();
  if (!context?.readOnly) return read();
  context.memo ??= new Map();
  let value = context.memo.get(key) as Promise<T> | undefined;
  if (!value) {
    value = read();
    context.memo.set(key, value);
  }
  return value;
}

/** Runs `work` as part of a request (the patch does this for every request the server gets). */
export function withRequestContext<T>(context: RequestContext, work: () => T): T {
  return storage.run(context, work);
}

/**
 * Resolves once the response can take more bytes: at once unless its socket
 * buffer is full, else on 'drain' (or when the client has gone).
 */
export function responseDrained(response: ServerResponse | undefined): Promise<void> {
  if (!response || !response.writableNeedDrain || response.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      response.off("drain", done);
      response.off("close", done);
      resolve();
    };
    response.on("drain", done);
    response.on("close", done);
  });
}

/** Paths whose query may hold personal data (a guest's email): logged without it. */
const QUIET_QUERY_PATHS = ["/api/anonymous-reservations/code/"];

function rendersDocument(url: string | undefined) {
  const path = (url ?? "/").split("?")[0]!;
  return !path.endsWith(".data") && !path.startsWith("/api/");
}

/** Screens and answers no cache may keep: the admin, the resident portal (pages and their data), a profile, a sign-in token. */
const NO_STORE_PATHS = [/^\/admin(?:[/.]|$)/, /^\/portal(?:[/.]|$)/, /^\/api\/user-portal\/profile$/, /^\/api\/auth\/login$/];

/** The methods Remix checks the Origin of on a page (document or data request). */
const MUTATIONS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The host a page's Origin must name, read as Remix reads it: X-Forwarded-Host first, else Host. */
function pageHosts(req: IncomingMessage) {
  const host = header(req, "x-forwarded-host")?.split(",")[0]?.trim() || header(req, "host");
  return host ? [host] : [];
}

type EdgeRefusal = { status: 403 | 413; title: string; message: string; reason: string };

/** What is refused before the app sees it: a page's cross-site mutation, a body declared over its cap. */
function edgeRefusal(req: IncomingMessage, path: string): EdgeRefusal | null {
  const method = req.method ?? "GET";
  if (MUTATIONS.has(method) && !path.startsWith("/api/")) {
    const origin = header(req, "origin");
    const fetchSite = header(req, "sec-fetch-site");
    if (isCrossSite(origin, fetchSite, pageHosts(req))) {
      const reason = `cross-site (Origin ${JSON.stringify(origin ?? null)}, Sec-Fetch-Site ${JSON.stringify(fetchSite ?? null)})`;
      return { status: 403, title: "Acceso denegado", message: CROSS_ORIGIN, reason };
    }
  }
  const declared = Number(header(req, "content-length") ?? "");
  const limit = bodyLimitFor(header(req, "content-type"));
  if (declared > limit) {
    return { status: 413, title: "Solicitud demasiado grande", message: BODY_TOO_LARGE, reason: `body of ${declared} bytes (cap ${limit})` };
  }
  return null;
}

/**
 * The refusal as the app words it: the API's JSON error for /api/* and
 * Remix's data requests, a small Spanish page for a browser's document.
 * The body is never handed to the app; the connection closes after it.
 */
function answerAtEdge(req: IncomingMessage, res: ServerResponse, path: string, refusal: EdgeRefusal) {
  console.warn(`[web] refused ${req.method} ${path.slice(0, 200)}: ${refusal.status} ${refusal.reason}`);
  const json = path.startsWith("/api/") || path.endsWith(".data");
  const body = json
    ? JSON.stringify({ success: false, error: { message: refusal.message } })
    : `<!DOCTYPE html><html lang="es"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
      `<title>${refusal.title}</title></head><body><main><h1>${refusal.title}</h1><p>${refusal.message}</p>` +
      `<p><a href="/">Volver al inicio</a></p></main></body></html>`;
  closeAfterAnswer(req, res);
  res.writeHead(refusal.status, {
    "Content-Type": json ? "application/json; charset=utf-8" : "text/html; charset=utf-8",
    "Content-Length": Buffer.byteLength(body),
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
  });
  res.end(body);
}

/** How long a connection closing after an early answer still reads (and drops) what the client sends. */
const LINGER_MS = 2_000;

/**
 * Marks the answer `Connection: close` and closes the connection without
 * resetting it: Node would close the socket as soon as the answer is out,
 * and the bytes the client is still sending would then make the kernel
 * reset the connection, often before the client has read the answer. Here
 * the rest of the body is read and dropped for up to LINGER_MS first (a
 * "lingering close", as nginx does).
 */
function closeAfterAnswer(req: IncomingMessage, res: ServerResponse) {
  res.setHeader("Connection", "close");
  const socket = req.socket as IncomingMessage["socket"] & { destroySoon?: () => void };
  socket.destroySoon = function (this: typeof socket) {
    if (this.writable) this.end();
    req.removeAllListeners("data");
    req.resume();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once("close", () => clearTimeout(timer));
  };
}

/** Headers every response of the request gets, set as its head is written. */
function stampResponseHead(req: IncomingMessage, res: ServerResponse, path: string) {
  const noStore = NO_STORE_PATHS.some((pattern) => pattern.test(path));
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: Parameters<typeof writeHead>) {
    if (noStore && !/\bno-store\b/i.test(String(this.getHeader("cache-control") ?? ""))) this.setHeader("Cache-Control", "no-store");
    // Answered before the body has all come (a refusal): the rest is not read.
    if (!req.complete) closeAfterAnswer(req, this);
    return writeHead.apply(this, args);
  } as typeof res.writeHead;
}

export function patchHttpServer() {
  const marker = Symbol.for("coliving.httpServerPatch");
  const proto = http.Server.prototype as Server & { [key: symbol]: boolean };
  if (proto[marker]) return;
  proto[marker] = true;
  const emit = proto.emit as (this: Server, event: string, ...args: unknown[]) => boolean;
  proto.emit = function (this: Server, event: string, ...args: unknown[]) {
    if (event !== "request") return emit.call(this, event, ...args);
    const req = args[0] as IncomingMessage & { originalUrl?: string };
    const res = args[1] as ServerResponse;
    req.headers[PEER_IP_HEADER] = req.socket.remoteAddress ?? "unknown";
    const url = req.url ?? "/";
    const path = url.split("?")[0]!;
    timeRequest(req, res, path);
    if (/[?&]_data(=|&|$)/.test(url)) {
      res.writeHead(400, { "Content-Type": "text/plain; charset=utf-8" }).end("Solicitud no válida");
      return true;
    }
    const refusal = edgeRefusal(req, path);
    if (refusal) {
      answerAtEdge(req, res, path, refusal);
      return true;
    }
    stampResponseHead(req, res, path);
    if (url.includes("?") && QUIET_QUERY_PATHS.some((path) => url.startsWith(path))) {
      // remix-serve's logger (morgan) prints req.originalUrl when the response
      // finishes; this listener runs before it, after Remix has read the URL.
      res.once("finish", () => {
        req.originalUrl = url.split("?")[0];
      });
    }
    const proto = req.headers["x-forwarded-proto"];
    const context: RequestContext = {
      rendersDocument: rendersDocument(req.url),
      toasts: [],
      forwardedProto: (Array.isArray(proto) ? proto[0] : proto)?.split(",")[0]?.trim().toLowerCase() ?? null,
      response: res,
      readOnly: req.method === "GET" || req.method === "HEAD",
    };
    return withRequestContext(context, () => emit.call(this, event, ...args));
  } as typeof proto.emit;
}
