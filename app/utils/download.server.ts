// Downloads, sent as the client takes them. A text produced as it is read
// (the access log's CSV): each pull of the body reads the next chunk, and
// waits first for the HTTP response to drain (remix-serve writes each chunk
// without waiting for the socket), so a slow client slows the reads behind
// it instead of filling memory; compressed here, in the stream, when the
// client accepts gzip, and the server's own compression (which ignores
// backpressure) is told to leave it alone (no-transform). A file (a backup
// archive, already compressed) is streamed from disk as it is.
import { createReadStream } from "node:fs";
import { pipeline, Readable } from "node:stream";
import { createGzip } from "node:zlib";
import { createReadableStreamFromReadable } from "@remix-run/node";
import { currentRequestContext, responseDrained } from "./request-context.server";

/**
 * What a service answers for a download (services build no Response): its
 * name and type, and either its text, produced as it is read, or a file.
 */
export type Download = { filename: string; contentType: string } & (
  | { chunks: AsyncGenerator<string, void, undefined> }
  | { file: string; sizeBytes: number }
);

/** Whether an Accept-Encoding header accepts gzip (q > 0, named or as `*`). */
export function acceptsGzip(acceptEncoding: string | null) {
  if (!acceptEncoding) return false;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(",")) {
    const [name, ...parameters] = part.trim().split(";");
    const q = parameters.map((p) => p.trim()).find((p) => p.startsWith("q="));
    weights.set(name!.trim(), q ? Number(q.slice(2)) || 0 : 1);
  }
  return (weights.get("gzip") ?? weights.get("*") ?? 0) > 0;
}

/**
 * The download as an attachment, never cached; a text is gzip-compressed
 * when `acceptEncoding` accepts it.
 */
export function downloadResponse(download: Download, { acceptEncoding = null }: { acceptEncoding?: string | null } = {}) {
  const disposition = `attachment; filename="${download.filename}"`;
  if ("file" in download) {
    return new Response(createReadableStreamFromReadable(createReadStream(download.file)), {
      headers: {
        "Content-Type": download.contentType,
        "Content-Length": String(download.sizeBytes),
        "Content-Disposition": disposition,
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
      },
    });
  }
  const { chunks } = download;
  const encoder = new TextEncoder();
  const response = currentRequestContext()?.response;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      await responseDrained(response);
      if (response?.destroyed) {
        // The client went away: read no further.
        await chunks.return(undefined);
        controller.close();
        return;
      }
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await chunks.return(undefined);
    },
    // No chunk made ahead of a read: a source that reads ahead itself (the
    // export's next batch, on its reader thread) stays one batch ahead.
  }, { highWaterMark: 0 });
  const gzip = acceptsGzip(acceptEncoding);
  const headers = new Headers({
    "Content-Type": download.contentType,
    "Content-Disposition": disposition,
    "Cache-Control": "no-store, no-transform",
    Vary: "Accept-Encoding",
  });
  if (gzip) headers.set("Content-Encoding", "gzip");
  return new Response(gzip ? gzipped(body) : body, { headers });
}

/**
 * The body gzip-compressed at level 1: a CSV of repeated names and dates
 * still shrinks about tenfold, at a fraction of the default level's CPU
 * (CompressionStream has no level: at its default, compressing cost more
 * than producing the rows; scripts/bench-admin.mjs --only=export).
 */
function gzipped(body: ReadableStream<Uint8Array>) {
  const source = Readable.fromWeb(body as import("node:stream/web").ReadableStream<Uint8Array>);
  const gzip = createGzip({ level: 1 });
  pipeline(source, gzip, () => {});
  return createReadableStreamFromReadable(gzip);
}
