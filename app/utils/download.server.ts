// A file download streamed as the client takes it (the access log's CSV):
// each pull of the body reads the next chunk of text, and waits first for the
// HTTP response to drain (remix-serve writes each chunk without waiting for
// the socket), so a slow client slows the reads behind it instead of filling
// memory. Compressed here, in the stream, when the client accepts gzip: the
// server's own compression (which ignores backpressure) is told to leave it
// alone (no-transform).
import { currentRequestContext, responseDrained } from "./http-server-patch.server";

/** What a service answers for a download: its name, its type and its text, produced as it is read. */
export type Download = { filename: string; contentType: string; chunks: AsyncGenerator<string, void, undefined> };

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

/** The download as an attachment, never cached, gzip-compressed when `acceptEncoding` accepts it. */
export function downloadResponse({ filename, contentType, chunks }: Download, { acceptEncoding = null }: { acceptEncoding?: string | null } = {}) {
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
  });
  const gzip = acceptsGzip(acceptEncoding);
  const headers = new Headers({
    "Content-Type": contentType,
    "Content-Disposition": `attachment; filename="${filename}"`,
    "Cache-Control": "no-store, no-transform",
    Vary: "Accept-Encoding",
  });
  if (gzip) headers.set("Content-Encoding", "gzip");
  // (DOM's types give CompressionStream a BufferSource input; it takes the Uint8Arrays above.)
  const compressed = () => body.pipeThrough(new CompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>);
  return new Response(gzip ? compressed() : body, { headers });
}
