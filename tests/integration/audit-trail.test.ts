// The audit trail's core (docs/audit.md): an event is written in the same
// transaction as its change, carries the request's actor and address, hides
// secrets, chains its hash to the previous event's, and cannot be changed or
// deleted through SQL; an edit made with a plain SQLite connection (the
// triggers dropped first, as someone with the file could) is found.
import { execFile } from "node:child_process";
import { setImmediate } from "node:timers/promises";
import { promisify } from "node:util";
import Database from "libsql";
import { afterEach, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { auditEvents, cards } from "~/db/schema";
import { getLastAuditEvent } from "~/models/audit-event.server";
import { getCardRow, registerCard, updateCard } from "~/models/card.server";
import { audited, SYSTEM_ACTOR, verifyAuditChain } from "~/services/audit.server";
import { getDb } from "~/utils/db.server";
import { withRequestContext, type RequestContext } from "~/utils/request-context.server";
import * as verifyRoute from "~/routes/api.audit.verify";
import { createApiCallers, hexPrefix } from "../setup/fixtures";
import { callApi } from "../setup/route";

function asRequest<T>(requester: RequestContext["requester"], work: () => Promise<T>) {
  return withRequestContext({ rendersDocument: false, toasts: [], forwardedProto: null, requester }, work);
}

/** `npm run audit:verify` on this test's database: its exit status and what it printed. */
async function runVerifyScript() {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ["scripts/audit-verify.mjs"], { env: process.env });
    return { status: 0, output: JSON.parse(stdout) };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { status: failed.code, output: JSON.parse(failed.stdout), stderr: failed.stderr };
  }
}

const ADMIN = { id: "admin-id", username: "admin", role: "admin" };

/** The database's own refusal behind drizzle's "Failed query" error. */
async function refusal(write: Promise<unknown>) {
  return write.then(
    () => "no refusal",
    (error: Error) => `${error.message} ${String(error.cause ?? "")}`,
  );
}

async function eventsOf(entityId: string) {
  return getDb().select().from(auditEvents).where(eq(auditEvents.entityId, entityId)).orderBy(auditEvents.id);
}

async function renameCard(id: string, alias: string, { fail }: { fail?: "after-change" } = {}) {
  return audited(async (audit) => {
    const card = (await getCardRow(id))!;
    await updateCard(id, { alias });
    audit({
      action: "card.alias",
      entityType: "card",
      entityId: id,
      summary: `cambió el alias de la tarjeta ${card.cardNumber}`,
      before: { alias: card.alias },
      after: { alias },
    });
    if (fail) throw new Error("the change fails after its write");
    return card.cardNumber;
  });
}

/** renameCard, with the transaction kept open until `held` resolves. */
function renameCardHolding(id: string, alias: string, held: Promise<void>) {
  return audited(async (audit) => {
    await updateCard(id, { alias });
    audit({ action: "card.alias", entityType: "card", entityId: id, summary: "cambió el alias", after: { alias } });
    await held;
  });
}

describe("recording", () => {
  it("writes one event with the request's actor and address, after the actor's name, chained to the one before", async () => {
    const card = await registerCard({ cardNumber: `${hexPrefix()}01` });
    const before = await getLastAuditEvent();
    await asRequest({ ip: "198.51.100.7", user: ADMIN }, () => renameCard(card.id, "Llavero azul"));
    const [event] = await eventsOf(card.id);
    expect(event).toMatchObject({
      actorId: "admin-id",
      actorUsername: "admin",
      actorRole: "admin",
      ip: "198.51.100.7",
      action: "card.alias",
      entityType: "card",
      summary: `admin cambió el alias de la tarjeta ${card.cardNumber}`,
      before: JSON.stringify({ alias: null }),
      after: JSON.stringify({ alias: "Llavero azul" }),
    });
    expect(event!.prevHash).toBe(before?.hash ?? "0".repeat(64));
    expect(event!.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await verifyAuditChain()).toMatchObject({ ok: true, firstBadId: null });
  });

  it("records the system as the actor outside a request", async () => {
    const card = await registerCard({ cardNumber: `${hexPrefix()}02` });
    await renameCard(card.id, "Sin petición");
    const [event] = await eventsOf(card.id);
    expect(event).toMatchObject({ actorId: null, actorUsername: SYSTEM_ACTOR.username, actorRole: "sistema", ip: null });
    expect(event!.summary).toBe(`sistema cambió el alias de la tarjeta ${card.cardNumber}`);
  });

  it("keeps neither the change nor its event when the change fails after writing", async () => {
    const card = await registerCard({ cardNumber: `${hexPrefix()}03` });
    await expect(renameCard(card.id, "A medias", { fail: "after-change" })).rejects.toThrow(/fails after its write/);
    expect((await getCardRow(card.id))!.alias).toBeNull();
    expect(await eventsOf(card.id)).toEqual([]);
  });

  it("keeps no change whose event could not be written", async () => {
    const card = await registerCard({ cardNumber: `${hexPrefix()}04` });
    await getDb().run(sql.raw("CREATE TRIGGER audit_test_refuse BEFORE INSERT ON audit_events BEGIN SELECT RAISE(ABORT, 'audit_test_refuse'); END"));
    try {
      expect(await refusal(renameCard(card.id, "Sin evento"))).toMatch(/audit_test_refuse/);
    } finally {
      await getDb().run(sql.raw("DROP TRIGGER audit_test_refuse"));
    }
    expect((await getCardRow(card.id))!.alias).toBeNull();
    expect(await eventsOf(card.id)).toEqual([]);
  });

  it("rolls back a change that writes without recording an event", async () => {
    const card = await registerCard({ cardNumber: `${hexPrefix()}05` });
    await expect(audited(() => updateCard(card.id, { alias: "Sin rastro" }))).rejects.toThrow(/recorded no audit event/);
    expect((await getCardRow(card.id))!.alias).toBeNull();
  });

  it("joins a change made inside another: one transaction, both events", async () => {
    const first = await registerCard({ cardNumber: `${hexPrefix()}06` });
    const second = await registerCard({ cardNumber: `${hexPrefix()}07` });
    await expect(
      audited(async () => {
        await renameCard(first.id, "Uno");
        await renameCard(second.id, "Dos");
        throw new Error("the outer change fails");
      }),
    ).rejects.toThrow(/outer change fails/);
    expect([(await getCardRow(first.id))!.alias, (await getCardRow(second.id))!.alias]).toEqual([null, null]);
    await audited(async () => {
      await renameCard(first.id, "Uno");
      await renameCard(second.id, "Dos");
    });
    const [a] = await eventsOf(first.id);
    const [b] = await eventsOf(second.id);
    expect(b!.id).toBe(a!.id + 1);
    expect(b!.prevHash).toBe(a!.hash);
  });

  it("lets another request's write wait for an open change instead of failing on SQLite's lock", async () => {
    const card = await registerCard({ cardNumber: `${hexPrefix()}0B` });
    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    const change = renameCardHolding(card.id, "Mientras tanto", held);
    await setImmediate();
    // A write outside the change (another request's), while the change holds the write lock.
    const started = Date.now();
    const other = registerCard({ cardNumber: `${hexPrefix()}0C` });
    await setImmediate();
    finish();
    const [, registered] = await Promise.all([change, other]);
    expect(registered.cardNumber).toMatch(/0C$/);
    expect(Date.now() - started).toBeLessThan(4000);
    expect((await getCardRow(card.id))!.alias).toBe("Mientras tanto");
  });

  it("keeps concurrent changes of one process in one chain", async () => {
    const numbers = Array.from({ length: 8 }, (_, i) => `${hexPrefix()}${String(i).padStart(2, "0")}`);
    const created = await Promise.all(numbers.map((cardNumber) => registerCard({ cardNumber })));
    await Promise.all(created.map((card, i) => renameCard(card.id, `Paralelo ${i}`)));
    for (const card of created) expect(await eventsOf(card.id)).toHaveLength(1);
    expect(await verifyAuditChain()).toMatchObject({ ok: true });
  });

  it("hides secrets in what it stores", async () => {
    const card = await registerCard({ cardNumber: `${hexPrefix()}08` });
    await audited(async (audit) => {
      await updateCard(card.id, { alias: "Con secreto" });
      audit({
        action: "door.rotate_secret",
        entityType: "card",
        entityId: card.id,
        summary: "probó a guardar secretos",
        before: { passwordHash: "scrypt$abc", alias: null },
        after: { bridgeSecretHash: "$7$xyz", token: "t0k3n", pin: "1234", alias: "Con secreto" },
      });
    });
    const [event] = await eventsOf(card.id);
    expect(JSON.parse(event!.before!)).toEqual({ alias: null, passwordHash: "[oculto]" });
    expect(JSON.parse(event!.after!)).toEqual({ alias: "Con secreto", bridgeSecretHash: "[oculto]", pin: "[oculto]", token: "[oculto]" });
  });
});

describe("append-only", () => {
  it("refuses to update or delete an event through SQL", async () => {
    const card = await registerCard({ cardNumber: `${hexPrefix()}10` });
    await renameCard(card.id, "Intocable");
    const [event] = await eventsOf(card.id);
    expect(await refusal(getDb().update(auditEvents).set({ summary: "otra cosa" }).where(eq(auditEvents.id, event!.id)))).toMatch(
      /audit_events_append_only/,
    );
    expect(await refusal(getDb().delete(auditEvents).where(eq(auditEvents.id, event!.id)))).toMatch(/audit_events_append_only/);
    expect(await refusal(getDb().run(sql.raw("DELETE FROM audit_control")))).toMatch(/audit_events_append_only/);
    // The purge's bound never reaches an event of the last 28 days.
    expect(await refusal(getDb().run(sql`UPDATE audit_control SET purge_below = ${event!.id + 1}`))).toMatch(/audit_purge_bound/);
    expect(await eventsOf(card.id)).toEqual([event]);
  });
});

describe("verification", () => {
  let restore: (() => void) | null = null;
  afterEach(() => {
    restore?.();
    restore = null;
  });

  it("finds a row edited with a plain SQLite connection, and passes again once it is put back", async () => {
    const card = await registerCard({ cardNumber: `${hexPrefix()}20` });
    await renameCard(card.id, "Original");
    await renameCard(card.id, "Segundo");
    const [edited] = await eventsOf(card.id);
    expect(await verifyAuditChain()).toMatchObject({ ok: true });

    const file = process.env.DATABASE_URL!.slice("file:".length);
    const attacker = new Database(file);
    const trigger = (attacker.prepare("SELECT sql FROM sqlite_master WHERE name = 'audit_events_no_update'").get() as { sql: string }).sql;
    attacker.exec("DROP TRIGGER audit_events_no_update");
    attacker.prepare("UPDATE audit_events SET summary = ? WHERE id = ?").run("admin no hizo nada", edited!.id);
    restore = () => {
      attacker.prepare("UPDATE audit_events SET summary = ? WHERE id = ?").run(edited!.summary, edited!.id);
      attacker.exec(trigger);
      attacker.close();
    };

    const found = await verifyAuditChain();
    expect(found).toMatchObject({ ok: false, firstBadId: edited!.id });
    const { adminToken } = await createApiCallers();
    expect(await callApi(verifyRoute.loader, "/api/audit/verify", { token: adminToken })).toEqual({ status: 200, body: { success: true, data: found } });
    expect(await runVerifyScript()).toEqual({
      status: 1,
      output: { data: found },
      stderr: `audit:verify: the chain breaks at event ${edited!.id}\n`,
    });
    expect(found.checked).toBe((await getDb().select({ n: sql<number>`count(*)` }).from(auditEvents).where(sql`id <= ${edited!.id}`))[0]!.n);

    restore();
    restore = null;
    const total = (await getDb().select({ n: sql<number>`count(*)` }).from(auditEvents))[0]!.n;
    expect(await verifyAuditChain()).toEqual({ ok: true, checked: total, firstBadId: null });
    expect((await getDb().select().from(cards).where(eq(cards.id, card.id)))[0]!.alias).toBe("Segundo");
  });
});
