// Door alarms in the access log (issue 40, point 17): their own kind in the
// rows, the filters, the stats, the dashboard's figures and the CSV, never a
// grant or a denial.
import { describe, expect, it } from "vitest";
import { getAccessActivity, getAccessLogStats, listAccessLogs } from "~/models/access-log-query.server";
import { raiseDoorAlarm } from "~/models/door-alarm.server";
import type { LogFilters } from "~/schemas/access-log";
import { accessLogCsv } from "~/services/access-log-export.server";
import { createTestDoor, hexPrefix, insertLogs } from "../setup/fixtures";

const MINUTE = 60_000;

const atDoor = (doorId: string, status: LogFilters["status"] = "all"): LogFilters => ({ status, doorId, dateRange: "24h", search: "" });

async function csvOf(filters: LogFilters) {
  const download = accessLogCsv(filters);
  if (!("chunks" in download)) throw new Error("the export is a stream");
  let text = "";
  for await (const chunk of download.chunks) text += chunk;
  return text;
}

describe("door alarms in the access log", () => {
  it("are their own kind: in the default filter and the alarm filter, counted apart, never granted or denied", async () => {
    const door = await createTestDoor({ name: `Alarmas ${hexPrefix()}` });
    const now = Date.now();
    await insertLogs([
      { at: now - 3 * MINUTE, cardNumber: `${hexPrefix()}01`, door, granted: true },
      { at: now - 2 * MINUTE, cardNumber: `${hexPrefix()}02`, door, granted: false },
    ]);
    const before = await getAccessActivity(new Date());
    expect(await raiseDoorAlarm(door, "door_offline", new Date(now - MINUTE))).not.toBeNull();
    expect(await raiseDoorAlarm(door, "forced_open", new Date(now))).not.toBeNull();

    expect((await listAccessLogs(atDoor(door.id), { limit: 10, offset: 0 })).map((row) => [row.reason, row.outcome, row.accessGranted])).toEqual([
      ["forced_open", "alarm", false],
      ["door_offline", "alarm", false],
      ["no_permission", "denied", false],
      ["granted", "granted", true],
    ]);
    expect(await getAccessLogStats(atDoor(door.id))).toEqual({ total: 4, granted: 1, denied: 1, alarms: 2, uniqueCards: 2 });
    expect(await getAccessLogStats(atDoor(door.id, "denied"))).toEqual({ total: 1, granted: 0, denied: 1, alarms: 0, uniqueCards: 1 });
    expect(await getAccessLogStats(atDoor(door.id, "alarm"))).toEqual({ total: 2, granted: 0, denied: 0, alarms: 2, uniqueCards: 0 });
    expect((await listAccessLogs(atDoor(door.id, "alarm"), { limit: 10, offset: 0 })).map((row) => row.reason)).toEqual(["forced_open", "door_offline"]);
    // The whole log's figures (no door) too, and the dashboard's 24 hours: an alarm is no access attempt.
    const everywhere = await getAccessLogStats({ status: "alarm", doorId: "", dateRange: "all", search: "" });
    expect(everywhere.alarms).toBeGreaterThanOrEqual(2);
    expect(everywhere.denied).toBe(0);
    const after = await getAccessActivity(new Date());
    expect([after.total, after.granted]).toEqual([before.total, before.granted]);
    // The CSV says Alarma.
    const csv = await csvOf(atDoor(door.id, "alarm"));
    expect(csv.split("\r\n").filter((line) => line.includes('"Alarma"'))).toHaveLength(2);
    expect(csv).not.toContain('"Denegado"');
  });
});
