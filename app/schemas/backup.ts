// Backups (docs/operations.md, "Backups"): how an archive was made and what
// its name looks like. Browser-safe: the /admin/copias screen shows the labels.

export const BACKUP_TRIGGERS = ["scheduled", "manual", "cli"] as const;
export type BackupTrigger = (typeof BACKUP_TRIGGERS)[number];

export const BACKUP_TRIGGER_LABELS: Record<BackupTrigger, string> = {
  scheduled: "Programada",
  manual: "Manual",
  cli: "Línea de comandos",
};

/**
 * An archive's file name: "backup-", the UTC time it was made with colons and
 * the dot as dashes, how it was made, ".tar.gz"
 * (backup-2026-11-26T02-30-00-123Z-scheduled.tar.gz). Nothing else in the
 * backup folder is ever listed or served.
 */
export const BACKUP_NAME = /^backup-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z-(scheduled|manual|cli)\.tar\.gz$/;

export function backupName(createdAt: Date, trigger: BackupTrigger) {
  return `backup-${createdAt.toISOString().replace(/[:.]/g, "-")}-${trigger}.tar.gz`;
}

/** The time and trigger a name says; null for any other name. */
export function parseBackupName(name: string): { createdAt: Date; trigger: BackupTrigger } | null {
  const match = BACKUP_NAME.exec(name);
  if (!match) return null;
  const [, day, hours, minutes, seconds, millis, trigger] = match;
  const createdAt = new Date(`${day}T${hours}:${minutes}:${seconds}.${millis}Z`);
  return Number.isNaN(createdAt.getTime()) ? null : { createdAt, trigger: trigger as BackupTrigger };
}

/** "1,5 MB": an archive's size, in the units people read. */
export function formatBytes(bytes: number) {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  return `${value.toLocaleString("es-ES", { maximumFractionDigits: digits, minimumFractionDigits: digits })} ${units[unit]}`;
}
