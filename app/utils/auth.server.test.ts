import { describe, expect, it } from "vitest";
import { safeRedirect } from "./auth.server";

describe("safeRedirect", () => {
  it("keeps same-site paths only", () => {
    expect(safeRedirect("/admin/cards", "/")).toBe("/admin/cards");
    expect(safeRedirect("//evil.example", "/")).toBe("/");
    expect(safeRedirect("https://evil.example", "/")).toBe("/");
    expect(safeRedirect("/\\evil.example", "/")).toBe("/");
  });
});
