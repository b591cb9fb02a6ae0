// Exports leave a trace (issue 40, point 9): each CSV export (the access log,
// the audit trail) records one event once its download is over, with who,
// the filters and how many rows were sent (`complete: false` when the client
// went away first); making a backup and downloading one record theirs.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, desc, eq } from "drizzle-orm";
import { auditEvents } from "~/db/schema";
import * as auditExport from "~/routes/api.audit.export";
import * as backupsApi from "~/routes/api.backups";
import * as backupDownload from "~/routes/api.backups.$name";
import * as logsExport from "~/routes/api.logs.export";
import { getDb } from "~/utils/db.server";
import { resetEnvForTests } from "~/utils/env.server";
import { recordTestEvents } from "../setup/audit";
import { createApiCallers, unique } from "../setup/fixtures";
import { callApi, callRoute, jsonRequest } from "../setup/route";

let callers: Awaited<ReturnType<typeof createApiCallers>>;
const backupDir = fs.mkdtempSync(path.join(os.tmpdir(), "export-events-"));

beforeAll(async () => {
  callers = await createApiCallers();
  process.env.BACKUP_DIR = backupDir;
  resetEnvForTests();
});

afterAll(() => {
  delete process.env.BACKUP_DIR;
  resetEnvForTests();
  fs.rmSync(backupDir, { recursive: true, force: true });
});

async function lastEventOf(action: string) {
  const [event] = await getDb().select().from(auditEvents).where(and(eq(auditEvents.action, action))).orderBy(desc(auditEvents.id)).limit(1);
  return event ? { ...event, after: JSON.parse(event.after!) as Record<string, unknown> } : null;
}

function get(route: { loader: (args: never) => unknown }, url: string) {
  return callRoute(route.loader as never, jsonRequest(url, { headers: { Authorization: `Bearer ${callers.adminToken}` } }));
}

/** The CSV's data lines (the header and the final line break left out). */
function dataLines(text: string) {
  return text.split("\r\n").slice(1, -1);
}

describe("a CSV export", () => {
  it("of the audit trail: recorded once sent, with the admin, the filters and the rows", async () => {
    const tag = `exp-${unique()}`;
    await recordTestEvents(callers.admin, "192.0.2.60", [1, 2, 3].map((i) => ({ action: "door.update" as const, entityType: "door" as const, entityId: `${tag}-${i}`, summary: `editó la puerta ${tag}-${i}` })));
    const response = await get(auditExport, `/api/audit/export?format=csv&search=${tag}`);
    expect(await lastEventOf("audit.export")).toBeNull();
    const lines = dataLines(await response.text());
    expect(lines).toHaveLength(3);
    const event = await lastEventOf("audit.export");
    expect(event).toMatchObject({
      actorId: callers.admin.id,
      actorUsername: callers.admin.username,
      actorRole: "admin",
      entityType: "audit",
      summary: `${callers.admin.username} exportó 3 eventos de auditoría en CSV`,
      after: { format: "csv", rows: 3, complete: true, filters: { search: tag } },
    });
  });

  it("of the access log: recorded with its rows; a download the client leaves halfway says so", async () => {
    const response = await get(logsExport, `/api/logs/export?export=csv&status=denied`);
    const lines = dataLines(await response.text());
    expect(await lastEventOf("access_log.export")).toMatchObject({
      actorUsername: callers.admin.username,
      entityType: "access_log",
      after: { format: "csv", rows: lines.length, complete: true, filters: { status: "denied" } },
    });

    const left = await get(auditExport, `/api/audit/export?format=csv`);
    const reader = left.body!.getReader();
    await reader.read();
    await reader.cancel();
    expect(await lastEventOf("audit.export")).toMatchObject({ after: { complete: false, rows: 0 } });
    expect((await lastEventOf("audit.export"))!.summary).toMatch(/exportó 0 eventos de auditoría en CSV \(descarga interrumpida\)$/);
  });
});

describe("backups", () => {
  it("making one and downloading it each leave an event with the admin, the archive and its size", async () => {
    const made = await callApi(backupsApi.action, "/api/backups", { method: "POST", token: callers.adminToken, body: {} });
    expect(made.status).toBe(201);
    const name = (made.body.data as { backup: { name: string } }).backup?.name ?? (made.body.data as { name: string }).name;
    expect(await lastEventOf("backup.create")).toMatchObject({
      actorUsername: callers.admin.username,
      entityType: "backup",
      entityId: name,
      after: { name, trigger: "manual", files: expect.any(Number), sizeBytes: expect.any(Number) },
    });

    const download = await callRoute(backupDownload.loader as never, jsonRequest(`/api/backups/${name}`, { headers: { Authorization: `Bearer ${callers.adminToken}` } }), { name });
    expect(download.status).toBe(200);
    await download.arrayBuffer();
    expect(await lastEventOf("backup.download")).toMatchObject({
      actorUsername: callers.admin.username,
      entityId: name,
      summary: expect.stringMatching(new RegExp(`descargó la copia de seguridad ${name.replace(/\./g, "\\.")}`)),
      after: { name, sizeBytes: fs.statSync(path.join(backupDir, name)).size },
    });
  });
});
