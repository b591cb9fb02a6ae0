// A backup signs nobody in (issue 40, point 8): the sessions table keeps the
// SHA-256 of each session's id (the cookie keeps the id), so the rows of a
// backup's database, signed with SESSION_SECRET into a cookie, open no
// session; archives are 0600 and hold no secret; the generated session
// secret lives in the key store beside DATA_DIR, not in it.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "libsql";
import * as tar from "tar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertSession, storedSessionId } from "~/models/session.server";
import { createBackup } from "~/services/backups.server";
import { getOptionalUser, requireAdmin, sessionCookieWith } from "~/utils/auth.server";
import { sha256 } from "~/utils/crypto.server";
import { getSessionSecret } from "~/utils/data-dir.server";
import { resetEnvForTests } from "~/utils/env.server";
import { keysDirectory } from "~/utils/keys.server";
import { createTestUser } from "../setup/fixtures";
import { callRoute } from "../setup/route";

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "session-hash-"));

function pageRequest(cookie: string) {
  return new Request("http://localhost/admin", { headers: { Cookie: cookie.split(";")[0]! } });
}

/** Who a cookie signs in, as a page's guard sees it: the user's id, or the refusal's status. */
async function signedInAs(cookie: string) {
  const response = await callRoute(async ({ request }: { request: Request }) => Response.json({ id: (await requireAdmin(request)).id }), pageRequest(cookie));
  return response.status === 200 ? ((await response.json()) as { id: string }).id : response.status;
}

beforeAll(() => {
  process.env.BACKUP_DIR = path.join(scratch, "backups");
  resetEnvForTests();
});

afterAll(() => {
  delete process.env.BACKUP_DIR;
  resetEnvForTests();
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe("sessions stored as a hash of their id", () => {
  it("a backup's session rows, signed with SESSION_SECRET, sign nobody in; the cookie's own id does", async () => {
    const admin = await createTestUser({ role: "admin" });
    const id = await insertSession(admin.id, new Date(Date.now() + 3_600_000));
    const cookie = await sessionCookieWith(id);
    expect(await signedInAs(cookie)).toBe(admin.id);

    const made = await createBackup("cli");
    if (!made.ok) throw new Error(made.message);
    const archive = path.join(process.env.BACKUP_DIR!, made.backup.name);
    expect(fs.statSync(archive).mode & 0o777).toBe(0o600);
    const entries: string[] = [];
    await tar.t({ file: archive, onReadEntry: (entry) => entries.push(entry.path) });
    expect(entries.filter((entry) => /secret|key/i.test(entry))).toEqual([]);

    const unpacked = path.join(scratch, "unpacked");
    fs.mkdirSync(unpacked);
    await tar.x({ file: archive, cwd: unpacked });
    const copy = new Database(path.join(unpacked, "app.db"));
    const stored = (copy.prepare("SELECT id FROM sessions WHERE user_id = ?").all(admin.id) as Array<{ id: string }>).map((row) => row.id);
    copy.close();
    expect(stored).toEqual([sha256(id)]);
    expect(stored).not.toContain(id);
    for (const row of stored) {
      const forged = await sessionCookieWith(row);
      expect(await signedInAs(forged)).toBe(302);
      await expect(getOptionalUser(pageRequest(forged))).rejects.toMatchObject({ status: 302 });
    }
    expect(storedSessionId(id)).toBe(stored[0]);
  });

  it("the migration ended the sessions stored in clear", () => {
    const migration = fs.readFileSync("drizzle/0026_sessions_hashed.sql", "utf8");
    expect(migration).toMatch(/DELETE FROM `sessions`/);
  });
});

describe("the generated session secret", () => {
  it("is kept in KEYS_DIR beside DATA_DIR, and one that older versions left in DATA_DIR is moved there", () => {
    const dataDir = path.join(scratch, "casa", "data");
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(path.join(dataDir, "session-secret"), "un-secreto-de-antes-con-bastante-longitud");
    const saved = { DATA_DIR: process.env.DATA_DIR, SESSION_SECRET: process.env.SESSION_SECRET, BACKUP_DIR: process.env.BACKUP_DIR };
    process.env.DATA_DIR = dataDir;
    delete process.env.SESSION_SECRET;
    delete process.env.BACKUP_DIR;
    resetEnvForTests();
    try {
      expect(getSessionSecret()).toBe("un-secreto-de-antes-con-bastante-longitud");
      expect(keysDirectory()).toBe(`${dataDir}-keys`);
      expect(fs.existsSync(path.join(dataDir, "session-secret"))).toBe(false);
      expect(fs.statSync(path.join(`${dataDir}-keys`, "session-secret")).mode & 0o777).toBe(0o600);
      expect(getSessionSecret()).toBe("un-secreto-de-antes-con-bastante-longitud");
    } finally {
      Object.assign(process.env, saved);
      resetEnvForTests();
    }
  });
});
