// A raw HTTP POST for tests of what the server refuses before reading a body:
// it sends `prefix` and then `fill` bytes of "a" (chunked unless
// `contentLength` is given), and stops sending as soon as the answer comes,
// as a client does when the server answers early and closes.
import { once } from "node:events";
import http from "node:http";

export type RawAnswer = { status: number; headers: http.IncomingHttpHeaders; body: string };

export function postSlowly(
  url: string,
  { headers = {}, prefix = "", fill = 0, contentLength }: { headers?: Record<string, string>; prefix?: string; fill?: number; contentLength?: number },
) {
  return new Promise<RawAnswer>((resolve, reject) => {
    let answered = false;
    const request = http.request(
      url,
      { method: "POST", headers: { ...(contentLength === undefined ? {} : { "Content-Length": String(contentLength) }), ...headers } },
      (response) => {
        answered = true;
        const parts: Buffer[] = [];
        response.on("data", (part: Buffer) => parts.push(part));
        response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(parts).toString("utf8") }));
        response.on("error", reject);
      },
    );
    request.on("error", (error) => {
      if (!answered) reject(error);
    });
    const answer = once(request, "response");
    void (async () => {
      request.write(prefix);
      const chunk = Buffer.alloc(16 * 1024, "a");
      for (let sent = 0; sent < fill && !answered && !request.destroyed; sent += chunk.length) {
        if (!request.write(chunk.subarray(0, Math.min(chunk.length, fill - sent)))) await Promise.race([once(request, "drain"), answer]);
      }
      if (!answered && !request.destroyed) request.end();
    })().catch(() => {});
  });
}
