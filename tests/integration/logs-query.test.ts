// The log's queries against a brute-force reading of the same rows: for every
// combination of result, door, date range and search, the stats, pages and
// export stream must be what filtering and sorting the rows in JavaScript
// gives. Also the query plans (index ranges, never a scan of the table) and
// the dashboard's activity figures. This file's database holds only these rows.
import { beforeAll, describe, expect, it } from "vitest";
import type { AccessReason } from "~/doors/reasons";
import type { Door } from "~/db/schema";
import { getAccessActivity, getAccessLogStats, listAccessLogs, streamAccessLogs } from "~/models/access-log-query.server";
import { LOG_DATE_RANGES, LOG_STATUSES, type LogFilters } from "~/schemas/access-log";
import { createTestDoor, insertLogs, type LogSeed } from "../setup/fixtures";
import { plansOf } from "../setup/query-plans";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const now = new Date(Date.UTC(2026, 5, 15, 10, 30, 0));

const CARDS: Array<{ cardNumber: string; username: string | null }> = [
  { cardNumber: "AB01", username: "marta.garcia" },
  { cardNumber: "AB02", username: "Mario.Lopez" },
  { cardNumber: "AB0300", username: null },
  { cardNumber: "0A11", username: "ana" },
  { cardNumber: "0A12", username: "ana" },
  { cardNumber: "004E2B4E", username: "Xuan" },
  { cardNumber: "FF", username: null },
  { cardNumber: "A0B1C2", username: "adrian" },
  { cardNumber: "C0FFEE", username: "abel" },
  { cardNumber: "hola?", username: null },
];
const SEARCHES = ["", "ab", "AB0", "0x0a", "a", "mar", "MARIO", "zz", "4E2B", "00:4e", "xuan"];
const DENIAL_REASONS: AccessReason[] = ["no_permission", "card_pending", "unknown_card", "door_maintenance"];

type Seeded = LogSeed & { order: number; doorId: string | null };
let doors: Door[];
let seeded: Seeded[];

/** Same seed, same rows: a small linear congruential generator. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1664525 + 1013904223) % 4294967296;
    return state / 4294967296;
  };
}

beforeAll(async () => {
  doors = await Promise.all(
    ["Portal", "Garaje", "Gimnasio"].map((name, i) => createTestDoor({ code: `query-door-${i}`, name, location: "Edificio" })),
  );
  const next = random(7);
  const seeds: LogSeed[] = [];
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)]!;
  for (let i = 0; i < 700; i++) {
    const card = pick(CARDS);
    const granted = next() > 0.3;
    seeds.push({
      at: now.getTime() - Math.floor(next() * 45 * DAY),
      cardNumber: card.cardNumber,
      username: card.username,
      door: next() < 0.1 ? null : pick(doors),
      granted,
      reason: granted ? "granted" : pick(DENIAL_REASONS),
    });
  }
  // Edges of the date ranges, a row from a clock ahead, and a burst of equal timestamps.
  const edges = [DAY, DAY + 1, 7 * DAY, 7 * DAY + 1, 30 * DAY, 30 * DAY + 1, -MINUTE];
  for (const age of edges) seeds.push({ at: now.getTime() - age, cardNumber: "AB01", username: "marta.garcia", door: doors[0]!, granted: false });
  for (let i = 0; i < 40; i++) seeds.push({ at: now.getTime() - 2 * HOUR, cardNumber: pick(CARDS).cardNumber, door: pick(doors), granted: i % 3 !== 0 });
  await insertLogs(seeds);
  seeded = seeds.map((seed, order) => ({ ...seed, order, doorId: seed.door?.id ?? null }));
}, 60_000);

const RANGE_MS = { "24h": DAY, "7d": 7 * DAY, "30d": 30 * DAY, all: null } as const;

/** What the filters mean, read literally (documented in the admin logs API docs). */
function expected(filters: LogFilters) {
  const since = RANGE_MS[filters.dateRange] === null ? null : now.getTime() - RANGE_MS[filters.dateRange]!;
  const search = filters.search.trim();
  const hex = search.replace(/^0x/i, "").replace(/[\s:-]/g, "").toUpperCase();
  const cardPrefix = /^[0-9A-F]+$/.test(hex) ? hex : null;
  return seeded
    .filter((row) => since === null || row.at >= since)
    // The seeded rows are grants and denials: no door alarm, no resolved denial (issue 40; logs-cleanup.test.ts has those).
    .filter((row) => filters.status === "all" || ((filters.status === "granted" || filters.status === "denied") && (row.granted ?? true) === (filters.status === "granted")))
    .filter((row) => !filters.doorId || row.doorId === filters.doorId)
    .filter(
      (row) =>
        !search ||
        (cardPrefix !== null && row.cardNumber.startsWith(cardPrefix)) ||
        (row.username ?? "").toLowerCase().startsWith(search.toLowerCase()),
    )
    .sort((a, b) => b.at - a.at || b.order - a.order);
}

function combinations(): LogFilters[] {
  const all: LogFilters[] = [];
  for (const status of LOG_STATUSES)
    for (const doorId of ["", "door-0", "door-2"])
      for (const dateRange of LOG_DATE_RANGES)
        for (const search of SEARCHES) all.push({ status, doorId, dateRange, search });
  return all;
}

/** The test's door placeholders, resolved once the doors exist. */
function resolve(filters: LogFilters): LogFilters {
  const door = /^door-(\d)$/.exec(filters.doorId);
  return door ? { ...filters, doorId: doors[Number(door[1])]!.id } : filters;
}

const describeFilters = (f: LogFilters) => `${f.status}/${f.doorId || "any door"}/${f.dateRange}/"${f.search}"`;



describe("filters, stats and pages against a brute-force reading", () => {
  it("gives the same stats, pages and export for every combination", async () => {
    let nonEmpty = 0;
    for (const combination of combinations()) {
      const filters = resolve(combination);
      const rows = expected(filters);
      const label = describeFilters(combination);
      if (rows.length > 0) nonEmpty++;
      const granted = rows.filter((row) => row.granted ?? true).length;
      expect(await getAccessLogStats(filters, now), label).toEqual({
        total: rows.length,
        granted,
        denied: rows.length - granted,
        alarms: 0,
        uniqueCards: new Set(rows.map((row) => row.cardNumber)).size,
      });
      const ats = rows.map((row) => row.at);
      for (const offset of [0, 50, Math.max(0, rows.length - 20)]) {
        const page = await listAccessLogs(filters, { limit: 50, offset }, now);
        expect(page.map((row) => row.timestamp), `${label} offset ${offset}`).toEqual(ats.slice(offset, offset + 50));
      }
      const streamed: number[] = [];
      for await (const batch of streamAccessLogs(filters, { batchSize: 37, now })) {
        expect(batch.length).toBeLessThanOrEqual(37);
        streamed.push(...batch.map((row) => row.timestamp));
      }
      expect(streamed, `${label} export`).toEqual(ats);
    }
    // The combinations are not trivially empty.
    expect(nonEmpty).toBeGreaterThan(200);
  }, 120_000);

  it("orders equal timestamps the same way in pages and in the export (newest insert first)", async () => {
    const filters: LogFilters = { status: "all", doorId: "", dateRange: "24h", search: "" };
    const burst = expected(filters).filter((row) => row.at === now.getTime() - 2 * HOUR);
    expect(burst.length).toBeGreaterThanOrEqual(40);
    const page = await listAccessLogs(filters, { limit: 200, offset: 0 }, now);
    const streamed = [];
    for await (const batch of streamAccessLogs(filters, { batchSize: 7, now })) streamed.push(...batch);
    expect(streamed.map((row) => row.id)).toEqual(page.map((row) => row.id));
    expect(new Set(streamed.map((row) => row.id)).size).toBe(streamed.length);
  });

  it("reads the row's fields back as the admin sees them", async () => {
    const [row] = await listAccessLogs({ status: "denied", doorId: doors[0]!.id, dateRange: "24h", search: "marta" }, { limit: 1, offset: 0 }, now);
    expect(row).toMatchObject({
      timestamp: now.getTime() + MINUTE,
      cardNumber: "AB01",
      username: "marta.garcia",
      doorId: doors[0]!.id,
      doorCode: "query-door-0",
      doorName: "Portal",
      accessGranted: false,
      reason: "no_permission",
      isAnonymous: false,
      offline: false,
    });
  });
});

describe("query plans", () => {
  // `SELECT count(*) FROM access_logs` counts the b-tree's pages, not its rows.
  const WHOLE_TABLE_COUNT = "SCAN access_logs USING COVERING INDEX access_logs_timestamp_idx";

  it("answers stats and pages from index ranges: no table scan, no sort of the log", async () => {
    for (const combination of combinations().filter((c) => ["", "ab", "mar"].includes(c.search))) {
      const filters = resolve(combination);
      const label = describeFilters(combination);
      // A search runs on its prefix indexes whatever else is filtered (at a door,
      // each matching card's rows are read from the door's card index).
      const onSearchIndex = (sql: string, detail: string) => {
        if (filters.search && detail.startsWith("SEARCH access_logs USING") && !detail.includes("PRIMARY KEY")) {
          expect(detail, `${label}: ${sql}`).toMatch(filters.doorId ? /access_logs_(card|user|door_card)_idx/ : /access_logs_(card|user)_idx/);
        }
      };
      for (const { sql, lines } of await plansOf(() => getAccessLogStats(filters, now))) {
        for (const { detail } of lines) {
          onSearchIndex(sql, detail);
          if (detail.startsWith("SCAN access_logs")) expect(detail, `${label}: ${sql}`).toBe(WHOLE_TABLE_COUNT);
          // Unique cards come from index order; with a search only the groups are sorted, not the rows.
          if (!filters.search) expect(detail, `${label}: ${sql}`).not.toContain("TEMP B-TREE");
          else expect(detail, `${label}: ${sql}`).not.toContain("TEMP B-TREE FOR GROUP BY");
          // Without a door, the unique cards of a range are one range of a time index, not every card's counters.
          if (!filters.search && !filters.doorId && filters.dateRange !== "all") expect(detail, `${label}: ${sql}`).not.toMatch(/^SCAN access_log_card/);
        }
      }
      for (const { sql, lines } of await plansOf(() => listAccessLogs(filters, { limit: 50, offset: 100 }, now))) {
        for (const { detail, inPageIds } of lines) {
          onSearchIndex(sql, detail);
          // An index read in order that stops at the LIMIT is fine; the table itself is never scanned.
          expect(detail, `${label}: ${sql}`).not.toMatch(/^SCAN access_logs($| USING INDEX)/);
          // Only the 50 rows of the page are sorted; the page's ids come in index order.
          if (!filters.search && inPageIds) expect(detail, `${label}: ${sql}`).not.toContain("TEMP B-TREE");
          if (!filters.search && filters.doorId && detail.startsWith("SEARCH access_logs USING") && !detail.includes("PRIMARY KEY")) {
            expect(detail, `${label}: ${sql}`).toMatch(/access_logs_door/);
          }
        }
      }
    }
  });

  it("reads a search over a date range or at a door as index ranges of them, one per key, not every match of the log", async () => {
    for (const combination of combinations().filter((c) => (c.dateRange !== "all" || c.doorId) && ["ab", "mar"].includes(c.search))) {
      const filters = resolve(combination);
      const label = describeFilters(combination);
      // "ab" matches card numbers and usernames (two selects), "mar" usernames only.
      const branches = filters.search === "ab" ? 2 : 1;
      const plans = [
        ...(await plansOf(() => getAccessLogStats(filters, now))),
        ...(await plansOf(() => listAccessLogs(filters, { limit: 50, offset: 0 }, now))),
      ];
      for (const { sql, lines } of plans) {
        const rangeReads = lines.filter(({ detail }) =>
          filters.doorId
            ? // The username is in the index too: a search at a door never reads the table to check it.
              new RegExp(`USING COVERING INDEX access_logs_door_card_idx \\(door_id=\\? AND card_number=\\? AND access_granted=\\?${filters.dateRange === "all" ? "" : " AND timestamp>\\?"}\\)$`).test(detail)
            : /USING COVERING INDEX access_logs_(card|user)_idx \(.*timestamp>\?\)$/.test(detail),
        );
        // Stats read the matches once (and past the bound granted and denied apart): a multiple of the branches.
        expect(rangeReads.length, `${label}: ${sql}`).toBeGreaterThanOrEqual(branches);
        expect(rangeReads.length % branches, `${label}: ${sql}`).toBe(0);
      }
    }
  });

  it("reads a credential kind at a door through the kind and door index, for stats, pages and the export, with the same rows", async () => {
    for (const status of LOG_STATUSES)
      for (const dateRange of LOG_DATE_RANGES)
        for (const credentialKind of ["card", "pin"] as const) {
          const filters: LogFilters = { status, doorId: doors[0]!.id, dateRange, search: "", credentialKind };
          const label = `${describeFilters(filters)}/${credentialKind}`;
          const plans = [
            ...(await plansOf(() => getAccessLogStats(filters, now))),
            ...(await plansOf(() => listAccessLogs(filters, { limit: 50, offset: 0 }, now))).map((plan) => ({ ...plan, page: true })),
            ...(await plansOf(async () => {
              for await (const batch of streamAccessLogs(filters, { batchSize: 5, now })) if (batch.length) break;
            })),
          ];
          for (const { sql, lines, page } of plans as Array<(typeof plans)[number] & { page?: boolean }>) {
            for (const { detail, inPageIds } of lines) {
              if (detail.startsWith("SEARCH access_logs USING") && !detail.includes("PRIMARY KEY")) {
                expect(detail, `${label}: ${sql}`).toContain("access_logs_kind_door_idx (credential_kind=? AND door_id=?");
              }
              // Rows come in index order: only a page's 50 rows are sorted, and the
              // bounded unique-cards count its card numbers.
              if (!page || inPageIds) expect(detail, `${label}: ${sql}`).not.toMatch(/TEMP B-TREE FOR (ORDER|GROUP) BY/);
            }
          }
          // Every seeded row is a card's: the card filter keeps them all, PIN none.
          const rows = credentialKind === "card" ? expected(filters) : [];
          expect((await getAccessLogStats(filters, now)).total, label).toBe(rows.length);
          const page = await listAccessLogs(filters, { limit: 50, offset: 0 }, now);
          expect(page.map((row) => row.timestamp), label).toEqual(rows.slice(0, 50).map((row) => row.at));
          const streamed: number[] = [];
          for await (const batch of streamAccessLogs(filters, { batchSize: 37, now })) streamed.push(...batch.map((row) => row.timestamp));
          expect(streamed, label).toEqual(rows.map((row) => row.at));
        }
  });

  it("reads a search among PIN or QR rows from the kind indexes, not every card and user row of the prefix", async () => {
    for (const status of LOG_STATUSES)
      for (const dateRange of LOG_DATE_RANGES)
        for (const doorId of ["", doors[0]!.id])
          for (const search of ["mar", "ab"]) {
            const filters: LogFilters = { status, doorId, dateRange, search, credentialKind: "qr" };
            const label = `${describeFilters(filters)}/qr`;
            const plans = [
              ...(await plansOf(() => getAccessLogStats(filters, now))),
              ...(await plansOf(() => listAccessLogs(filters, { limit: 50, offset: 0 }, now))),
              ...(await plansOf(async () => {
                for await (const batch of streamAccessLogs(filters, { batchSize: 5, now })) if (batch.length) break;
              })),
            ];
            for (const { sql, lines } of plans) {
              for (const { detail } of lines) {
                if (detail.startsWith("SEARCH access_logs USING") && !detail.includes("PRIMARY KEY")) {
                  expect(detail, `${label}: ${sql}`).toMatch(doorId ? /access_logs_kind_door_idx \(credential_kind=\? AND door_id=\?/ : /access_logs_kind_idx \(credential_kind=\?/);
                }
                expect(detail, `${label}: ${sql}`).not.toMatch(/^SCAN access_logs($| USING INDEX)/);
              }
            }
            // The stats check the search from the kind index itself (it holds the card number and the username).
            for (const { sql, lines } of await plansOf(() => getAccessLogStats(filters, now))) {
              const reads = lines.filter(({ detail }) => /access_logs_kind(_door)?_idx/.test(detail));
              expect(reads.length, `${label}: ${sql}`).toBeGreaterThan(0);
              for (const { detail } of reads) expect(detail, `${label}: ${sql}`).toContain("USING COVERING INDEX");
            }
            // Every seeded row is a card's.
            expect(await getAccessLogStats(filters, now), label).toEqual({ total: 0, granted: 0, denied: 0, alarms: 0, uniqueCards: 0 });
            expect(await listAccessLogs(filters, { limit: 50, offset: 0 }, now), label).toEqual([]);
          }
  });

  it("exports in index order: no batch is sorted", async () => {
    for (const combination of combinations().filter((c) => ["", "mar"].includes(c.search))) {
      const filters = resolve(combination);
      const plans = await plansOf(async () => {
        for await (const batch of streamAccessLogs(filters, { batchSize: 5, now })) if (batch.length) break;
      });
      expect(plans.length).toBeGreaterThan(0);
      for (const { sql, lines } of plans) {
        for (const { detail } of lines) expect(detail, `${describeFilters(combination)}: ${sql}`).not.toContain("TEMP B-TREE");
      }
    }
  });
});

describe("dashboard figures", () => {
  it("reads the last 24 hours through the time index, not a whole door index", async () => {
    const plans = await plansOf(async () => {
      await getAccessActivity(now);
    });
    expect(plans).toHaveLength(1);
    for (const { sql, lines } of plans) {
      const details = lines.map((line) => line.detail).join(" | ");
      expect(details, sql).toContain("USING INDEX access_logs_timestamp_idx (timestamp>?");
      // The hours' counters by their hour range: walking access_log_hours_door_idx for the door order reads every hour of the log.
      expect(details, sql).toContain("SEARCH access_log_hours USING PRIMARY KEY (hour>?)");
      expect(details, sql).not.toContain("access_log_hours_door_idx");
    }
  });

  it("counts the last 24 hours per hour, oldest first, the current hour included", async () => {
    const { hourly: hours } = await getAccessActivity(now);
    expect(hours).toHaveLength(24);
    const currentHour = Math.floor(now.getTime() / HOUR) * HOUR;
    expect(hours[23]!.hourStart).toBe(new Date(currentHour).toISOString());
    expect(hours[0]!.hourStart).toBe(new Date(currentHour - 23 * HOUR).toISOString());
    for (const [index, hour] of hours.entries()) {
      const start = currentHour - (23 - index) * HOUR;
      const inHour = seeded.filter((row) => row.at >= start && row.at < start + HOUR);
      expect(hour.granted + hour.denied, hour.hourStart).toBe(inHour.length);
      expect(hour.granted, hour.hourStart).toBe(inHour.filter((row) => row.granted ?? true).length);
    }
    expect(hours.reduce((sum, hour) => sum + hour.granted + hour.denied, 0)).toBeGreaterThan(0);
  });

  it("counts the last 24 hours' rows per door, leaving out unknown doors, and in all", async () => {
    const since = now.getTime() - DAY;
    const { byDoor, total, granted } = await getAccessActivity(now);
    expect([...byDoor.keys()].sort()).toEqual(doors.map((door) => door.id).sort());
    for (const door of doors) {
      expect(byDoor.get(door.id)).toBe(seeded.filter((row) => row.doorId === door.id && row.at >= since).length);
    }
    const recent = seeded.filter((row) => row.at >= since);
    expect(total).toBe(recent.length);
    expect(granted).toBe(recent.filter((row) => row.granted ?? true).length);
  });
});
