// The tracked package-lock.json is exactly what `npm install` writes for
// package.json: a fresh clone's `npm install` leaves the tree clean. npm
// rewrites the lock in a copy of the manifests (--package-lock-only: no
// node_modules, no network, no scripts) and the result must be the same bytes.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";

const MANIFESTS = ["package.json", "package-lock.json", "bridge/package.json"];

it("npm install does not rewrite the tracked package-lock.json", () => {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), "lock-"));
  try {
    for (const file of MANIFESTS) {
      fs.mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
      fs.copyFileSync(path.resolve(file), path.join(copy, file));
    }
    execFileSync("npm", ["install", "--package-lock-only", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], {
      cwd: copy,
      stdio: "pipe",
    });
    expect(fs.readFileSync(path.join(copy, "package-lock.json"), "utf8")).toBe(fs.readFileSync(path.resolve("package-lock.json"), "utf8"));
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
}, 60_000);
