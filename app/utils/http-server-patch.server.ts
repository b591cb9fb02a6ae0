// A global patch of http.Server, installed once at boot, because remix-serve
// gives the app neither the socket nor a per-request context:
// - it copies the socket's address into PEER_IP_HEADER on every incoming
//   request (overwriting whatever a client sent), for getClientIp();
// - it runs each request inside an AsyncLocalStorage context, so what an
//   action decides to show (its toast) reaches the root loader of the same
//   response when the browser posted without JavaScript (see toast.server.ts).
import { AsyncLocalStorage } from "node:async_hooks";
import type { IncomingMessage, Server } from "node:http";
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
};

const storage = new AsyncLocalStorage<RequestContext>();

/** The context of the request being handled; undefined outside the HTTP server (tests, scripts). */
export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
}

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
    const req = args[0] as IncomingMessage;
    req.headers[PEER_IP_HEADER] = req.socket.remoteAddress ?? "unknown";
    const proto = req.headers["x-forwarded-proto"];
    const context: RequestContext = {
      rendersDocument: rendersDocument(req.url),
      toasts: [],
      forwardedProto: (Array.isArray(proto) ? proto[0] : proto)?.split(",")[0]?.trim().toLowerCase() ?? null,
    };
    return storage.run(context, () => emit.call(this, event, ...args));
  } as typeof proto.emit;
}
