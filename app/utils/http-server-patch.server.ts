// A global patch of http.Server, installed once at boot, because remix-serve
// gives the app neither the socket nor a per-request context:
// - it copies the socket's address into PEER_IP_HEADER on every incoming
//   request (overwriting whatever a client sent), for getClientIp();
// - it runs each request inside an AsyncLocalStorage context, so what an
//   action decides to show (its toast) reaches the root loader of the same
//   response when the browser posted without JavaScript (see toast.server.ts),
//   and a long download can wait for the client (responseDrained), since
//   remix-serve writes each chunk of a streamed body without waiting for the
//   socket to drain.
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
  /** The HTTP response being written (absent when code runs outside the server). */
  response?: ServerResponse;
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
    const context: RequestContext = { rendersDocument: rendersDocument(req.url), toasts: [], response: args[1] as ServerResponse };
    return withRequestContext(context, () => emit.call(this, event, ...args));
  } as typeof proto.emit;
}
