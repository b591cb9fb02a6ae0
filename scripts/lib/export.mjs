// Downloads a CSV export to the end, the way a browser does: it asks for
// gzip, decompresses what comes compressed, and counts the rows (lines)
// as they arrive without keeping the body.
import http from "node:http";
import zlib from "node:zlib";

/**
 * GET `url` with `headers` (plus Accept-Encoding: gzip unless gzip is false).
 * `signal` (AbortSignal) stops it early: the result then has complete: false
 * and the figures of what arrived so far.
 *
 * Returns { status, complete, rows (lines minus the header), bytes (decoded),
 * wireBytes (as sent), contentEncoding, seconds, rowsPerSecond, firstByteMs }.
 */
export function downloadCsv(url, { headers = {}, gzip = true, signal } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let lines = 0;
    let bytes = 0;
    let wireBytes = 0;
    let firstByteMs = null;
    let status = null;
    let contentEncoding = null;
    let settled = false;
    const finish = (complete) => {
      if (settled) return;
      settled = true;
      const seconds = (performance.now() - started) / 1000;
      const rows = Math.max(0, lines - 1);
      resolve({ status, complete, rows, bytes, wireBytes, contentEncoding, seconds, rowsPerSecond: rows / seconds, firstByteMs });
    };
    const request = http.get(url, { headers: { ...headers, "Accept-Encoding": gzip ? "gzip" : "identity" } }, (response) => {
      status = response.statusCode;
      contentEncoding = response.headers["content-encoding"] ?? "identity";
      firstByteMs = performance.now() - started;
      response.on("data", (chunk) => (wireBytes += chunk.length));
      const body = contentEncoding === "gzip" ? response.pipe(zlib.createGunzip()) : response;
      body.on("data", (chunk) => {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      });
      body.on("end", () => finish(status === 200));
      body.on("error", (error) => (signal?.aborted ? finish(false) : reject(error)));
      response.on("aborted", () => finish(false));
    });
    request.on("error", (error) => (signal?.aborted ? finish(false) : reject(error)));
    signal?.addEventListener("abort", () => {
      request.destroy();
      finish(false);
    });
  });
}
