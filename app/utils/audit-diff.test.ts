import { describe, expect, it } from "vitest";
import { auditDiff, auditValueText } from "./audit-diff";

describe("auditDiff", () => {
  it("lists each field once with both values, marking those that changed", () => {
    expect(auditDiff({ alias: "Azul", status: "active" }, { alias: "Rojo", status: "active", granted: true })).toEqual([
      { field: "alias", before: "Azul", after: "Rojo", changed: true },
      { field: "status", before: "active", after: "active", changed: false },
      { field: "granted", before: "—", after: "Sí", changed: true },
    ]);
  });

  it("shows a creation (nothing before) and a deletion (nothing after)", () => {
    expect(auditDiff(null, { name: "Gimnasio" })).toEqual([{ field: "name", before: "—", after: "Gimnasio", changed: true }]);
    expect(auditDiff({ deleted: 3 }, null)).toEqual([{ field: "deleted", before: "3", after: "—", changed: true }]);
    expect(auditDiff(null, null)).toEqual([]);
  });

  it("writes nested values as JSON", () => {
    expect(auditValueText({ a: [1, 2] })).toBe('{"a":[1,2]}');
    expect(auditValueText(false)).toBe("No");
  });
});
