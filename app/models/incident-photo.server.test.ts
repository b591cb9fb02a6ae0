// The photo check decodes the header from the photo's own bytes only.
import { describe, expect, it } from "vitest";
import { readPhotoHeader } from "./incident-photo.server";

const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

describe("readPhotoHeader", () => {
  it("reads a PNG's type and size from its IHDR chunk", () => {
    expect(readPhotoHeader(PNG)).toEqual({ type: "png", width: 1, height: 1 });
  });

  it("never reads past the photo's bytes, even when its buffer goes on (a pooled Buffer)", () => {
    const shared = Buffer.concat([PNG, PNG]);
    expect(readPhotoHeader(shared.subarray(0, 20))).toBeNull();
    expect(readPhotoHeader(shared.subarray(0, 8))).toBeNull();
    expect(readPhotoHeader(shared.subarray(PNG.length))).toEqual({ type: "png", width: 1, height: 1 });
  });
});
