import { describe, expect, it } from "vitest";
import { readPhotoForm } from "./photo-upload.server";
import { BODY_TOO_LARGE, MAX_BODY_BYTES, MAX_UPLOAD_BODY_BYTES, readBody } from "./request-body.server";

/** A request whose body streams `parts` one after the other, with no Content-Length (as a chunked upload). */
function streamedRequest(contentType: string, parts: Iterator<string>) {
  const encoder = new TextEncoder();
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = parts.next();
      if (next.done) controller.close();
      else {
        pulled += next.value.length;
        controller.enqueue(encoder.encode(next.value));
      }
    },
  });
  const request = new Request("http://localhost/x", { method: "POST", headers: { "Content-Type": contentType }, body, duplex: "half" } as RequestInit);
  return { request, pulled: () => pulled };
}

function* repeat(text: string, times: number) {
  for (let i = 0; i < times; i++) yield text;
}

async function refusalOf(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (thrown) {
    if (thrown instanceof Response) return { status: thrown.status, body: await thrown.json() };
    throw thrown;
  }
  throw new Error("not refused");
}

describe("readBody", () => {
  it("reads a body up to MAX_BODY_BYTES", async () => {
    const { request } = streamedRequest("application/json", repeat("a".repeat(1024), 64));
    expect((await readBody(request))!.byteLength).toBe(MAX_BODY_BYTES);
  });

  it("answers 413 one chunk past the cap, and reads no further", async () => {
    const { request, pulled } = streamedRequest("application/json", repeat("a".repeat(1024), 100_000));
    expect(await refusalOf(readBody(request))).toEqual({ status: 413, body: { success: false, error: { message: BODY_TOO_LARGE } } });
    expect(pulled()).toBeLessThan(MAX_BODY_BYTES + 64 * 1024);
  });

  it("answers 413 on a declared length over the cap without reading", async () => {
    const request = new Request("http://localhost/x", { method: "POST", headers: { "Content-Length": String(MAX_BODY_BYTES + 1) }, body: "a" });
    expect((await refusalOf(readBody(request))).status).toBe(413);
  });
});

describe("readPhotoForm", () => {
  it("refuses a streamed multipart body past MAX_UPLOAD_BODY_BYTES, however small its parts", async () => {
    const part = `--zz\r\nContent-Disposition: form-data; name="note"\r\n\r\n${"a".repeat(60 * 1024)}\r\n`;
    const parts = repeat(part, Math.ceil(MAX_UPLOAD_BODY_BYTES / part.length) + 10);
    const { request, pulled } = streamedRequest("multipart/form-data; boundary=zz", parts);
    const form = await readPhotoForm(request);
    expect(form.problem).toMatchObject({ status: 413, message: BODY_TOO_LARGE });
    expect(pulled()).toBeLessThan(MAX_UPLOAD_BODY_BYTES + 2 * part.length);
  });
});
