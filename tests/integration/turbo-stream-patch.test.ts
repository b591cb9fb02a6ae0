// patches/turbo-stream+2.4.1.patch (ADR 0008): Remix makes a page's hydration
// stream before entry.server runs, and a page the render cache answers never
// reads it; the patched encode does its work on the stream's first read.
import { decode, encode } from "turbo-stream";
import { describe, expect, it } from "vitest";

function watchedData() {
  const reads = { rows: 0 };
  const data = {
    page: 1,
    get rows() {
      reads.rows++;
      return [{ id: "a", at: new Date("2026-11-26T10:00:00Z") }];
    },
    later: Promise.resolve("after"),
  };
  return { data, reads };
}

describe("turbo-stream's encode", () => {
  it("reads nothing of the data until the stream is read", async () => {
    const { data, reads } = watchedData();
    encode(data);
    await new Promise((resolve) => setImmediate(resolve));
    expect(reads.rows).toBe(0);
  });

  it("encodes the data, deferred values included, once it is read", async () => {
    const { data, reads } = watchedData();
    const decoded = (await decode(encode(data))).value as { page: number; rows: { id: string; at: Date }[]; later: Promise<string> };
    expect(reads.rows).toBe(1);
    expect(decoded.page).toBe(1);
    expect(decoded.rows).toEqual([{ id: "a", at: new Date("2026-11-26T10:00:00Z") }]);
    expect(await decoded.later).toBe("after");
  });
});
