// How much of a request body the app reads. A JSON or form body holds at most
// MAX_BODY_BYTES; a multipart upload (an incident's photos) at most
// MAX_UPLOAD_BODY_BYTES. A larger body is refused with 413 twice over: by its
// Content-Length where the request arrives (http-edge.server.ts),
// before the app sees it, and by what has streamed in so far here, where the
// body readers (readForm, readJsonBody, readPhotoForm) read it, so a chunked
// body is never held past the cap and an oversized value is never echoed.
import { MAX_INCIDENT_PHOTOS, MAX_PHOTO_BYTES } from "~/schemas/resident-incident";
import { refusalResponse } from "./refusal.server";
import { currentRequestContext } from "./request-context.server";

export const MAX_BODY_BYTES = 64 * 1024;
/** The photos plus the form's text. */
export const MAX_UPLOAD_BODY_BYTES = MAX_INCIDENT_PHOTOS * MAX_PHOTO_BYTES + 1024 * 1024;
export const BODY_TOO_LARGE = "La solicitud es demasiado grande";

export function isMultipartType(contentType: string | null | undefined) {
  return (contentType ?? "").trim().toLowerCase().startsWith("multipart/form-data");
}

/** The cap of a body of this Content-Type, wherever it is read. */
export function bodyLimitFor(contentType: string | null | undefined) {
  return isMultipartType(contentType) ? MAX_UPLOAD_BODY_BYTES : MAX_BODY_BYTES;
}

function declaredTooLarge(request: Request, max: number) {
  const declared = Number(request.headers.get("content-length") ?? "");
  return Number.isFinite(declared) && declared > max;
}

/** Signals, on a body stream, that the body went past its cap. */
export class BodyTooLargeError extends Error {
  constructor() {
    super(BODY_TOO_LARGE);
  }
}

/** How long the rest of an oversized body is read and dropped before the 413 goes out. */
const LINGER_MS = 2_000;

/**
 * Reads and drops what the client is still sending of this request's body
 * (at the socket: the app's own stream of it is not read further), until it
 * has all come or LINGER_MS has passed. A 413 answered while the client is
 * still sending would, once the connection closes, make the kernel reset it
 * on the bytes still coming, often before the client has read the answer.
 * Outside the HTTP server (tests calling routes) there is nothing to drop.
 */
export async function dropUnreadBody() {
  const incoming = currentRequestContext()?.incoming;
  if (!incoming || incoming.complete || incoming.destroyed) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(done, LINGER_MS);
    timer.unref();
    incoming.once("end", done);
    incoming.once("close", done);
    incoming.removeAllListeners("data");
    incoming.resume();
  });
}

/** Ends the request with 413 BODY_TOO_LARGE, closing the connection once the rest of the body has been dropped. */
async function throwBodyTooLarge(): Promise<never> {
  await dropUnreadBody();
  const response = refusalResponse({ status: 413, message: BODY_TOO_LARGE });
  response.headers.set("Connection", "close");
  throw response;
}

/**
 * The request's body, at most `max` bytes: more (declared or streamed) ends
 * the call with 413 BODY_TOO_LARGE; null when the body could not be read
 * (the client went away).
 */
export async function readBody(request: Request, max = MAX_BODY_BYTES): Promise<Uint8Array<ArrayBuffer> | null> {
  if (declaredTooLarge(request, max)) return throwBodyTooLarge();
  const stream = limitedBody(request, max);
  if (!stream) return new Uint8Array();
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      chunks.push(next.value);
      size += next.value.byteLength;
    }
  } catch (error) {
    if (error instanceof BodyTooLargeError) return throwBodyTooLarge();
    return null;
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/**
 * The request's body as a stream that errors with BodyTooLargeError once more
 * than `max` bytes have come (or are declared), for parsers that read as the
 * bytes arrive (multipart). Past the cap the request's own stream is left
 * unread rather than cancelled: cancelling it would drop the connection
 * before the 413 is sent.
 */
export function limitedBody(request: Request, max: number): ReadableStream<Uint8Array> | null {
  if (!request.body) return null;
  const reader = request.body.getReader();
  let size = declaredTooLarge(request, max) ? Infinity : 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (size > max) {
        reader.releaseLock();
        controller.error(new BodyTooLargeError());
        return;
      }
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      size += value.byteLength;
      if (size > max) {
        reader.releaseLock();
        controller.error(new BodyTooLargeError());
        return;
      }
      controller.enqueue(value);
    },
    cancel() {
      reader.releaseLock();
    },
  });
}
