import path from "node:path";
import { getEnv } from "./env.server";
import { sessionSecret } from "./keys.server";

export function dataPath(...parts: string[]): string {
  return path.resolve(getEnv().DATA_DIR, ...parts);
}

/**
 * SESSION_SECRET, or a random one generated once in the key store
 * (KEYS_DIR, outside the data directory and its backups: keys.server.ts).
 */
export function getSessionSecret(): string {
  return sessionSecret();
}
