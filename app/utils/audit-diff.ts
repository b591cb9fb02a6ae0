// An audit event's before and after as rows of a table (its details modal).
// Browser-safe.

export type AuditDiffRow = { field: string; before: string; after: string; changed: boolean };

const EMPTY = "—";

/** A stored value as text: none is "—", yes/no in Spanish, objects as JSON. */
export function auditValueText(value: unknown) {
  if (value === null || value === undefined || value === "") return EMPTY;
  if (typeof value === "boolean") return value ? "Sí" : "No";
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  return JSON.stringify(value);
}

/** Every field either side names, in the order they first appear, with both values and whether they differ. */
export function auditDiff(before: Record<string, unknown> | null, after: Record<string, unknown> | null): AuditDiffRow[] {
  const fields = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  return fields.map((field) => {
    const was = before && field in before ? before[field] : undefined;
    const is = after && field in after ? after[field] : undefined;
    return { field, before: auditValueText(was), after: auditValueText(is), changed: JSON.stringify(was ?? null) !== JSON.stringify(is ?? null) };
  });
}
