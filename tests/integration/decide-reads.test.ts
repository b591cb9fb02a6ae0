// The decisions' reads on statements the access service keeps
// (app/access/decision-reads.server.ts): each call's values reach the kept
// statement as placeholders, what the app's client commits later is seen,
// and the connection cannot write.
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { openDecisionReads } from "~/access/decision-reads.server";
import { decideAccessBatch, type AccessInput } from "~/access/record-batch.server";
import { removeCardPermission } from "~/services/cards.server";
import { getDb } from "~/utils/db.server";
import { createTestCard, createTestDoor, hexPrefix } from "../setup/fixtures";

const reads = openDecisionReads(process.env.DATABASE_URL!);
afterAll(() => reads.close());

let swipes = 0;
const swipe = (doorCode: string, cardNumber: string, extra: Partial<Extract<AccessInput, { kind: "swipe" }>> = {}): AccessInput => ({
  kind: "swipe",
  id: `decide-reads-${++swipes}`,
  doorCode,
  cardNumber,
  rawCard: cardNumber,
  source: "reader",
  ipAddress: null,
  ...extra,
});

const decide = (items: AccessInput[], source: Parameters<typeof decideAccessBatch>[5]) =>
  decideAccessBatch([], new Map(), items, new Date(), new Map(), source);

describe("the decisions' own statements", () => {
  it("answer each call on its own values: the same statements, another door and card, other rows", async () => {
    const front = await createTestDoor();
    const back = await createTestDoor();
    const prefix = hexPrefix();
    const { card: frontCard } = await createTestCard(`${prefix}01`, [front.id], { firstName: "Olga" });
    await createTestCard(`${prefix}02`, [back.id], { firstName: "Pablo" });

    const first = await decide([swipe(front.code, frontCard.cardNumber)], reads);
    const second = await decide([swipe(back.code, `${prefix}02`)], reads);
    const crossed = await decide([swipe(back.code, frontCard.cardNumber)], reads);
    expect(first).toMatchObject([{ granted: true, reason: "granted", display: { line1: "Hola, Olga" } }]);
    expect(second).toMatchObject([{ granted: true, reason: "granted", display: { line1: "Hola, Pablo" } }]);
    expect(crossed).toMatchObject([{ granted: false, reason: "no_permission" }]);
  });

  it("give the same decisions as the app's client, a PIN and an unreadable card among them", async () => {
    const door = await createTestDoor();
    const prefix = hexPrefix();
    const { card } = await createTestCard(`${prefix}01`, [door.id]);
    const items = [
      swipe(door.code, card.cardNumber),
      swipe(door.code, `${prefix}FF`),
      swipe("no-such-door", card.cardNumber),
      swipe(door.code, "", { cardNumber: null, rawCard: "???" }),
      swipe(door.code, "", { cardNumber: null, key: { kind: "pin", secret: "123456" }, source: "keypad" }),
    ];
    expect(await decide(items, reads)).toEqual(await decide(items, getDb()));
  });

  it("see what the app's client commits after they were prepared", async () => {
    const door = await createTestDoor();
    const { card } = await createTestCard(`${hexPrefix()}01`, [door.id]);
    expect(await decide([swipe(door.code, card.cardNumber)], reads)).toMatchObject([{ granted: true }]);
    const removed = await removeCardPermission(card.id, door.id);
    expect(removed.ok).toBe(true);
    expect(await decide([swipe(door.code, card.cardNumber)], reads)).toMatchObject([{ granted: false, reason: "no_permission" }]);
  });

  it("cannot write", async () => {
    await expect(reads.all(sql`DELETE FROM doors`)).rejects.toThrow(/readonly|query_only|read-only/i);
  });

  it("read through the app's client when the database is not a local file", async () => {
    const elsewhere = openDecisionReads("libsql://db.example.invalid");
    try {
      expect(await elsewhere.all<{ one: number }>(sql`SELECT ${1} AS one`)).toEqual([{ one: 1 }]);
    } finally {
      elsewhere.close();
    }
  });
});
