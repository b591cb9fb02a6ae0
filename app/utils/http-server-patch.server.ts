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
//   requests to a code path that crashes (500) on a loader returning null.
import { AsyncLocalStorage } from "node:async_hooks";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import http from "node:http";
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
  /** Who is asking, for the audit trail: the client's address and the signed-in user, noted by the guards (auth.server.ts). */
  requester?: { ip: string; user?: { id: string; username: string; role: string } };
};

const storage = new AsyncLocalStorage<RequestContext>();

/** The context of the request being handled; undefined outside the HTTP server (tests, scripts). */
export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
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

export function patchHttpServer() {
  const marker = Symbol.for("coliving.httpServerPatch");
  const proto = http.Server.prototype as Server & { [key: symbol]: boolean };
  if (proto[marker]) return;
  proto[marker] = true;
  const emit = proto.emit as (this: Server, event: string, ...args: unknown[]) => boolean;
  proto.emit = function (this: Server, event: string, ...args: unknown[]) {
    if (event !== "request") return emit.call(this, event, ...args);
    const req = args[0] as IncomingMessage & { originalUrl?: string };
    req.headers[PEER_IP_HEADER] = req.socket.remoteAddress ?? "unknown";
    const url = req.url ?? "/";
    if (/[?&]_data(=|&|$)/.test(url)) {
      const res = args[1] as ServerResponse;
      res.writeHead(400, { "Content-Type": "text/plain; charset=utf-8" }).end("Solicitud no válida");
      return true;
    }
    if (url.includes("?") && QUIET_QUERY_PATHS.some((path) => url.startsWith(path))) {
      // remix-serve's logger (morgan) prints req.originalUrl when the response
      // finishes; this listener runs before it, after Remix has read the URL.
      (args[1] as ServerResponse).once("finish", () => {
        req.originalUrl = url.split("?")[0];
      });
    }
    const proto = req.headers["x-forwarded-proto"];
    const context: RequestContext = {
      rendersDocument: rendersDocument(req.url),
      toasts: [],
      forwardedProto: (Array.isArray(proto) ? proto[0] : proto)?.split(",")[0]?.trim().toLowerCase() ?? null,
      response: args[1] as ServerResponse,
    };
    return withRequestContext(context, () => emit.call(this, event, ...args));
  } as typeof proto.emit;
}
