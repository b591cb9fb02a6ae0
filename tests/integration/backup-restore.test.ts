// Backups that restore, as the house relies on them: `npm run backup` taken
// during a burst of bookings, door swipes and photo reports holds every write
// acknowledged before it began, and `npm run restore` puts it back where it
// starts, migrates and serves them (the real scripts as child processes, the
// real access service on its embedded broker, real libSQL files). A damaged
// archive, one that lies about its files, one whose database is broken or
// from a newer version is refused and changes nothing; so is a restore while
// the app runs on the data directory. What the admin screen and the API do:
// backups.test.ts.
import { eventually } from "../../bridge/src/test-support/eventually";
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { inArray, sql } from "drizzle-orm";
import * as tar from "tar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleTs } from "../../scripts/lib/run-ts.mjs";
import { accessLogs } from "~/db/schema";
import { issueApiToken } from "~/models/api-token.server";
import * as bookingsApi from "~/routes/api.user-portal.bookings";
import * as cardApi from "~/routes/api.cards.$id";
import * as photoApi from "~/routes/api.user-portal.incidents.$id.photos.$name";
import { createResidentBooking } from "~/services/facility-bookings.server";
import { reportResidentIncident } from "~/services/resident-incidents.server";
import { getDb, migrateDatabase, openDatabase, type Database } from "~/utils/db.server";
import { getEnv, resetEnvForTests } from "~/utils/env.server";
import { FakeBridge } from "../setup/access";
import { runScript, type ScriptRun } from "../setup/processes";
import { RestartableAccessService } from "../setup/door-chain";
import {
  bookingRequest,
  createTestCard,
  createTestDoorWithBridge,
  createTestFacility,
  createTestResident,
  createTestUser,
  hexPrefix,
  minutesFromNow,
  TINY_PNG,
  unique,
} from "../setup/fixtures";
import { callApi, callRoute, jsonRequest } from "../setup/route";

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "restore-"));
// The scripts bundled once (as `npm run backup` / `restore` bundle them each time), where their packages resolve.
const bundles = path.resolve("node_modules", ".cache", "coliving-tests");
const entries = { backup: path.join(bundles, `backup-${process.pid}.mjs`), restore: path.join(bundles, `restore-${process.pid}.mjs`) };
const journal = () => (JSON.parse(fs.readFileSync("drizzle/meta/_journal.json", "utf8")) as { entries: Array<{ tag: string; when: number }> }).entries;

type Run = ScriptRun;
const run = runScript;

/** The environment of an app whose data directory is `dir` (database inside it unless given). */
function dataEnv(dir: string, database = path.join(dir, "app.db")) {
  return { DATA_DIR: dir, DATABASE_URL: `file:${database}`, BACKUP_DIR: path.join(dir, "backups") };
}

/** Every file and folder under `dir` with the SHA-256 of each file: what "nothing changed" compares. */
function tree(dir: string): Record<string, string> {
  const result: Record<string, string> = {};
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const name = path.join(relative, entry.name);
      if (entry.isDirectory()) {
        result[`${name}/`] = "dir";
        walk(name);
      } else result[name] = createHash("sha256").update(fs.readFileSync(path.join(dir, name))).digest("hex");
    }
  };
  walk("");
  return result;
}

/** What lies beside a data directory (restore leftovers, aside copies). */
const siblings = (dir: string) => fs.readdirSync(path.dirname(dir)).filter((name) => name.startsWith(`${path.basename(dir)}.`));

function archiveOf(result: Run) {
  const written = /^Backup written: (.+\.tar\.gz) \(/m.exec(result.stdout)?.[1];
  if (result.code !== 0 || !written) throw new Error(`npm run backup failed (${result.code}):\n${result.stdout}\n${result.stderr}`);
  return written;
}

/** Unpacks an archive, lets `change` alter the files, packs it again as a backup would be. */
async function repack(archive: string, name: string, change: (dir: string) => void | Promise<void>) {
  const dir = path.join(scratch, `${name}.d`);
  fs.mkdirSync(dir);
  await tar.x({ file: archive, cwd: dir });
  await change(dir);
  const file = path.join(scratch, `${name}.tar.gz`);
  await tar.c({ gzip: true, cwd: dir, file, portable: true }, fs.readdirSync(dir));
  return file;
}

function rewriteManifestEntry(dir: string, file: string) {
  const manifestFile = path.join(dir, "manifest.json");
  const manifest = JSON.parse(fs.readFileSync(manifestFile, "utf8")) as { files: Array<{ path: string; size: number; sha256: string }> };
  const bytes = fs.readFileSync(path.join(dir, file));
  const entry = manifest.files.find((candidate) => candidate.path === file)!;
  entry.size = bytes.length;
  entry.sha256 = createHash("sha256").update(bytes).digest("hex");
  fs.writeFileSync(manifestFile, JSON.stringify(manifest));
}

/** A process that holds the database open, as the app (or a separate access service) does, until killed. */
async function holdDatabaseOpen(file: string) {
  const child = spawn(
    process.execPath,
    [
      "-e",
      // As the app opens it: WAL, then reads.
      `const c = require("@libsql/client").createClient({ url: process.argv[1] });
       c.execute("PRAGMA journal_mode = WAL").then(() => c.execute("SELECT count(*) FROM users")).then(() => console.log("open"));
       setInterval(() => {}, 1e6);`,
      `file:${file}`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()));
  return child;
}

let goodArchive: string;
/** A data directory of its own that the refused restores must leave alone. */
let target: string;
let resident: Awaited<ReturnType<typeof createTestResident>>;
let photoIncident: { id: string; photo: string };

beforeAll(async () => {
  await bundleTs("scripts/backup.ts", entries.backup);
  await bundleTs("scripts/restore.ts", entries.restore);
  resident = await createTestResident();
  const reported = await reportResidentIncident(resident, { title: "Persiana rota", category: "other", location: "Salón", description: "No baja", priority: "low" }, [
    { filename: "persiana.png", bytes: TINY_PNG },
  ]);
  if (!reported.ok) throw new Error(reported.message);
  photoIncident = { id: reported.incident._id, photo: reported.incident.photos[0]!.split("/").pop()! };
  goodArchive = archiveOf(await run(entries.backup, [], { BACKUP_DIR: path.join(scratch, "archives") }));

  target = path.join(scratch, "casa", "data");
  const first = await run(entries.restore, [goodArchive], dataEnv(target));
  expect(first.code, first.stderr).toBe(0);
  expect(first.stdout).toContain("there was no previous data");
  fs.mkdirSync(path.join(target, "backups"));
  fs.writeFileSync(path.join(target, "backups", "LEEME.txt"), "copias");
  fs.writeFileSync(path.join(target, "session-secret"), "secreto-de-antes");
}, 120_000);

afterAll(() => {
  fs.rmSync(scratch, { recursive: true, force: true });
  for (const entry of Object.values(entries)) fs.rmSync(entry, { force: true });
});

describe("a refused restore changes nothing", () => {
  async function expectRefused(archive: string, message: RegExp, env: Record<string, string> = dataEnv(target), flags: string[] = []) {
    const before = tree(target);
    const result = await run(entries.restore, [...flags, archive], env);
    expect(result.code, result.stdout).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain("Nothing was changed");
    expect(tree(target)).toEqual(before);
    expect(siblings(target)).toEqual([]);
  }

  it("a damaged archive: one flipped byte", async () => {
    const bytes = fs.readFileSync(goodArchive);
    bytes[Math.floor(bytes.length / 2)]! ^= 0x5a;
    const damaged = path.join(scratch, "flipped.tar.gz");
    fs.writeFileSync(damaged, bytes);
    await expectRefused(damaged, /The archive is damaged or is not a \.tar\.gz backup/);
  });

  it("a photo that does not match its checksum, entries a backup never has, a broken database", async () => {
    const badPhoto = await repack(goodArchive, "bad-photo", (dir) => {
      const photo = path.join(dir, "uploads", "incidents", photoIncident.photo);
      const bytes = fs.readFileSync(photo);
      bytes[bytes.length - 1]! ^= 1;
      fs.writeFileSync(photo, bytes);
    });
    await expectRefused(badPhoto, new RegExp(`The archive is damaged: uploads/incidents/${photoIncident.photo} does not match its checksum`));

    const withLink = await repack(goodArchive, "with-link", (dir) => fs.symlinkSync("/etc/passwd", path.join(dir, "uploads", "incidents", "x.png")));
    await expectRefused(withLink, /entries a backup never has: uploads\/incidents\/x\.png \(SymbolicLink\)/);

    const unlisted = await repack(goodArchive, "unlisted", (dir) => fs.writeFileSync(path.join(dir, "uploads", "incidents", "extra.png"), TINY_PNG));
    await expectRefused(unlisted, /uploads\/incidents\/extra\.png is not in the manifest/);

    const brokenDatabase = await repack(goodArchive, "broken-db", (dir) => {
      const file = path.join(dir, "app.db");
      const bytes = fs.readFileSync(file);
      // Scribble over the b-tree pages past the schema page; the manifest is made to agree.
      for (let offset = 2 * 4096; offset < bytes.length - 4096; offset += 4096) bytes.fill(0xa5, offset + 8, offset + 64);
      fs.writeFileSync(file, bytes);
      rewriteManifestEntry(dir, "app.db");
    });
    // Its manifest was rewritten, so its signature no longer holds (backup-crafted.test.ts): --foreign takes it on to the database check.
    await expectRefused(brokenDatabase, /The archive's database (fails PRAGMA integrity_check|cannot be opened)/, dataEnv(target), ["--foreign"]);

    const noManifest = await repack(goodArchive, "no-manifest", (dir) => fs.rmSync(path.join(dir, "manifest.json")));
    await expectRefused(noManifest, /has no valid manifest\.json/);
  });

  it("while the app runs on the data directory: its claim, or the database open in another process", async () => {
    fs.mkdirSync(path.join(target, "running"));
    const claim = path.join(target, "running", `${process.pid}.json`);
    fs.writeFileSync(claim, JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString(), port: "3000" }));
    await expectRefused(goodArchive, new RegExp(`The app is running on ${target} \\(pid ${process.pid}, port 3000`));
    fs.rmSync(path.join(target, "running"), { recursive: true });

    // No claim, but another process has the database open (a separate access service, a sqlite3 shell).
    const holder = await holdDatabaseOpen(path.join(target, "app.db"));
    try {
      await expectRefused(goodArchive, /The database .*app\.db is open in another process/);
    } finally {
      holder.kill();
      await new Promise((resolve) => holder.once("exit", resolve));
    }
  });

  it("npm run backup says plainly that a remote database is the remote's job, and exits non-zero", async () => {
    const result = await run(entries.backup, [], { DATABASE_URL: "libsql://casona.example.turso.io", BACKUP_DIR: path.join(scratch, "remote") });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("backups of a remote database are the remote's job");
    expect(fs.existsSync(path.join(scratch, "remote"))).toBe(false);
  });
});

describe("a restore that goes through", () => {
  it("ignores a claim left by a dead process, moves the old data aside and keeps the backups folder in place", async () => {
    const old = tree(target);
    fs.mkdirSync(path.join(target, "running"));
    const deadPid = Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout);
    fs.writeFileSync(path.join(target, "running", `${deadPid}.json`), "{}");
    // Run from another directory with the archive's name only: it is looked up in BACKUP_DIR.
    fs.copyFileSync(goodArchive, path.join(target, "backups", path.basename(goodArchive)));
    const result = await run(entries.restore, [path.basename(goodArchive)], { ...dataEnv(target), INIT_CWD: os.tmpdir() });
    expect(result.code, result.stderr).toBe(0);
    const aside = /the previous data is in (.+)$/m.exec(result.stdout)?.[1];
    expect(aside).toMatch(new RegExp(`^${target}\\.before-restore-\\d{4}-\\d{2}-\\d{2}T[\\d-]+Z$`));
    expect(siblings(target)).toEqual([path.basename(aside!)]);
    // The aside copy is the old directory but for its backups folder, which stayed.
    // (Without the -wal and -shm files the earlier test's holder left: the check that nobody has the
    // database open opens it, and SQLite folds a leftover WAL into the database then, as any start does.)
    const withoutJournal = (files: Record<string, string>) => Object.fromEntries(Object.entries(files).filter(([name]) => !/-(wal|shm)$/.test(name)));
    const kept = Object.fromEntries(Object.entries(withoutJournal(old)).filter(([name]) => !name.startsWith("backups")));
    const emptyClaim = createHash("sha256").update("{}").digest("hex");
    expect(withoutJournal(tree(aside!))).toEqual({ ...kept, "running/": "dir", [`running/${deadPid}.json`]: emptyClaim });
    expect(fs.readdirSync(path.join(target, "backups")).sort()).toEqual(["LEEME.txt", path.basename(goodArchive)].sort());
    expect(fs.existsSync(path.join(target, "session-secret"))).toBe(false);
    expect(fs.readFileSync(path.join(target, "uploads", "incidents", photoIncident.photo)).equals(TINY_PNG)).toBe(true);
  });

  it("an archive from an older version restores and the next start applies the newer migrations; one from a newer version is refused", async () => {
    const known = journal();
    const older = path.join(scratch, "older");
    const migrations = path.join(scratch, "older-migrations");
    fs.cpSync("drizzle", migrations, { recursive: true });
    const journalFile = path.join(migrations, "meta", "_journal.json");
    const withoutLast = JSON.parse(fs.readFileSync(journalFile, "utf8")) as { entries: unknown[] };
    withoutLast.entries.pop();
    fs.writeFileSync(journalFile, JSON.stringify(withoutLast));
    const olderDb = openDatabase(`file:${path.join(older, "app.db")}`);
    await migrateDatabase(olderDb, migrations);
    olderDb.$client.close();
    const olderArchive = archiveOf(await run(entries.backup, [], dataEnv(older)));

    // Restored into a new directory, with the database kept elsewhere (DATABASE_URL outside DATA_DIR).
    const restored = path.join(scratch, "newer-host", "data");
    const database = path.join(scratch, "newer-host", "db", "casona.db");
    const result = await run(entries.restore, [olderArchive], dataEnv(restored, database));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`last migration ${known.at(-2)!.tag}`);
    expect(fs.existsSync(path.join(restored, "app.db"))).toBe(false);
    const db = openDatabase(`file:${database}`);
    try {
      const lastApplied = async () => Number((await db.$client.execute("SELECT max(created_at) AS at FROM __drizzle_migrations")).rows[0]!.at);
      expect(await lastApplied()).toBe(known.at(-2)!.when);
      await migrateDatabase(db, path.resolve("drizzle"));
      expect(await lastApplied()).toBe(known.at(-1)!.when);
      // From a newer version: a migration this code does not know.
      await db.$client.execute({ sql: "INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('de-una-version-futura', ?)", args: [known.at(-1)!.when + 86_400_000] });
    } finally {
      db.$client.close();
    }
    const newerArchive = archiveOf(await run(entries.backup, [], dataEnv(restored, database)));
    const refused = await run(entries.restore, [newerArchive], dataEnv(path.join(scratch, "old-host")));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/made by a newer version of the app .* Update the app first/);
    expect(fs.existsSync(path.join(scratch, "old-host"))).toBe(false);
  });
});

describe("a backup under load", () => {
  it("holds every booking, swipe and photo acknowledged before it began; restored, it starts and serves them", async () => {
    const access = new RestartableAccessService();
    await access.start();
    const code = `bk-${hexPrefix(2).toLowerCase()}`;
    const { door, password } = await createTestDoorWithBridge(code);
    const cardNumber = `0B${hexPrefix(3)}`;
    const { card } = await createTestCard(cardNumber, [door.id], { firstName: "Berta" });
    const facility = await createTestFacility("meeting-room");
    const bridge = await FakeBridge.connect(`mqtt://127.0.0.1:${access.port}`, code, password);

    type Ack = { id: string; at: number };
    type Resident = Awaited<ReturnType<typeof createTestResident>>;
    // A resident per booking and per incident: each stays inside the per-resident quotas.
    const acked = { swipes: [] as Ack[], bookings: [] as Array<Ack & { resident: Resident }>, photos: [] as Array<Ack & { incident: string; resident: Resident }> };
    let stop = false;
    const firstSlot = minutesFromNow(120);
    const burst = [
      (async () => {
        for (let i = 0; !stop; i += 1) {
          const id = `burst-${unique()}-${i}`;
          const decision = await bridge.swipe(cardNumber, { id });
          if (!decision.granted) throw new Error(`swipe ${id} denied`);
          acked.swipes.push({ id, at: Date.now() });
        }
      })(),
      (async () => {
        // Each booking arrives as a request would: after the event loop turns (libsql answers
        // a file database synchronously, so a bare loop would never let the timers run).
        for (let i = 0; !stop && i < 1000; i += 1) {
          await new Promise((resolve) => setTimeout(resolve, 2));
          const booker = await createTestResident();
          const booked = await createResidentBooking(booker, bookingRequest(facility.id, "meeting-room", new Date(firstSlot.getTime() + i * 3_600_000), 1));
          if (booked.ok) acked.bookings.push({ id: booked.booking._id, at: Date.now(), resident: booker });
        }
      })(),
      (async () => {
        for (let i = 0; !stop && i < 30; i += 1) {
          const reporter = await createTestResident();
          const reported = await reportResidentIncident(reporter, { title: `Grifo ${i}`, category: "plumbing", location: "Baño", description: "Gotea", priority: "medium" }, [
            { filename: "grifo.png", bytes: TINY_PNG },
          ]);
          if (!reported.ok) throw new Error(reported.message);
          acked.photos.push({ id: reported.incident.photos[0]!.split("/").pop()!, incident: reported.incident._id, at: Date.now(), resident: reporter });
        }
      })(),
    ];
    let restoredDir = "";
    const original = { DATA_DIR: process.env.DATA_DIR!, DATABASE_URL: process.env.DATABASE_URL! };
    try {
      await eventually(() => acked.swipes.length >= 20 && acked.bookings.length >= 10 && acked.photos.length >= 3, "the first acknowledged writes", 20_000);
      // Everything acknowledged up to now must be in the backup; the burst goes on while it runs.
      const before = { swipes: [...acked.swipes], bookings: [...acked.bookings], photos: [...acked.photos] };
      const backup = await run("scripts/backup.mjs", [], { BACKUP_DIR: path.join(scratch, "burst") });
      stop = true;
      await Promise.all(burst);
      const archive = archiveOf(backup);
      const duringBackup = acked.swipes.length - before.swipes.length;
      expect(duringBackup, "swipes recorded while the backup ran").toBeGreaterThan(0);

      restoredDir = path.join(scratch, "burst-restored", "data");
      const restored = await run("scripts/restore.mjs", [archive], dataEnv(restoredDir));
      expect(restored.code, restored.stderr).toBe(0);

      // The restored data, started as the app starts: open, migrate, serve.
      await bridge.end();
      await access.stop();
      getDb().$client.close();
      Object.assign(process.env, { DATA_DIR: restoredDir, DATABASE_URL: `file:${path.join(restoredDir, "app.db")}` });
      resetEnvForTests();
      (globalThis as { __db?: Database }).__db = undefined;
      await migrateDatabase(getDb(), path.resolve("drizzle"));
      expect(getEnv().DATA_DIR).toBe(restoredDir);

      const swipeIds = before.swipes.map((swipe) => swipe.id);
      const storedSwipes = await getDb().select({ id: accessLogs.id }).from(accessLogs).where(inArray(accessLogs.id, swipeIds));
      expect(storedSwipes.map((row) => row.id).sort()).toEqual(swipeIds.sort());

      for (const booking of before.bookings) {
        const bookings = await callApi(bookingsApi.loader, "/api/user-portal/bookings", { token: (await issueApiToken(booking.resident.id)).token });
        expect(bookings.status).toBe(200);
        expect((bookings.body.data as Array<{ _id: string }>).map((row) => row._id), booking.id).toContain(booking.id);
      }

      for (const photo of before.photos) {
        const residentToken = (await issueApiToken(photo.resident.id)).token;
        const served = await callRoute(
          photoApi.loader,
          jsonRequest(`/api/user-portal/incidents/${photo.incident}/photos/${photo.id}`, { headers: { Authorization: `Bearer ${residentToken}` } }),
          { id: photo.incident, name: photo.id },
        );
        expect(served.status).toBe(200);
        expect(Buffer.from(await served.arrayBuffer()).equals(TINY_PNG)).toBe(true);
      }

      const admin = await createTestUser({ role: "admin" });
      const cardJson = await callApi(cardApi.loader, `/api/cards/${card.id}`, { token: (await issueApiToken(admin.id)).token, params: { id: card.id } });
      expect(cardJson).toMatchObject({ status: 200, body: { data: { card: { _id: card.id, cardNumber, status: "active", permissions: [{ doorId: door.code, granted: true }] } } } });

      // The door opens for the card on the restored data: the access service starts on it, the bridge's credential still holds.
      const restoredAccess = new RestartableAccessService();
      await restoredAccess.start();
      const restoredBridge = await FakeBridge.connect(`mqtt://127.0.0.1:${restoredAccess.port}`, code, password);
      try {
        expect(await restoredBridge.swipe(cardNumber)).toMatchObject({ granted: true, display: { line1: "Hola, Berta" } });
      } finally {
        await restoredBridge.end();
        await restoredAccess.stop();
      }
      const count = await getDb().select({ n: sql<number>`count(*)` }).from(accessLogs);
      expect(count[0]!.n).toBeGreaterThanOrEqual(before.swipes.length + 1);
    } finally {
      stop = true;
      await Promise.allSettled(burst);
      await bridge.end();
      await access.stop();
      if (getEnv().DATA_DIR !== original.DATA_DIR) {
        getDb().$client.close();
        Object.assign(process.env, original);
        resetEnvForTests();
        (globalThis as { __db?: Database }).__db = undefined;
      }
    }
  }, 120_000);
});
