// Merging rows into lines (SPEC §2: same card, door and result within 5 minutes).
import { describe, expect, it } from "vitest";
import { LOG_MERGE_WINDOW_MS } from "~/schemas/access-log";
import { mergeAccessLogRows } from "./access-log-review.server";

const MINUTE = 60_000;
const T = Date.UTC(2026, 10, 21, 9, 0, 0);

type Row = { id: string; timestamp: number; cardNumber: string; doorCode: string; accessGranted: boolean };
let counter = 0;
/** Rows newest first, as the queries give them; `minutesAgo` counts back from T. */
function row(minutesAgo: number, fields: Partial<Row> = {}): Row {
  return { id: `r${++counter}`, timestamp: T - minutesAgo * MINUTE, cardNumber: "AA01", doorCode: "portal", accessGranted: false, ...fields };
}

describe("merging", () => {
  it("is five minutes", () => {
    expect(LOG_MERGE_WINDOW_MS).toBe(5 * MINUTE);
  });

  it("merges rows of the same card, door and result within the window into the newest row's line", () => {
    const rows = [row(0), row(1), row(4.5), row(5)];
    const lines = mergeAccessLogRows(rows);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ id: rows[0]!.id, count: 4, timestamp: T, firstTimestamp: T - 5 * MINUTE });
  });

  it("starts a new line past the window, counted from the line's newest row", () => {
    // 0, 4 and 8 minutes ago: each within 5 minutes of the previous, but 8 is not within 5 of 0.
    const lines = mergeAccessLogRows([row(0), row(4), row(8), row(9)]);
    expect(lines.map((line) => line.count)).toEqual([2, 2]);
    expect(lines[1]!.timestamp).toBe(T - 8 * MINUTE);
    expect(mergeAccessLogRows([row(0), row(5, { timestamp: T - 5 * MINUTE - 1 })]).map((line) => line.count)).toEqual([1, 1]);
  });

  it("never merges door alarms (rows without a card): each alarm is a line", () => {
    const lines = mergeAccessLogRows([row(0, { cardNumber: "" }), row(1, { cardNumber: "" }), row(2), row(3)]);
    expect(lines.map((line) => line.count)).toEqual([1, 1, 2]);
  });

  it("keeps different cards, doors and results apart", () => {
    const lines = mergeAccessLogRows([
      row(0),
      row(1, { accessGranted: true }),
      row(2, { doorCode: "garaje" }),
      row(3, { cardNumber: "AA02" }),
    ]);
    expect(lines.map((line) => line.count)).toEqual([1, 1, 1, 1]);
  });

  it("merges across rows of other cards in between; the line stays where its newest row is", () => {
    const lines = mergeAccessLogRows([row(0), row(1, { cardNumber: "BB" }), row(2), row(3, { cardNumber: "BB" }), row(4)]);
    expect(lines.map((line) => [line.cardNumber, line.count])).toEqual([
      ["AA01", 3],
      ["BB", 2],
    ]);
  });
});
