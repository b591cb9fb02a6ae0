import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createMigratedBase } from "./test-db";

/**
 * Once per run: a scratch directory that every test's temp files go into
 * (TMPDIR, which os.tmpdir() reads, is inherited by the test processes) and
 * that goes away at the end, then the migrated base database in it.
 */
export default async function setup() {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "coliving-vitest-"));
  process.env.TMPDIR = scratch;
  await createMigratedBase(path.join(scratch, "coliving-tests", "vitest", "base.db"));
  return () => fs.rmSync(scratch, { recursive: true, force: true });
}
