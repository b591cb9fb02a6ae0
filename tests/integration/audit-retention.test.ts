// The audit trail's retention (docs/audit.md): events older than
// AUDIT_RETENTION_MONTHS go from the oldest end of the chain, the purge
// records the first kept event's id and previous hash, and the chain verifies
// from there; an old event removed behind the purge's back is still found.
// One scenario in order: the chain is the file's own (a fresh database).
import Database from "libsql";
import { afterAll, describe, expect, it } from "vitest";
import { asc, eq } from "drizzle-orm";
import { auditEvents } from "~/db/schema";
import { appendAuditEvents, type NewAuditEvent } from "~/models/audit-event.server";
import { purgeAuditTrail, verifyAuditChain } from "~/services/audit.server";
import { monthsBefore } from "~/utils/dates";
import { getDb, inWriteTransaction } from "~/utils/db.server";
import { resetEnvForTests } from "~/utils/env.server";

const NOW = new Date();

/** Events recorded at past instants: a state no code creates. */
function pastEvent(monthsAgo: number, label: string): NewAuditEvent {
  return {
    at: monthsBefore(NOW, monthsAgo).getTime(),
    actorId: null,
    actorUsername: "admin",
    actorRole: "admin",
    ip: "192.0.2.1",
    action: "door.update",
    entityType: "door",
    entityId: label,
    summary: `admin editó la puerta ${label}`,
    before: null,
    after: null,
  };
}

async function chain() {
  return getDb().select().from(auditEvents).orderBy(asc(auditEvents.id));
}

afterAll(() => {
  delete process.env.AUDIT_RETENTION_MONTHS;
  resetEnvForTests();
});

describe("retention purge", () => {
  it("purges from the oldest end, anchors the chain on the first kept event, and follows AUDIT_RETENTION_MONTHS", async () => {
    expect(await chain()).toEqual([]);
    await inWriteTransaction(() => appendAuditEvents([pastEvent(40, "e1"), pastEvent(12, "e2"), pastEvent(2, "e3")]));
    const [e1, e2, e3] = await chain();

    // Default: 24 months.
    expect(await purgeAuditTrail(NOW)).toEqual({ deleted: 1 });
    let rows = await chain();
    expect(rows.map((row) => row.entityId)).toEqual(["e2", "e3", null]);
    const firstPurge = rows[2]!;
    expect(firstPurge).toMatchObject({ action: "audit.purge", entityType: "audit", actorUsername: "sistema", actorRole: "sistema", ip: null });
    expect(firstPurge.summary).toMatch(/^sistema eliminó 1 evento de auditoría anterior al \d{2}\/\d{2}\/\d{4}$/);
    expect(JSON.parse(firstPurge.after!)).toMatchObject({ deleted: 1, firstKeptId: e2!.id, firstKeptPrevHash: e1!.hash });
    expect(firstPurge.prevHash).toBe(e3!.hash);
    expect(await verifyAuditChain()).toEqual({ ok: true, checked: 3, firstBadId: null });

    // Idempotent: nothing more to purge, no new event.
    expect(await purgeAuditTrail(NOW)).toEqual({ deleted: 0 });
    expect(await chain()).toHaveLength(3);

    process.env.AUDIT_RETENTION_MONTHS = "6";
    resetEnvForTests();
    expect(await purgeAuditTrail(NOW)).toEqual({ deleted: 1 });
    rows = await chain();
    expect(rows.map((row) => row.action)).toEqual(["door.update", "audit.purge", "audit.purge"]);
    expect(JSON.parse(rows[2]!.after!)).toMatchObject({ deleted: 1, firstKeptId: e3!.id, firstKeptPrevHash: e2!.hash });
    expect(await verifyAuditChain()).toEqual({ ok: true, checked: 3, firstBadId: null });

    // Someone with the file removes the oldest event kept: the chain no longer starts at its anchor.
    const attacker = new Database(process.env.DATABASE_URL!.slice("file:".length));
    try {
      attacker.exec("DROP TRIGGER audit_events_no_delete");
      attacker.prepare("DELETE FROM audit_events WHERE id = ?").run(e3!.id);
    } finally {
      attacker.close();
    }
    expect(await getDb().select().from(auditEvents).where(eq(auditEvents.id, e3!.id))).toEqual([]);
    expect(await verifyAuditChain()).toEqual({ ok: false, checked: 1, firstBadId: firstPurge.id });
  });
});
