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
    "/.//evil.example",
    "/..//evil.example",
    "/a/..//evil.example",
    "/%2e//evil.example",
    "/%2E%2E//evil.example",
    "/a/%2e%2e//evil.example",
    "/./\\evil.example",
  ])("refuses %j", (payload) => {
    expect(safeRedirect(payload, "/")).toBe("/");
  });

  it("keeps dot segments that stay on the site, resolved", () => {
    expect(safeRedirect("/a/../admin", "/")).toBe("/admin");
    expect(safeRedirect("/./portal?tab=reservas", "/")).toBe("/portal?tab=reservas");
  });

  it("percent-encodes non-ASCII so the Location header stays valid", () => {
    expect(safeRedirect("/búsqueda?q=año", "/")).toBe("/b%C3%BAsqueda?q=a%C3%B1o");
  });
});
