import fs from "node:fs";
import path from "node:path";
import { createMigratedBase, TEST_ROOT } from "./test-db";

export default async function setup() {
  fs.rmSync(path.join(TEST_ROOT, "vitest"), { recursive: true, force: true });
  await createMigratedBase(path.join(TEST_ROOT, "vitest", "base.db"));
}
