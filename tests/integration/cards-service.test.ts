// The cards service's rules for the admin screen and API: alias, status,
// delete, approve, permissions (each change announced to the access service),
// and the card model's list sort orders and filters.
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { noAccessNotifier, useAccessNotifier, type AccessChange } from "~/access/notify.server";
import { cardPermissions, cards } from "~/db/schema";
import { assignCardToUser, countCards, getCardById, listCards, registerCard, type NewCard } from "~/models/card.server";
import { createUser } from "~/models/user.server";
import { CARD_SORT_KEYS } from "~/schemas/card";
import { approveCard, CARD_REFUSALS, deleteCard, editCard, removeCardPermission, setCardPermission } from "~/services/cards.server";
import { normalizeCardNumberSearch } from "~/utils/card-number";
import { getDb } from "~/utils/db.server";
import { createTestDoor } from "../setup/fixtures";
import { plansOf } from "../setup/query-plans";

let changes: AccessChange[] = [];
beforeEach(() => {
  changes = [];
  useAccessNotifier({
    notify: async (change) => {
      changes.push(change);
    },
  });
});
afterEach(() => useAccessNotifier(noAccessNotifier));

/** A fresh hex prefix, so each test can list only its own cards. */
function prefix() {
  return randomBytes(3).toString("hex").toUpperCase();
}

async function door(name = "Portal") {
  return createTestDoor({ name: `${name} ${prefix()}` });
}

async function card(fields: Partial<NewCard> = {}) {
  return registerCard({ cardNumber: `${prefix()}${prefix()}`, status: "active", ...fields });
}

async function user() {
  const name = `vecina-${prefix().toLowerCase()}`;
  return createUser({ username: name, email: `${name}@example.com`, password: "secreto-123", firstName: "Lucía", lastName: "Suárez" });
}

async function storedCard(id: string) {
  return getDb().query.cards.findFirst({ where: eq(cards.id, id) });
}

describe("editCard: alias", () => {
  it("trims the alias", async () => {
    const { id } = await card();
    const result = await editCard(id, { alias: "  Llavero azul  " });
    expect(result).toMatchObject({ ok: true, changed: true, card: { alias: "Llavero azul" } });
    expect((await storedCard(id))?.alias).toBe("Llavero azul");
  });

  it("clears it (null) when empty or blank", async () => {
    const { id } = await card({ alias: "Vieja" });
    expect(await editCard(id, { alias: "   " })).toMatchObject({ ok: true, changed: true, card: { alias: null } });
    await editCard(id, { alias: "Otra" });
    expect(await editCard(id, { alias: null })).toMatchObject({ ok: true, changed: true, card: { alias: null } });
    expect((await storedCard(id))?.alias).toBeNull();
  });

  it("saves nothing when unchanged (after trimming) and announces nothing", async () => {
    const { id } = await card({ alias: "Portal" });
    const before = await storedCard(id);
    changes = [];
    const result = await editCard(id, { alias: " Portal " });
    expect(result).toMatchObject({ ok: true, changed: false });
    expect((await storedCard(id))?.updatedAt.getTime()).toBe(before!.updatedAt.getTime());
    expect(changes).toEqual([]);
    expect(await editCard((await card()).id, { alias: "" })).toMatchObject({ ok: true, changed: false });
  });

  it("refuses an unknown card", async () => {
    expect(await editCard("no-such-card", { alias: "x" })).toEqual(CARD_REFUSALS.not_found);
  });
});

describe("editCard: status", () => {
  it("switches an active card off and on, announcing the card", async () => {
    const { id } = await card();
    expect(await editCard(id, { status: "inactive" })).toMatchObject({ ok: true, changed: true, card: { status: "inactive" } });
    expect(changes).toContainEqual({ cardIds: [id] });
    expect(await editCard(id, { status: "active" })).toMatchObject({ ok: true, changed: true, card: { status: "active" } });
    expect((await storedCard(id))?.status).toBe("active");
  });

  it("lets a suspended card be switched on", async () => {
    const { id } = await card({ status: "suspended" });
    expect(await editCard(id, { status: "active" })).toMatchObject({ ok: true, card: { status: "active" } });
  });

  it("refuses to switch a pending card (it is approved instead), alias included", async () => {
    const { id } = await card({ status: "pending", alias: "Antes" });
    expect(await editCard(id, { status: "active", alias: "Después" })).toEqual(CARD_REFUSALS.pending);
    expect(await editCard(id, { status: "inactive" })).toEqual(CARD_REFUSALS.pending);
    expect(await storedCard(id)).toMatchObject({ status: "pending", alias: "Antes" });
  });

  it("refuses to switch an expired card on, but lets it be switched off", async () => {
    const expired = await card({ status: "inactive", expiresAt: new Date(Date.now() - 60_000) });
    expect(await editCard(expired.id, { status: "active" })).toEqual(CARD_REFUSALS.expired);
    expect((await storedCard(expired.id))?.status).toBe("inactive");
    const stillActive = await card({ status: "active", expiresAt: new Date(Date.now() - 60_000) });
    expect(await editCard(stillActive.id, { status: "inactive" })).toMatchObject({ ok: true, changed: true });
    const future = await card({ status: "inactive", expiresAt: new Date(Date.now() + 86_400_000) });
    expect(await editCard(future.id, { status: "active" })).toMatchObject({ ok: true, card: { status: "active" } });
  });

  it("saves nothing when the status is the stored one", async () => {
    const { id } = await card({ status: "inactive" });
    expect(await editCard(id, { status: "inactive" })).toMatchObject({ ok: true, changed: false });
  });
});

describe("deleteCard", () => {
  it("refuses a card assigned to a user and keeps it", async () => {
    const holder = await user();
    const { card: assigned } = await assignCardToUser(holder.id, { cardNumber: `${prefix()}01` });
    expect(await deleteCard(assigned.id)).toEqual(CARD_REFUSALS.assigned);
    expect(await storedCard(assigned.id)).toBeDefined();
  });

  it("deletes an unassigned card with its permissions and announces their doors", async () => {
    const [front, back] = [await door(), await door()];
    const loose = await card();
    await setCardPermission(loose.id, front.id, true);
    await setCardPermission(loose.id, back.id, false);
    changes = [];
    expect(await deleteCard(loose.id)).toEqual({ ok: true, cardNumber: loose.cardNumber });
    expect(await storedCard(loose.id)).toBeUndefined();
    const left = await getDb().select().from(cardPermissions).where(eq(cardPermissions.cardId, loose.id));
    expect(left).toEqual([]);
    expect(changes).toHaveLength(1);
    expect([...changes[0]!.doorIds!].sort()).toEqual([front.id, back.id].sort());
  });

  it("answers not_found for an unknown card", async () => {
    expect(await deleteCard("no-such-card")).toEqual(CARD_REFUSALS.not_found);
  });
});

describe("approveCard", () => {
  it("makes a pending card active and grants the door", async () => {
    const entrance = await door();
    const pending = await card({ status: "pending" });
    const result = await approveCard(pending.id, entrance.id);
    expect(result).toMatchObject({ ok: true, card: { status: "active" } });
    expect((await getCardById(pending.id))?.permissions).toEqual([{ doorId: entrance.id, doorCode: entrance.code, granted: true, schedule: null }]);
    expect(changes).toContainEqual({ cardIds: [pending.id] });
  });

  it("approves without a door", async () => {
    const pending = await card({ status: "pending" });
    expect(await approveCard(pending.id)).toMatchObject({ ok: true, card: { status: "active" } });
    expect((await getCardById(pending.id))?.permissions).toEqual([]);
  });

  it("turns an explicit denial on the door into a grant", async () => {
    const entrance = await door();
    const pending = await card({ status: "pending" });
    await setCardPermission(pending.id, entrance.id, false);
    await approveCard(pending.id, entrance.id);
    expect((await getCardById(pending.id))?.permissions).toEqual([{ doorId: entrance.id, doorCode: entrance.code, granted: true, schedule: null }]);
  });

  it("grants the door to a card that is no longer pending, keeping its status", async () => {
    const entrance = await door();
    const inactive = await card({ status: "inactive" });
    expect(await approveCard(inactive.id, entrance.id)).toMatchObject({ ok: true, card: { status: "inactive" } });
    expect((await getCardById(inactive.id))?.permissions).toEqual([{ doorId: entrance.id, doorCode: entrance.code, granted: true, schedule: null }]);
  });

  it("refuses a card that is not pending when no door is given, an unknown door, and an unknown card", async () => {
    const active = await card();
    expect(await approveCard(active.id)).toEqual(CARD_REFUSALS.not_pending);
    const pending = await card({ status: "pending" });
    expect(await approveCard(pending.id, "no-such-door")).toEqual(CARD_REFUSALS.door_not_found);
    expect((await storedCard(pending.id))?.status).toBe("pending");
    expect(await approveCard("no-such-card")).toEqual(CARD_REFUSALS.not_found);
  });
});

describe("door permissions", () => {
  it("grants, denies and revokes, announcing the door each time", async () => {
    const entrance = await door();
    const { id } = await card();
    changes = [];
    expect(await setCardPermission(id, entrance.id, true)).toMatchObject({ ok: true, door: { id: entrance.id } });
    expect((await getCardById(id))?.permissions).toEqual([{ doorId: entrance.id, doorCode: entrance.code, granted: true, schedule: null }]);
    expect(changes).toEqual([{ doorIds: [entrance.id] }]);

    expect(await setCardPermission(id, entrance.id, false)).toMatchObject({ ok: true, door: { id: entrance.id } });
    expect((await getCardById(id))?.permissions).toEqual([{ doorId: entrance.id, doorCode: entrance.code, granted: false, schedule: null }]);

    changes = [];
    expect(await removeCardPermission(id, entrance.id)).toMatchObject({ ok: true, door: { id: entrance.id } });
    expect((await getCardById(id))?.permissions).toEqual([]);
    expect(changes).toEqual([{ doorIds: [entrance.id] }]);
  });

  it("refuses an unknown door or card, and revoking a permission that does not exist", async () => {
    const entrance = await door();
    const { id } = await card();
    expect(await setCardPermission(id, "no-such-door", true)).toEqual(CARD_REFUSALS.door_not_found);
    expect(await setCardPermission("no-such-card", entrance.id, true)).toEqual(CARD_REFUSALS.not_found);
    expect((await getCardById(id))?.permissions).toEqual([]);
    changes = [];
    expect(await removeCardPermission(id, entrance.id)).toEqual(CARD_REFUSALS.permission_not_found);
    expect(await removeCardPermission("no-such-card", entrance.id)).toEqual(CARD_REFUSALS.not_found);
    expect(changes).toEqual([]);
  });
});

describe("listCards", () => {
  it("reads the default first page (lastUsed desc) in the order of cards_last_used_order_idx, without sorting every card", async () => {
    const plans = await plansOf(() => listCards({ limit: 50 }));
    const list = plans.find((plan) => plan.sql.includes("from \"cards\"") && plan.sql.includes("order by"))!;
    const details = list.lines.map((line) => line.detail).join(" | ");
    expect(details, list.sql).toContain("SCAN cards USING INDEX cards_last_used_order_idx");
    expect(details, list.sql).not.toContain("TEMP B-TREE");
  });

  /** Cards of one test, with the usage and creation times given. */
  async function seedSortable() {
    const p = prefix();
    const rows = [
      { suffix: "01", alias: "Bravo", status: "inactive", lastUsedAt: 3000, totalAccessAttempts: 5, successfulAccesses: 1, createdAt: 30 },
      { suffix: "02", alias: "alfa", status: "active", lastUsedAt: 1000, totalAccessAttempts: 9, successfulAccesses: 7, createdAt: 10 },
      { suffix: "03", alias: null, status: "pending", lastUsedAt: null, totalAccessAttempts: 0, successfulAccesses: 0, createdAt: 20 },
      { suffix: "04", alias: "charlie", status: "suspended", lastUsedAt: 2000, totalAccessAttempts: 2, successfulAccesses: 2, createdAt: 40 },
    ] as const;
    for (const row of rows) {
      const created = await registerCard({ cardNumber: `${p}${row.suffix}`, alias: row.alias, status: row.status });
      await getDb()
        .update(cards)
        .set({
          lastUsedAt: row.lastUsedAt === null ? null : new Date(row.lastUsedAt),
          totalAccessAttempts: row.totalAccessAttempts,
          successfulAccesses: row.successfulAccesses,
          createdAt: new Date(row.createdAt),
        })
        .where(eq(cards.id, created.id));
    }
    const order = async (options: Parameters<typeof listCards>[0]) =>
      (await listCards({ cardNumber: p, ...options })).map((c) => c.cardNumber.slice(-2));
    return { p, order };
  }

  it("sorts by last use, newest first, by default, with never-used cards last", async () => {
    const { order } = await seedSortable();
    expect(await order({})).toEqual(["01", "04", "02", "03"]);
    expect(await order({ sortBy: "lastUsed", sortOrder: "asc" })).toEqual(["02", "04", "01", "03"]);
  });

  it("sorts by every SPEC field in both orders", async () => {
    const { order } = await seedSortable();
    const expected: Record<(typeof CARD_SORT_KEYS)[number], string[]> = {
      lastUsed: ["01", "04", "02", "03"],
      createdAt: ["04", "01", "03", "02"],
      totalAccessAttempts: ["02", "01", "04", "03"],
      successfulAccesses: ["02", "04", "01", "03"],
      cardNumber: ["04", "03", "02", "01"],
      // charlie, Bravo, alfa (case-insensitive), then the card without alias.
      alias: ["04", "01", "02", "03"],
      status: ["04", "03", "01", "02"],
    };
    for (const sortBy of CARD_SORT_KEYS) {
      expect(await order({ sortBy, sortOrder: "desc" }), `${sortBy} desc`).toEqual(expected[sortBy]);
      const ascending = sortBy === "lastUsed" || sortBy === "alias" ? [...expected[sortBy].slice(0, 3).reverse(), "03"] : [...expected[sortBy]].reverse();
      expect(await order({ sortBy, sortOrder: "asc" }), `${sortBy} asc`).toEqual(ascending);
    }
  });

  it("filters anonymous cards, searches by part of the number and pages", async () => {
    const p = prefix();
    await registerCard({ cardNumber: `${p}A1`, isAnonymous: true });
    await registerCard({ cardNumber: `${p}B2`, isAnonymous: false });
    await registerCard({ cardNumber: `${p}C3`, isAnonymous: false });
    const numbers = async (options: Parameters<typeof listCards>[0]) =>
      (await listCards({ sortBy: "cardNumber", sortOrder: "asc", ...options })).map((c) => c.cardNumber);
    expect(await numbers({ cardNumber: p, anonymousFilter: "anonymous" })).toEqual([`${p}A1`]);
    expect(await numbers({ cardNumber: p, anonymousFilter: "registered" })).toEqual([`${p}B2`, `${p}C3`]);
    expect(await numbers({ cardNumber: p, anonymousFilter: "all" })).toHaveLength(3);
    // Any usual notation: lower case, separators, 0x.
    const spaced = `${p}b2`.toLowerCase().match(/../g)!.join(":");
    expect(await numbers({ cardNumber: spaced })).toEqual([`${p}B2`]);
    expect(await numbers({ cardNumber: `0x${p.slice(2)}C` })).toEqual([`${p}C3`]);
    // Not hex at all: nothing matches (rather than everything).
    expect(await numbers({ cardNumber: "zzz" })).toEqual([]);
    expect(normalizeCardNumberSearch(" 0xab-CD ")).toBe("ABCD");
    expect(normalizeCardNumberSearch("hola")).toBeNull();

    expect(await countCards({ cardNumber: p })).toBe(3);
    expect(await countCards({ cardNumber: p, anonymousFilter: "registered" })).toBe(2);
    expect(await numbers({ cardNumber: p, limit: 2 })).toEqual([`${p}A1`, `${p}B2`]);
    expect(await numbers({ cardNumber: p, limit: 2, offset: 2 })).toEqual([`${p}C3`]);
  });

  it("lists only pending and active cards, whoever holds them, when reassignable", async () => {
    const p = prefix();
    const holder = await user();
    await registerCard({ cardNumber: `${p}01`, status: "pending" });
    await registerCard({ cardNumber: `${p}02`, status: "active" });
    await registerCard({ cardNumber: `${p}03`, status: "inactive" });
    await registerCard({ cardNumber: `${p}04`, status: "suspended" });
    await assignCardToUser(holder.id, { cardNumber: `${p}05` });
    const listed = await listCards({ cardNumber: p, reassignable: true, sortBy: "cardNumber", sortOrder: "asc" });
    expect(listed.map((c) => c.cardNumber.slice(-2))).toEqual(["01", "02", "05"]);
    expect(listed[2]!.holder).toMatchObject({ id: holder.id, username: holder.username, firstName: "Lucía" });
  });

  it("includes each card's permissions", async () => {
    const entrance = await door();
    const { id, cardNumber } = await card();
    await setCardPermission(id, entrance.id, true);
    const [listed] = await listCards({ cardNumber });
    expect(listed?.permissions).toEqual([{ doorId: entrance.id, doorCode: entrance.code, granted: true, schedule: null }]);
  });
});
