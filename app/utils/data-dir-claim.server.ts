// Which processes run the app on a data directory. Each web process writes
// <DATA_DIR>/running/<pid>.json at start and removes it when it exits;
// `npm run restore` refuses while any of them names a live process. A file
// left by a process that was killed (SIGKILL, a power cut) names a dead pid
// and is ignored. The restore also tries to lock the database itself
// (isDatabaseInUse in app/models/database-snapshot.server.ts), which catches
// any other process that has it open.
import fs from "node:fs";
import path from "node:path";

export type DataDirClaim = { pid: number; startedAt: string; port: string | null; file: string };

function claimsDirectory(dataDir: string) {
  return path.join(path.resolve(dataDir), "running");
}

/** Marks `dataDir` as used by this process until it exits. */
export function claimDataDir(dataDir: string) {
  const directory = claimsDirectory(dataDir);
  fs.mkdirSync(directory, { recursive: true });
  const file = path.join(directory, `${process.pid}.json`);
  fs.writeFileSync(file, JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString(), port: process.env.PORT ?? null }));
  process.once("exit", () => fs.rmSync(file, { force: true }));
}

/** Whether a process with this pid exists (EPERM: it does, under another user). */
export function isProcessAlive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The claims on `dataDir` whose process is alive. */
export function liveDataDirClaims(dataDir: string): DataDirClaim[] {
  const directory = claimsDirectory(dataDir);
  let names: string[];
  try {
    names = fs.readdirSync(directory);
  } catch {
    return [];
  }
  const claims: DataDirClaim[] = [];
  for (const name of names) {
    const pid = Number(/^(\d+)\.json$/.exec(name)?.[1]);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || !isProcessAlive(pid)) continue;
    const file = path.join(directory, name);
    let details: Partial<DataDirClaim> = {};
    try {
      details = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<DataDirClaim>;
    } catch {
      // written by a process that died halfway: the pid in the name is enough
    }
    claims.push({ pid, startedAt: String(details.startedAt ?? "?"), port: details.port ?? null, file });
  }
  return claims;
}
