// The key store (docs/audit.md, "The key"): a folder outside DATA_DIR and
// outside every backup archive, KEYS_DIR (default: <DATA_DIR>-keys beside
// the data directory). It holds
//   audit-key       the audit trail's and the backups' HMAC key, generated
//                   once when AUDIT_KEY is not set;
//   audit-head.json the audit chain's head (last id and hash) as the app last
//                   wrote it: the verification compares the database with it,
//                   so events removed from the newest end are found;
//   session-secret  the session cookie's signing secret, generated once when
//                   SESSION_SECRET is not set (older versions kept it in
//                   DATA_DIR: it is moved here).
// Someone with the database file and a backup, but not this folder, can
// neither forge the trail nor pass a crafted archive off as this house's.
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { getEnv } from "./env.server";

export const AUDIT_KEY_FILE = "audit-key";
export const AUDIT_HEAD_FILE = "audit-head.json";
export const SESSION_SECRET_FILE = "session-secret";

function isInsideOrSame(parent: string, child: string) {
  const relative = path.relative(parent, child);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/** KEYS_DIR, or <DATA_DIR>-keys beside the data directory; never inside DATA_DIR or BACKUP_DIR. */
export function keysDirectory(): string {
  const env = getEnv();
  const dataDir = path.resolve(env.DATA_DIR);
  const dir = path.resolve(env.KEYS_DIR ?? `${dataDir}-keys`);
  const backups = path.resolve(env.BACKUP_DIR ?? path.join(dataDir, "backups"));
  for (const [name, folder] of [["DATA_DIR", dataDir], ["BACKUP_DIR", backups]] as const) {
    if (isInsideOrSame(folder, dir) || isInsideOrSame(dir, folder)) {
      throw new Error(`KEYS_DIR (${dir}) must lie outside ${name} (${folder}) and not contain it: the keys must never be copied with the data or its backups`);
    }
  }
  return dir;
}

export function keysPath(file: string) {
  return path.join(keysDirectory(), file);
}

/** Reads a secret file, or writes `make()` into it once (mode 0600; another process's wins a race). */
function readOrCreateSecret(file: string, make: () => string): string {
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    fs.writeFileSync(file, make(), { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return fs.readFileSync(file, "utf8").trim();
}

const masterKeys = new Map<string, Buffer>();

/**
 * The master key: AUDIT_KEY, else KEYS_DIR/audit-key. With `create`, the
 * file is generated when missing (the app); without it (audit:verify,
 * restore) a missing key answers null.
 */
export function auditMasterKey({ create }: { create: boolean }): Buffer | null {
  const fromEnv = getEnv().AUDIT_KEY;
  if (fromEnv) return Buffer.from(fromEnv, "utf8");
  const file = keysPath(AUDIT_KEY_FILE);
  const known = masterKeys.get(file);
  if (known) return known;
  let text: string;
  if (create) text = readOrCreateSecret(file, () => crypto.randomBytes(32).toString("hex"));
  else {
    try {
      text = fs.readFileSync(file, "utf8").trim();
    } catch {
      return null;
    }
  }
  if (text.length < 32) throw new Error(`${file} holds no usable key (fewer than 32 characters)`);
  const key = Buffer.from(text, "utf8");
  masterKeys.set(file, key);
  return key;
}

/** A key of its own for each use, derived from the master key. */
function derived(master: Buffer, purpose: string) {
  return crypto.createHmac("sha256", master).update(`coliving:${purpose}:v1`).digest();
}

/** The audit chain's HMAC key. */
export function auditChainKey({ create }: { create: boolean }): Buffer | null {
  const master = auditMasterKey({ create });
  return master && derived(master, "audit-chain");
}

/** The backup manifests' HMAC key and its public id (which installation signed an archive). */
export function backupSigningKey({ create }: { create: boolean }): { key: Buffer; keyId: string } | null {
  const master = auditMasterKey({ create });
  if (!master) return null;
  return { key: derived(master, "backup-manifest"), keyId: derived(master, "key-id").toString("hex").slice(0, 16) };
}

/** SESSION_SECRET, or one generated once in KEYS_DIR (moved there from DATA_DIR, where older versions kept it). */
export function sessionSecret(): string {
  const fromEnv = getEnv().SESSION_SECRET;
  if (fromEnv) return fromEnv;
  const file = keysPath(SESSION_SECRET_FILE);
  const old = path.resolve(getEnv().DATA_DIR, SESSION_SECRET_FILE);
  if (!fs.existsSync(file) && fs.existsSync(old)) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    try {
      fs.writeFileSync(file, fs.readFileSync(old, "utf8").trim(), { mode: 0o600, flag: "wx" });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    fs.rmSync(old, { force: true });
  }
  return readOrCreateSecret(file, () => crypto.randomBytes(32).toString("hex"));
}

// ---- The chain's published head ----

/** One database's head as published: its newest event's id and hash, and when it was written. */
export type PublishedHead = { database: string; id: number; hash: string; at: string };
type HeadFile = Record<string, { id: number; hash: string; at: string }>;

/** Which database a head belongs to: DATABASE_URL without its options, a file as its absolute path. */
export function databaseIdentity(url = getEnv().DATABASE_URL) {
  const bare = url.split("?")[0]!;
  return bare.startsWith("file:") ? `file:${path.resolve(bare.slice("file:".length))}` : bare;
}

/** The heads file: one head per database (a key store may serve a test's or a moved database too). */
function readHeadFile(): HeadFile {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(keysPath(AUDIT_HEAD_FILE), "utf8"));
    return parsed && typeof parsed === "object" ? (parsed as HeadFile) : {};
  } catch {
    return {};
  }
}

/** The head published for this database, or null (none yet). */
export function readPublishedHead(database = databaseIdentity()): PublishedHead | null {
  const head = readHeadFile()[database];
  if (!head || !Number.isSafeInteger(head.id) || typeof head.hash !== "string") return null;
  return { database, id: head.id, hash: head.hash, at: String(head.at ?? "") };
}

async function writeHead(database: string, head: { id: number; hash: string } | null, { forwardOnly }: { forwardOnly: boolean }) {
  const heads = readHeadFile();
  const current = heads[database];
  if (forwardOnly && head && current && current.id >= head.id) return;
  if (head) heads[database] = { id: head.id, hash: head.hash, at: new Date().toISOString() };
  else delete heads[database];
  const file = keysPath(AUDIT_HEAD_FILE);
  await fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const draft = `${file}.${process.pid}.${crypto.randomUUID()}`;
  await fsp.writeFile(draft, `${JSON.stringify(heads, null, 2)}\n`, { mode: 0o600 });
  await fsp.rename(draft, file);
}

let publishing: Promise<void> = Promise.resolve();
const highest = new Map<string, number>();

/**
 * Publishes the chain's head after a commit: only ever forward (a head
 * below the one in the file, written by a slower commit of this or another
 * process, is left out), one write at a time in this process.
 */
export function publishHead(head: { id: number; hash: string }, database = databaseIdentity()): Promise<void> {
  if ((highest.get(database) ?? -1) >= head.id) return publishing;
  highest.set(database, head.id);
  const write = async () => {
    if (highest.get(database) !== head.id) return; // a later head of this process took over
    await writeHead(database, head, { forwardOnly: true });
  };
  publishing = publishing.then(write, write);
  return publishing;
}

/** Replaces the published head (a restore puts an older chain back), or removes it. */
export async function replacePublishedHead(head: { id: number; hash: string } | null, database = databaseIdentity()) {
  await publishing.catch(() => {});
  if (head) highest.set(database, head.id);
  else highest.delete(database);
  await writeHead(database, head, { forwardOnly: false });
}
