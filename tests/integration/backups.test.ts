// Backups as the admin makes and fetches them: /admin/copias (the list,
// 'Crear copia ahora', the download), its JSON twin /api/backups, rotation
// (BACKUP_KEEP), the daily schedule, a failure (recorded, shown, sent to the
// staff) and one backup at a time. Real archives of this file's real libSQL
// database, each test in a backup folder of its own. What an archive holds
// and how it restores: backup-restore.test.ts.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as tar from "tar";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import * as page from "~/routes/admin.copias";
import * as downloadRoute from "~/routes/admin.copias.$name";
import * as apiList from "~/routes/api.backups";
import * as apiDownload from "~/routes/api.backups.$name";
import { BACKUP_NAME } from "~/schemas/backup";
import {
  backupStatus,
  createBackup,
  listBackups,
  nextBackupTime,
  runScheduledBackup,
  scheduleDailyBackups,
} from "~/services/backups.server";
import { getEnv, resetEnvForTests } from "~/utils/env.server";
import { mailSubject } from "../setup/mime";
import { eventually } from "../../bridge/src/test-support/eventually";
import { createApiCallers, sessionCookie, toastOf } from "../setup/fixtures";
import { callApi, callRoute, formPost, jsonRequest, pageRequest } from "../setup/route";

let adminToken: string;
let residentToken: string;
let adminCookie: string;
let residentCookie: string;
let backupDir: string;

beforeAll(async () => {
  const callers = await createApiCallers();
  ({ adminToken, residentToken } = callers);
  adminCookie = await sessionCookie(callers.admin.id);
  residentCookie = await sessionCookie(callers.resident.id);
});

beforeEach(() => {
  backupDir = fs.mkdtempSync(path.join(os.tmpdir(), "backups-"));
  process.env.BACKUP_DIR = backupDir;
  resetEnvForTests();
});

afterEach(() => {
  for (const name of ["BACKUP_DIR", "BACKUP_KEEP", "BACKUP_HOUR"]) delete process.env[name];
  resetEnvForTests();
});

async function made(trigger: "manual" | "cli" = "cli") {
  const result = await createBackup(trigger);
  if (!result.ok) throw new Error(result.message);
  return result.backup;
}

async function loadPage() {
  return (await (await callRoute(page.loader, pageRequest("/admin/copias", adminCookie))).json()) as Awaited<ReturnType<typeof page.loader>>;
}

/** The staff notices in the outbox whose subject is `subject`. */
function outboxSubjects() {
  const outbox = path.join(getEnv().DATA_DIR, "outbox");
  return (fs.existsSync(outbox) ? fs.readdirSync(outbox) : []).map((file) => mailSubject(fs.readFileSync(path.join(outbox, file), "utf8")));
}

describe("/admin/copias", () => {
  it("'Crear copia ahora' makes an archive (Post/Redirect/Get with a toast), listed newest first with its date, size and how it was made", async () => {
    expect((await loadPage()).backups).toEqual([]);
    const earlier = await made("cli");

    const response = await callRoute(page.action, formPost("/admin/copias", adminCookie, { intent: "create-backup" }));
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/admin/copias");
    const toast = await toastOf(response);
    expect(toast).toMatchObject({ type: "success", title: "Copia de seguridad creada" });

    const { backups, failure, settings } = await loadPage();
    expect(failure).toBeNull();
    expect(settings).toEqual({ directory: backupDir, hour: "03:30", keep: 14, remoteDatabase: false });
    expect(backups.map((backup) => backup.trigger)).toEqual(["manual", "cli"]);
    expect(backups[1]!.name).toBe(earlier.name);
    expect(toast?.description).toContain(backups[0]!.name);
    for (const backup of backups) {
      expect(backup.name).toMatch(BACKUP_NAME);
      expect(backup.sizeBytes).toBe(fs.statSync(path.join(backupDir, backup.name)).size);
      expect(Date.now() - Date.parse(backup.createdAt)).toBeLessThan(60_000);
    }
  });

  it("refuses a form without the intent, and a resident never reaches it", async () => {
    expect((await callRoute(page.action, formPost("/admin/copias", adminCookie, { intent: "nada" }))).status).toBe(400);
    const resident = await callRoute(page.action, formPost("/admin/copias", residentCookie, { intent: "create-backup" }));
    expect(resident.status).toBe(302);
    expect(resident.headers.get("Location")).toBe("/");
    expect(await listBackups()).toEqual([]);
  });

  it("downloads a listed archive to an admin only, with no-store; any other name is a 404", async () => {
    const backup = await made();
    const response = await callRoute(downloadRoute.loader, pageRequest(`/admin/copias/${backup.name}`, adminCookie), { name: backup.name });
    expect(response.status).toBe(200);
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    expect(response.headers.get("Content-Type")).toBe("application/gzip");
    expect(response.headers.get("Content-Disposition")).toBe(`attachment; filename="${backup.name}"`);
    expect(Buffer.from(await response.arrayBuffer()).equals(fs.readFileSync(path.join(backupDir, backup.name)))).toBe(true);

    const asResident = await callRoute(downloadRoute.loader, pageRequest(`/admin/copias/${backup.name}`, residentCookie), { name: backup.name });
    expect(asResident.status).toBe(302);
    const anonymous = await callRoute(downloadRoute.loader, new Request(`http://localhost/admin/copias/${backup.name}`), { name: backup.name });
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get("Location")).toMatch(/^\/login/);

    // Files beside the archives, names that look like one, and paths out of the folder.
    fs.writeFileSync(path.join(backupDir, "notas.txt"), "no");
    fs.mkdirSync(path.join(backupDir, backup.name.replace("-cli", "-manual")));
    const others = ["notas.txt", backup.name.replace("-cli", "-manual"), backup.name.replace("Z-", "Z-x"), "../app.db", `../${path.basename(backupDir)}/${backup.name}`, "..", ""];
    for (const name of others) {
      const refused = await callRoute(downloadRoute.loader, pageRequest(`/admin/copias/x`, adminCookie), { name });
      expect(refused.status, name).toBe(404);
      expect(await refused.json()).toEqual({ success: false, error: { message: "Copia de seguridad no encontrada" } });
    }
  });
});

describe("/api/backups", () => {
  it("GET lists the archives and POST makes one (201), for admins only", async () => {
    expect(await callApi(apiList.loader, "/api/backups", { token: null })).toMatchObject({ status: 401 });
    expect(await callApi(apiList.loader, "/api/backups", { token: residentToken })).toMatchObject({ status: 403 });
    expect(await callApi(apiList.action, "/api/backups", { method: "POST", token: residentToken })).toMatchObject({ status: 403 });
    expect((await callApi(apiList.action, "/api/backups", { method: "DELETE", token: adminToken })).status).toBe(405);
    expect(await listBackups()).toEqual([]);

    const created = await callApi(apiList.action, "/api/backups", { method: "POST", token: adminToken });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ trigger: "manual", name: expect.stringMatching(BACKUP_NAME), sizeBytes: expect.any(Number) });

    const listed = await callApi(apiList.loader, "/api/backups", { token: adminToken });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual({
      backups: [created.body.data],
      lastFailure: null,
      settings: { directory: backupDir, hour: "03:30", keep: 14, remoteDatabase: false },
    });

    const name = created.body.data.name as string;
    const download = await callRoute(apiDownload.loader, jsonRequest(`/api/backups/${name}`, { headers: { Authorization: `Bearer ${adminToken}` } }), { name });
    expect(download.status).toBe(200);
    expect(download.headers.get("Cache-Control")).toBe("no-store");
    expect((await download.arrayBuffer()).byteLength).toBe(created.body.data.sizeBytes);
    const residents = await callRoute(apiDownload.loader, jsonRequest(`/api/backups/${name}`, { headers: { Authorization: `Bearer ${residentToken}` } }), { name });
    expect(residents.status).toBe(403);
    expect((await callApi(apiDownload.loader, "/api/backups/x", { token: adminToken, params: { name: "../app.db" } })).status).toBe(404);
  });
});

describe("rotation, failures, one at a time", () => {
  it("keeps the newest BACKUP_KEEP archives and leaves other files alone", async () => {
    process.env.BACKUP_KEEP = "2";
    resetEnvForTests();
    fs.writeFileSync(path.join(backupDir, "LEEME.txt"), "copias de la casa");
    const first = await made();
    const second = await made();
    expect((await listBackups()).map((backup) => backup.name)).toEqual([second.name, first.name]);
    const third = await createBackup("manual");
    expect(third.ok && third.removed).toEqual([first.name]);
    const fourth = await made();
    expect((await listBackups()).map((backup) => backup.name)).toEqual([fourth.name, third.ok ? third.backup.name : ""]);
    expect(fs.readdirSync(backupDir).sort()).toEqual(["LEEME.txt", fourth.name, third.ok ? third.backup.name : ""].sort());
    expect(await backupStatus()).toMatchObject({ lastSuccessAt: fourth.createdAt, lastSuccessSizeBytes: fourth.sizeBytes });
  });

  it("a failed backup is recorded, shown on the screen, answered with an error toast and sent to the staff", async () => {
    // A backup folder that cannot be made: its path is a file.
    const blocked = path.join(backupDir, "no-es-carpeta");
    fs.writeFileSync(blocked, "");
    process.env.BACKUP_DIR = path.join(blocked, "copias");
    resetEnvForTests();
    const before = outboxSubjects().length;

    const response = await callRoute(page.action, formPost("/admin/copias", adminCookie, { intent: "create-backup" }));
    expect(response.status).toBe(302);
    expect(await toastOf(response)).toMatchObject({ type: "error", title: "No se pudo crear la copia de seguridad", description: expect.stringContaining("ENOTDIR") });

    const { failure, backups } = await loadPage();
    expect(backups).toEqual([]);
    expect(failure).toMatchObject({ trigger: "manual", message: expect.stringContaining("ENOTDIR") });
    expect(Date.now() - Date.parse(failure!.at)).toBeLessThan(60_000);
    expect((await backupStatus()).lastFailureAt?.toISOString()).toBe(failure!.at);
    const notices = outboxSubjects().slice(before);
    expect(notices).toContain("Copia de seguridad fallida");

    // The API says the same, with a 500.
    const api = await callApi(apiList.action, "/api/backups", { method: "POST", token: adminToken });
    expect(api.status).toBe(500);
    expect(api.body.error.message).toMatch(/^No se pudo crear la copia de seguridad: .*ENOTDIR/);

    // A later good backup is listed after it: the failure stays, as history.
    process.env.BACKUP_DIR = backupDir;
    resetEnvForTests();
    const good = await made();
    const after = await loadPage();
    expect(after.backups[0]!.name).toBe(good.name);
    expect(after.failure).not.toBeNull();
    expect(after.backups[0]!.createdAt > after.failure!.at).toBe(true);
  });

  it("makes one backup at a time per folder; a lock left by a dead process does not block", async () => {
    const [a, b] = await Promise.all([createBackup("manual"), createBackup("manual")]);
    const refused = [a, b].filter((result) => !result.ok);
    expect(refused).toEqual([{ ok: false, status: 409, message: "Ya se está haciendo una copia de seguridad. Espera a que termine." }]);
    expect(await listBackups()).toHaveLength(1);

    const deadPid = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout;
    fs.writeFileSync(path.join(backupDir, ".backup.lock"), JSON.stringify({ pid: Number(deadPid), at: new Date().toISOString() }));
    fs.mkdirSync(path.join(backupDir, ".partial-left-by-a-crash.tar.gz.d"));
    fs.writeFileSync(path.join(backupDir, `.backup.lock.${deadPid}.draft-left-by-a-crash`), "{}");
    expect((await createBackup("manual")).ok).toBe(true);
    expect(fs.readdirSync(backupDir).filter((name) => name.startsWith("."))).toEqual([]);
  });

  it("refuses to copy a remote database: its backups are the remote's job", async () => {
    const local = process.env.DATABASE_URL;
    process.env.DATABASE_URL = "libsql://casona.example.turso.io";
    resetEnvForTests();
    try {
      expect(await createBackup("manual")).toEqual({
        ok: false,
        status: 409,
        message: "La base de datos es remota (DATABASE_URL no es file:): sus copias de seguridad son tarea del servidor remoto",
      });
      expect(scheduleDailyBackups()).toBeNull();
    } finally {
      process.env.DATABASE_URL = local;
      resetEnvForTests();
    }
    expect(fs.readdirSync(backupDir)).toEqual([]);
  });

  it("the archive holds the manifest, the database and the photos folder", async () => {
    const backup = await made();
    const entries: string[] = [];
    await tar.t({ file: path.join(backupDir, backup.name), onReadEntry: (entry) => entries.push(entry.path) });
    expect(entries.slice(0, 3)).toEqual(["manifest.json", "app.db", "uploads/"]);
  });
});

describe("the daily schedule", () => {
  it("makes a 'Programada' backup when the building's clock reaches BACKUP_HOUR, once per day whatever the number of processes", async () => {
    process.env.BACKUP_HOUR = "03:30";
    resetEnvForTests();
    const slot = nextBackupTime(new Date(), "03:30");
    // A clock that reaches the slot 50 ms from now.
    const offset = slot.getTime() - Date.now() - 50;
    const schedule = scheduleDailyBackups({ now: () => new Date(Date.now() + offset) })!;
    const second = scheduleDailyBackups({ now: () => new Date(Date.now() + offset) })!;
    try {
      const [scheduled] = await eventually(async () => {
        const list = await listBackups();
        return list.length > 0 ? list : null;
      }, "the scheduled backup", 15_000);
      expect(scheduled).toMatchObject({ trigger: "scheduled", createdAt: slot });
      // The other process finds its slot done (or the backup running) and makes none.
      expect(await runScheduledBackup(slot)).toBeNull();
      expect(await eventually(async () => (fs.readdirSync(backupDir).some((name) => name.startsWith(".")) ? null : listBackups()))).toHaveLength(1);
    } finally {
      schedule.stop();
      second.stop();
    }
  });

  it("plans the next BACKUP_HOUR in Europe/Madrid, across both summer-time changes", () => {
    const at = (iso: string, time = "03:30") => nextBackupTime(new Date(iso), time).toISOString();
    expect(at("2026-01-15T10:00:00Z")).toBe("2026-01-16T02:30:00.000Z");
    expect(at("2026-01-15T02:29:00Z")).toBe("2026-01-15T02:30:00.000Z");
    expect(at("2026-07-15T10:00:00Z")).toBe("2026-07-16T01:30:00.000Z");
    // 29 March 2026: 02:00 becomes 03:00 (+1 → +2).
    expect(at("2026-03-28T12:00:00Z")).toBe("2026-03-29T01:30:00.000Z");
    expect(at("2026-03-28T12:00:00Z", "02:30")).toBe("2026-03-29T01:30:00.000Z");
    // 25 October 2026: 03:00 becomes 02:00 (+2 → +1).
    expect(at("2026-10-24T12:00:00Z")).toBe("2026-10-25T02:30:00.000Z");
    expect(at("2026-10-25T02:30:00Z")).toBe("2026-10-26T02:30:00.000Z");
    expect(at("2026-12-31T23:59:00Z", "00:00")).toBe("2027-01-01T23:00:00.000Z");
  });
});
