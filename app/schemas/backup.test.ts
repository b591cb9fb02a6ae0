import { describe, expect, it } from "vitest";
import { backupName, formatBytes, parseBackupName } from "./backup";

describe("backup names", () => {
  it("say the UTC time and how the archive was made, and read back", () => {
    const at = new Date("2026-11-26T02:30:00.123Z");
    const name = backupName(at, "scheduled");
    expect(name).toBe("backup-2026-11-26T02-30-00-123Z-scheduled.tar.gz");
    expect(parseBackupName(name)).toEqual({ createdAt: at, trigger: "scheduled" });
  });

  it("read nothing else: other files, paths, near misses", () => {
    for (const name of [
      "backup-2026-11-26T02-30-00-123Z-scheduled.tar",
      "backup-2026-11-26T02-30-00-123Z-otra.tar.gz",
      "../backup-2026-11-26T02-30-00-123Z-manual.tar.gz",
      "backup-2026-11-26T02-30-00-123Z-manual.tar.gz/x",
      "backup-2026-13-45T02-30-00-123Z-manual.tar.gz",
      ".partial-backup-2026-11-26T02-30-00-123Z-manual.tar.gz",
    ]) {
      expect(parseBackupName(name), name).toBeNull();
    }
  });

  it("sizes read as people read them", () => {
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(9586)).toBe("9,4 KB");
    expect(formatBytes(1.5 * 1024 * 1024)).toBe("1,5 MB");
    expect(formatBytes(250 * 1024 * 1024)).toBe("250 MB");
  });
});
