// `npm run restore -- [--foreign] <archive>`: puts a backup back over DATA_DIR
// and the database of DATABASE_URL (app/services/backup-restore.server.ts),
// with no prompt. <archive> is a path (relative to where npm was run) or the
// name of an archive in BACKUP_DIR. It must be signed with this
// installation's key, unless --foreign (an archive of another installation,
// or one made before archives were signed). Exit status 0 when restored, 1
// when refused (the app is running, the archive is damaged or not signed,
// ...), 2 for a usage error.
import fs from "node:fs";
import path from "node:path";
import { restoreBackup } from "~/services/backup-restore.server";
import { backupDirectory } from "~/services/backups.server";
import { getEnv } from "~/utils/env.server";

async function main() {
  const all = process.argv.slice(2);
  const foreign = all.includes("--foreign");
  const args = all.filter((arg) => arg !== "--foreign");
  if (args.length !== 1 || args[0]!.startsWith("-")) {
    console.error(
      "Usage: npm run restore -- [--foreign] <archive.tar.gz>   (a path, or the name of an archive in BACKUP_DIR; --foreign: one not signed by this installation)",
    );
    return 2;
  }
  getEnv();
  const given = args[0]!;
  const fromCwd = path.resolve(process.env.INIT_CWD ?? process.cwd(), given);
  const archive = fs.existsSync(fromCwd) || given.includes("/") ? fromCwd : path.join(backupDirectory(), given);
  const result = await restoreBackup(archive, { foreign });
  if (!result.ok) {
    console.error(`Restore refused: ${result.message}`);
    return 1;
  }
  const { manifest } = result;
  console.info(`Restored ${archive}`);
  console.info(`  made ${manifest.createdAt} (${manifest.trigger}) by version ${manifest.appVersion}, last migration ${manifest.migration?.tag ?? "?"}`);
  console.info(
    result.signed
      ? "  signed by this installation; its audit trail verifies"
      : "  not signed by this installation (--foreign): its audit trail was checked for its links only, and this installation's key signs from the restore on",
  );
  console.info(`  data directory: ${result.dataDir}; database: ${result.databaseFile}`);
  console.info(result.aside ? `  the previous data is in ${result.aside}` : "  there was no previous data");
  console.info("Start the app: it applies any migration newer than the archive.");
  return 0;
}

try {
  process.exitCode = await main();
} catch (error) {
  console.error((error as Error).message ?? error);
  process.exitCode = 1;
}
