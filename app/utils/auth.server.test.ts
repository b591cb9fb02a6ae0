import { describe, expect, it } from "vitest";
import { safeRedirect } from "./auth.server";

describe("safeRedirect", () => {
  it("keeps same-site paths, with their query and hash", () => {
    expect(safeRedirect("/admin/cards", "/")).toBe("/admin/cards");
    expect(safeRedirect("/admin/cards?sortBy=alias#top", "/")).toBe("/admin/cards?sortBy=alias#top");
  });

  it.each([
    "//evil.example",
    "https://evil.example",
    "/\\evil.example",
    "\\\\evil.example",
    "/\t/evil.example",
    "/%09/evil.example",
    "%2F%09%2Fevil.example",
    "/%2F/evil.example",
    "/%5Cevil.example",
    "/\r\nSet-Cookie: x=1",
    "/%0d%0aSet-Cookie:%20x=1",
    "javascript:alert(1)",
    "admin",
    "/%E0%A4%A",
  ])("refuses %j", (payload) => {
    expect(safeRedirect(payload, "/")).toBe("/");
  });

  it("percent-encodes non-ASCII so the Location header stays valid", () => {
    expect(safeRedirect("/búsqueda?q=año", "/")).toBe("/b%C3%BAsqueda?q=a%C3%B1o");
  });
});
