// The cleanup of a card's denied rows (SPEC §7).
import { describe, expect, it } from "vitest";
import { deleteDeniedAccessLogsOfCardNumber, listAccessLogs } from "~/models/access-log-query.server";
import { hexPrefix, insertLogs } from "../setup/fixtures";

const MINUTE = 60_000;
const T = Date.UTC(2026, 10, 21, 9, 0, 0);

describe("cleanup of denied rows", () => {
  it("deletes only the card's denied rows and says how many", async () => {
    const card = `${hexPrefix()}01`;
    const other = `${hexPrefix()}02`;
    await insertLogs([
      { at: T, cardNumber: card, granted: false },
      { at: T - MINUTE, cardNumber: card, granted: false, reason: "card_pending" },
      { at: T - 2 * MINUTE, cardNumber: card, granted: true },
      { at: T - 3 * MINUTE, cardNumber: other, granted: false },
    ]);
    expect((await deleteDeniedAccessLogsOfCardNumber(card)).deleted).toBe(2);
    const left = async (cardNumber: string) =>
      listAccessLogs({ status: "all", doorId: "", dateRange: "all", search: cardNumber }, { limit: 10, offset: 0 });
    expect((await left(card)).map((r) => r.accessGranted)).toEqual([true]);
    expect(await left(other)).toHaveLength(1);
    expect((await deleteDeniedAccessLogsOfCardNumber(card)).deleted).toBe(0);
  });
});
