// `npm run backup`: writes one backup archive into BACKUP_DIR (default
// $DATA_DIR/backups) with the same configuration as the app, whether the app
// runs or not (app/services/backups.server.ts). Exit status 0 when written,
// 1 otherwise (a remote database, another backup running, a failure).
import { BACKUP_TRIGGER_LABELS, formatBytes } from "~/schemas/backup";
import { backupDirectory, createBackup, databaseFile } from "~/services/backups.server";
import { getEnv } from "~/utils/env.server";

async function main() {
  const env = getEnv();
  if (!databaseFile()) {
    console.error(
      `DATABASE_URL (${env.DATABASE_URL.split("?")[0]}) is a remote libSQL database: backups of a remote database are the remote's job ` +
        "(its provider's backups or point-in-time restore). npm run backup copies a local file: database only.",
    );
    return 1;
  }
  const result = await createBackup("cli");
  if (!result.ok) {
    console.error(`No backup was made: ${result.message}`);
    return 1;
  }
  const { backup, removed } = result;
  console.info(`Backup written: ${backupDirectory()}/${backup.name} (${formatBytes(backup.sizeBytes)}, ${BACKUP_TRIGGER_LABELS[backup.trigger]})`);
  if (removed.length > 0) console.info(`Removed beyond BACKUP_KEEP=${env.BACKUP_KEEP}: ${removed.join(", ")}`);
  return 0;
}

try {
  process.exitCode = await main();
} catch (error) {
  console.error((error as Error).message ?? error);
  process.exitCode = 1;
}
