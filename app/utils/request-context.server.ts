// Each HTTP request runs inside a context of its own (AsyncLocalStorage),
// opened by the HTTP edge (http-edge.server.ts) before Remix sees the request:
// what an action decides to show (its toast) reaches the root loader of the
// same response, the guards note who is asking for the audit trail, and the
// reads several loaders of one GET make are made once (memoInRequest).
import { AsyncLocalStorage } from "node:async_hooks";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Toast } from "./toast";

/** The socket's address, copied onto every request by the edge (any value a client sent is overwritten). */
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
  /** The HTTP request as Node received it (its socket's body stream), for dropUnreadBody. */
  incoming?: IncomingMessage;
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

/** Runs `work` as part of a request (the edge does this for every request the server gets). */
export function withRequestContext<T>(context: RequestContext, work: () => T): T {
  return storage.run(context, work);
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

/**
 * Resolves once the response can take more bytes: at once unless its socket
 * buffer is full, else on 'drain' (or when the client has gone). remix-serve
 * writes each chunk of a streamed body without waiting for the socket, so a
 * long download waits here.
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
