// A search matching more rows than the count's bound (LOG_COUNT_BOUND): the
// stats say "more than" for the figures past it, the pages are a lower bound
// ('Página X de más de Y'), and the pages still list the right rows, newest
// first, read in time order. Below the bound, and without a search, every
// figure stays exact (logs-query.test.ts checks those against a recount).
import { beforeAll, describe, expect, it } from "vitest";
import { issueApiToken } from "~/models/api-token.server";
import * as logsRoute from "~/routes/api.logs";
import * as page from "~/routes/admin.logs";
import { LOG_COUNT_BOUND } from "~/schemas/access-log";
import { getAccessLogStats, listAccessLogs } from "~/models/access-log-query.server";
import { getAccessLogPage } from "~/services/access-log-review.server";
import { callRoute, jsonRequest } from "../setup/route";
import { createTestDoor, createTestUser, insertLogs, sessionCookie } from "../setup/fixtures";

const now = Date.now();
let token: string;
let cookie: string;
/** The matching rows' timestamps, newest first. */
let matching: number[];

beforeAll(async () => {
  const admin = await createTestUser({ username: "bound-admin", role: "admin" });
  token = (await issueApiToken(admin.id)).token;
  cookie = await sessionCookie(admin.id);
  const door = await createTestDoor({ name: "Portal" });
  // Granted rows past the bound, a few denied ones, and rows the search does not match in between.
  const seeds = Array.from({ length: LOG_COUNT_BOUND + 200 }, (_, i) => ({
    at: now - 3_600_000 + i * 300,
    cardNumber: `B0${String(i % 40).padStart(2, "0")}`,
    username: i % 3 === 2 ? "otra.persona" : "bulto.vecina",
    door,
    granted: i % 100 !== 7,
  }));
  await insertLogs(seeds);
  matching = seeds.filter((seed) => seed.username === "bulto.vecina").map((seed) => seed.at).sort((a, b) => b - a);
  expect(matching.length).toBeGreaterThan(LOG_COUNT_BOUND / 2);
}, 60_000);

describe("a search past the count's bound", () => {
  it("says which figures are lower bounds, and lists the pages in time order", async () => {
    // The username and the card prefix "B0" together match every row.
    const result = await getAccessLogPage({ status: "all", doorId: "", dateRange: "24h", search: "b" }, { page: 3, limit: 50 });
    expect(result.stats.moreThan).toEqual(["total", "granted", "uniqueCards"]);
    expect(result.stats).toMatchObject({ total: LOG_COUNT_BOUND, granted: LOG_COUNT_BOUND });
    expect(result.stats.denied).toBe(Math.ceil((LOG_COUNT_BOUND + 200 - 7) / 100));
    expect(result.pagesMoreThan).toBe(true);
    expect(result.pages).toBe(LOG_COUNT_BOUND / 50);
    // "b" matches every row (their card numbers start with B0).
    expect(result.rows.map((row) => row.timestamp)).toEqual(
      Array.from({ length: LOG_COUNT_BOUND + 200 }, (_, i) => now - 3_600_000 + i * 300).sort((a, b) => b - a).slice(100, 150),
    );
  });

  it("keeps the exact figures under the bound", async () => {
    const result = await getAccessLogPage({ status: "all", doorId: "", dateRange: "24h", search: "bulto" }, { page: 2, limit: 50 });
    expect(result.stats.moreThan).toBeUndefined();
    expect(result.stats.total).toBe(matching.length);
    expect(result.pagesMoreThan).toBe(false);
    expect(result.rows.map((row) => row.timestamp)).toEqual(matching.slice(50, 100));
  });

  it("answers the API with stats.moreThan and pagesMoreThan, and the screen with 'más de'", async () => {
    const api = await callRoute(logsRoute.loader, jsonRequest("/api/logs?search=b&page=203", { headers: { Authorization: `Bearer ${token}` } }));
    const body = await api.json();
    expect(body.data).toMatchObject({ total: LOG_COUNT_BOUND, pages: LOG_COUNT_BOUND / 50, pagesMoreThan: true, page: 203 });
    expect(body.data.logs).toHaveLength(50);
    expect(body.data.stats.moreThan).toContain("total");

    const screen = await callRoute(page.loader, new Request("http://localhost/admin/logs?search=b&page=201", { headers: { Cookie: cookie } }));
    const data = await screen.json();
    expect(data).toMatchObject({ page: 201, pages: LOG_COUNT_BOUND / 50, pagesMoreThan: true, rowCount: 50 });
  });
});

describe("pages in the older half of a filtered set", () => {
  it("are read from the oldest end and hold the same rows", async () => {
    for (const filters of [
      { status: "all", doorId: "", dateRange: "24h", search: "" },
      { status: "denied", doorId: "", dateRange: "all", search: "" },
    ] as const) {
      const { total } = await getAccessLogStats(filters);
      expect(total).toBeGreaterThan(0);
      for (const offset of [0, Math.floor(total / 2) + 1, total - 50, total - 7, total]) {
        const fromNewest = await listAccessLogs(filters, { limit: 50, offset });
        const fromOldest = await listAccessLogs(filters, { limit: 50, offset }, new Date(), { total });
        expect(fromOldest.map((row) => row.id), `${filters.status} offset ${offset}`).toEqual(fromNewest.map((row) => row.id));
      }
    }
  });
});
