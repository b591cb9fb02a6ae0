// Bridge secrets are stored in Mosquitto's own password-file format, so one
// stored hash serves both the embedded broker and an exported Mosquitto
// password file (docs/decisions/0003-door-access-over-mqtt.md).
//
// Format (Mosquitto 2.0 `mosquitto_passwd`): `$7$<iterations>$<salt>$<hash>`,
// PBKDF2-HMAC-SHA512, 12-byte salt, 64-byte hash, both standard base64.
// scripts/mosquitto-passwords.mjs writes the same format for the app's account.
import crypto from "node:crypto";

const ITERATIONS = 101; // mosquitto_passwd's default; enough for a 192-bit random secret
const SALT_BYTES = 12;
const HASH_BYTES = 64;

/** A new bridge secret: 24 random bytes, base64url (32 characters). */
export function generateBridgeSecret(): string {
  return crypto.randomBytes(24).toString("base64url");
}

export function mosquittoPasswordHash(password: string, salt: Buffer = crypto.randomBytes(SALT_BYTES)): string {
  const hash = crypto.pbkdf2Sync(password, salt, ITERATIONS, HASH_BYTES, "sha512");
  return `$7$${ITERATIONS}$${salt.toString("base64")}$${hash.toString("base64")}`;
}

export function verifyMosquittoPassword(password: string, stored: string): boolean {
  const match = /^\$7\$(\d{1,7})\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/.exec(stored);
  if (!match) return false;
  const iterations = Number(match[1]);
  const expected = Buffer.from(match[3]!, "base64");
  if (iterations < 1 || expected.length === 0) return false;
  const actual = crypto.pbkdf2Sync(password, Buffer.from(match[2]!, "base64"), iterations, expected.length, "sha512");
  return crypto.timingSafeEqual(expected, actual);
}
