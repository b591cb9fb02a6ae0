import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import { getEnv } from "./env.server";

export function dataPath(...parts: string[]): string {
  return path.resolve(getEnv().DATA_DIR, ...parts);
}

/** SESSION_SECRET, or a random one generated once and kept in the data directory. */
export function getSessionSecret(): string {
  const fromEnv = getEnv().SESSION_SECRET;
  if (fromEnv) return fromEnv;
  const file = dataPath("session-secret");
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const secret = crypto.randomBytes(32).toString("hex");
    try {
      // "wx": if another process wrote it first, keep theirs.
      fs.writeFileSync(file, secret, { mode: 0o600, flag: "wx" });
      return secret;
    } catch {
      return fs.readFileSync(file, "utf8").trim();
    }
  }
}
