// Crafted archives through `npm run restore` (issue 40, point 7), as someone
// who can write to the backups folder (a compromised NAS) but has not the
// installation's key would make them: an extra admin with a trigger that
// promotes every new user and no audit triggers; no `doors` table; a size
// bomb; odd owners and modes. Each is refused (and changes nothing) unless it
// is signed by this installation and holds exactly the schema the migrations
// make with a chain that verifies; `--foreign` takes an archive of another
// installation, checked for all but the key. Real archives of this file's
// database, real restore processes, real libSQL files.
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "libsql";
import * as tar from "tar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleTs } from "../../scripts/lib/run-ts.mjs";
import { createBackup, signManifest } from "~/services/backups.server";
import { resetEnvForTests } from "~/utils/env.server";
import { recordTestEvents } from "../setup/audit";
import { createTestUser, unique } from "../setup/fixtures";
import { runScript } from "../setup/processes";

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "crafted-"));
const bundles = path.resolve("node_modules", ".cache", "coliving-tests");
const restoreEntry = path.join(bundles, `restore-crafted-${process.pid}.mjs`);
const verifyEntry = path.resolve("scripts", "audit-verify.mjs");

const run = runScript;

/** A data directory of its own, that does not exist yet. */
function newHome() {
  const dir = path.join(scratch, `home-${unique()}`, "data");
  return { dir, env: { DATA_DIR: dir, DATABASE_URL: `file:${path.join(dir, "app.db")}`, BACKUP_DIR: path.join(dir, "backups") } };
}

async function makeArchive(key?: string) {
  const saved = process.env.AUDIT_KEY;
  if (key) process.env.AUDIT_KEY = key;
  process.env.BACKUP_DIR = path.join(scratch, `archives-${unique()}`);
  resetEnvForTests();
  try {
    const made = await createBackup("cli");
    if (!made.ok) throw new Error(made.message);
    return path.join(process.env.BACKUP_DIR, made.backup.name);
  } finally {
    process.env.AUDIT_KEY = saved;
    delete process.env.BACKUP_DIR;
    resetEnvForTests();
  }
}

function rewriteManifestEntry(dir: string, file: string) {
  const manifestFile = path.join(dir, "manifest.json");
  const manifest = JSON.parse(fs.readFileSync(manifestFile, "utf8")) as { files: Array<{ path: string; size: number; sha256: string }> };
  const bytes = fs.readFileSync(path.join(dir, file));
  let entry = manifest.files.find((candidate) => candidate.path === file);
  if (!entry) manifest.files.push((entry = { path: file, size: 0, sha256: "" }));
  entry.size = bytes.length;
  entry.sha256 = createHash("sha256").update(bytes).digest("hex");
  fs.writeFileSync(manifestFile, JSON.stringify(manifest));
}

/** Unpacks an archive, lets `change` alter the files (the database through a plain SQLite connection), packs it again. */
async function craft(archive: string, change: (dir: string) => void | Promise<void>, { portable = true }: { portable?: boolean } = {}) {
  const dir = path.join(scratch, `crafted-${unique()}`);
  fs.mkdirSync(dir);
  await tar.x({ file: archive, cwd: dir });
  await change(dir);
  const file = `${dir}.tar.gz`;
  await tar.c({ gzip: true, cwd: dir, file, portable }, fs.readdirSync(dir));
  return file;
}

function withDatabase(dir: string, sql: (db: Database.Database) => void) {
  const db = new Database(path.join(dir, "app.db"));
  try {
    sql(db);
  } finally {
    db.close();
  }
  rewriteManifestEntry(dir, "app.db");
}

async function expectRefused(archive: string, message: RegExp, flags: string[] = []) {
  const home = newHome();
  const result = await run(restoreEntry, [...flags, archive], home.env);
  expect(result.code, result.stdout).toBe(1);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).toContain("Nothing was changed");
  // Nothing written beside it either: no data directory, no staging, no key store.
  expect(fs.readdirSync(path.dirname(home.dir))).toEqual([]);
}

let goodArchive: string;

beforeAll(async () => {
  await bundleTs("scripts/restore.ts", restoreEntry);
  const admin = await createTestUser({ role: "admin", username: `jefa-${unique()}` });
  await recordTestEvents(admin, "192.0.2.40", [
    { action: "door.update", entityType: "door", entityId: "portal", summary: "editó la puerta Portal" },
    { action: "room.update", entityType: "room", entityId: "hab-1", summary: "editó la habitación 1" },
  ]);
  goodArchive = await makeArchive();
}, 60_000);

afterAll(() => {
  fs.rmSync(scratch, { recursive: true, force: true });
  fs.rmSync(restoreEntry, { force: true });
});

describe("a crafted archive is refused", () => {
  it("an extra admin, a trigger that promotes every new user, no audit triggers: unsigned, and with --foreign, not the migrations' schema", async () => {
    const crafted = await craft(goodArchive, (dir) =>
      withDatabase(dir, (db) => {
        db.exec(`INSERT INTO users (id, username, email, password_hash, role, status, first_name)
                 SELECT 'intrusa', 'intrusa', 'intrusa@example.com', password_hash, 'admin', 'active', 'Intrusa' FROM users LIMIT 1`);
        db.exec("CREATE TRIGGER promote_everyone AFTER INSERT ON users BEGIN UPDATE users SET role = 'admin' WHERE id = NEW.id; END");
        db.exec("DROP TRIGGER audit_events_no_update; DROP TRIGGER audit_events_no_delete");
      }),
    );
    await expectRefused(crafted, /The archive's signature does not match its manifest: the archive was changed after it was made\. .*--foreign/);
    await expectRefused(
      crafted,
      /The archive's database schema is not the one the migrations make: (?=.*no trigger audit_events_no_delete)(?=.*no trigger audit_events_no_update)(?=.*an extra trigger promote_everyone)/,
      ["--foreign"],
    );
  });

  it("an archive without the doors table", async () => {
    const crafted = await craft(goodArchive, (dir) => withDatabase(dir, (db) => db.exec("PRAGMA foreign_keys = OFF; DROP TABLE doors")));
    await expectRefused(crafted, /schema is not the one the migrations make: .*no table doors/, ["--foreign"]);
  });

  it("a size bomb: 64 MiB of zeros in an archive of a few hundred KB, before a byte of it is written", async () => {
    const crafted = await craft(goodArchive, (dir) => {
      const bomb = path.join(dir, "uploads", "incidents", "bomba.png");
      fs.mkdirSync(path.dirname(bomb), { recursive: true });
      fs.writeFileSync(bomb, "");
      fs.truncateSync(bomb, 64 * 1024 * 1024);
      // The manifest lists it as small.
      const manifestFile = path.join(dir, "manifest.json");
      const manifest = JSON.parse(fs.readFileSync(manifestFile, "utf8")) as { files: Array<{ path: string; size: number; sha256: string }> };
      manifest.files.push({ path: "uploads/incidents/bomba.png", size: 68, sha256: "0".repeat(64) });
      fs.writeFileSync(manifestFile, JSON.stringify(manifest));
    });
    expect(fs.statSync(crafted).size).toBeLessThan(1024 * 1024);
    await expectRefused(crafted, /The archive's signature does not match its manifest/);
    await expectRefused(crafted, /The archive is damaged: uploads\/incidents\/bomba\.png does not match its checksum/, ["--foreign"]);
  });

  it("a signed archive whose audit trail was edited before the backup was made", async () => {
    const crafted = await craft(goodArchive, (dir) => {
      withDatabase(dir, (db) => {
        const trigger = (db.prepare("SELECT sql FROM sqlite_master WHERE name = 'audit_events_no_update'").get() as { sql: string }).sql;
        db.exec("DROP TRIGGER audit_events_no_update");
        db.exec("UPDATE audit_events SET summary = 'admin no hizo nada' WHERE id = (SELECT min(id) FROM audit_events)");
        db.exec(trigger);
      });
      // Signed by this installation, as its nightly backup of a tampered database would be.
      fs.writeFileSync(path.join(dir, "manifest.sig"), JSON.stringify(signManifest(fs.readFileSync(path.join(dir, "manifest.json")))));
    });
    await expectRefused(crafted, /The archive's audit trail does not verify: it breaks at event \d+ \(hash\)/);
  });
});

describe("an archive that restores", () => {
  it("one of this installation with odd owners and modes: unpacked with no owner, no setuid bit, 0644/0755", async () => {
    const photo = `rara-${unique()}.png`;
    const crafted = await craft(
      goodArchive,
      (dir) => {
        const file = path.join(dir, "uploads", "incidents", photo);
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, "PNG");
        fs.chmodSync(file, 0o6777);
        fs.chmodSync(path.dirname(file), 0o1777);
        if (process.getuid?.() === 0) fs.chownSync(file, 4321, 4321);
        rewriteManifestEntry(dir, `uploads/incidents/${photo}`);
        fs.writeFileSync(path.join(dir, "manifest.sig"), JSON.stringify(signManifest(fs.readFileSync(path.join(dir, "manifest.json")))));
      },
      { portable: false },
    );
    const home = newHome();
    const result = await run(restoreEntry, [crafted], home.env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("signed by this installation; its audit trail verifies");
    const restored = fs.statSync(path.join(home.dir, "uploads", "incidents", photo));
    expect(restored.mode & 0o7777).toBe(0o644);
    expect(fs.statSync(path.join(home.dir, "uploads", "incidents")).mode & 0o7777).toBe(0o755);
    expect(restored.uid).toBe(process.getuid?.());
    // The restored chain, and its new head beside the key, verify.
    const verified = await run(verifyEntry, [], home.env);
    expect(verified.code, verified.stderr).toBe(0);
  });

  it("one of another installation: refused, then with --foreign restored, its trail re-anchored on this key", async () => {
    const foreign = await makeArchive("another-installation-audit-key-0123456789");
    await expectRefused(foreign, /The archive was signed by another installation \(key [0-9a-f]{16}; this one's is [0-9a-f]{16}\)/);
    const home = newHome();
    const result = await run(restoreEntry, ["--foreign", foreign], home.env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("not signed by this installation (--foreign)");
    const db = new Database(path.join(home.dir, "app.db"));
    const last = db.prepare("SELECT action, actor_username AS actor, after FROM audit_events ORDER BY id DESC LIMIT 2").all() as Array<{ action: string; actor: string; after: string }>;
    db.close();
    expect(last.map((row) => row.action)).toEqual(["backup.restore", "audit.key"]);
    expect(JSON.parse(last[1]!.after)).toMatchObject({ foreign: true });
    const verified = await run(verifyEntry, [], home.env);
    expect(verified.code, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout).data.ok).toBe(true);
  });
});
