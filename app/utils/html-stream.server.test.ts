import { createElement } from "react";
import { renderToPipeableStream } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { withoutNulBytes } from "./html-stream.server";

/** `pad` characters of ASCII in small text nodes (React buffers small writes), then the text. */
function page(pad: number, text: string) {
  const pieces = Array.from({ length: Math.ceil(pad / 100) }, (_, index) => "a".repeat(Math.min(100, pad - index * 100)));
  return createElement("div", null, ...pieces.map((piece, index) => createElement("i", { key: index }, piece)), createElement("nav", { key: "nav", "aria-label": text }));
}

/** Renders through renderToPipeableStream and `transform`; answers the bytes. */
function render(pad: number, text: string, transform: NodeJS.ReadWriteStream = withoutNulBytes()) {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    transform.on("data", (chunk: Buffer) => chunks.push(chunk));
    transform.on("end", () => resolve(Buffer.concat(chunks)));
    transform.on("error", reject);
    const { pipe } = renderToPipeableStream(page(pad, text), { onAllReady: () => pipe(transform as NodeJS.WritableStream), onError: reject });
  });
}

describe("withoutNulBytes", () => {
  it("removes the NUL bytes React 18.3 leaves where a multi-byte character straddles its 2 KB buffer", async () => {
    // Padding chosen so that an "ó" (2 bytes in UTF-8) lands on each possible offset of the buffer's end.
    for (let pad = 1800; pad < 2100; pad++) {
      const bytes = await render(pad, "Paginación");
      expect(bytes.includes(0), `pad ${pad}`).toBe(false);
      expect(bytes.toString("utf8")).toContain('aria-label="Paginación"');
    }
  });

  it("is what React does without it (so the filter stays needed while React 18 is pinned)", async () => {
    const { PassThrough } = await import("node:stream");
    let sawNul = false;
    for (let pad = 1800; pad < 2100 && !sawNul; pad++) sawNul = (await render(pad, "Paginación", new PassThrough())).includes(0);
    expect(sawNul).toBe(true);
  });
});
