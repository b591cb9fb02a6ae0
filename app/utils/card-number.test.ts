import { describe, expect, it } from "vitest";
import { canonicalCardId } from "./card-number";

describe("canonical card ids", () => {
  it("are upper-case hex, two characters per byte", () => {
    expect(canonicalCardId("004E2B4E")).toBe("004E2B4E");
    expect(canonicalCardId("004e2b4e")).toBe("004E2B4E");
    expect(canonicalCardId("0x4E2B4E")).toBe("4E2B4E");
    expect(canonicalCardId("4:e2:b4:e")).toBe("04E2B40E");
    expect(canonicalCardId("04-E2-B4-0E")).toBe("04E2B40E");
    expect(canonicalCardId("abc")).toBe("0ABC");
  });

  it("refuse what is not a hex card id", () => {
    expect(canonicalCardId("")).toBeNull();
    expect(canonicalCardId("hello")).toBeNull();
    expect(canonicalCardId("00".repeat(17))).toBeNull();
  });
});
