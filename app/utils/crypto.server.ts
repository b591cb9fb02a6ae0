import crypto from "node:crypto";
import { promisify } from "node:util";
import { concurrencyLimit } from "./concurrency-limit.server";
import { getEnv } from "./env.server";

const scrypt = promisify(crypto.scrypt) as (
  password: crypto.BinaryLike,
  salt: crypto.BinaryLike,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

// scrypt cost: N=2^PASSWORD_HASH_COST (default 2^15, ~60 ms here, 32 MiB per hash).
const SCRYPT = { r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 32;

/**
 * Password hashes run in libuv's thread pool (4 threads), which file reads and
 * response compression share: a burst of them would fill it (and hold 32 MiB
 * each), so pages would wait seconds. At most this many run at once; the
 * others wait their turn in order.
 */
export const MAX_CONCURRENT_HASHES = 2;
const hashes = concurrencyLimit({ running: MAX_CONCURRENT_HASHES });

/** Password hashes running and waiting for their turn. */
export function passwordHashLoad() {
  return hashes.load();
}

/** Hash for secrets people choose or type (passwords, bridge secrets). */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const N = 2 ** getEnv().PASSWORD_HASH_COST;
  const key = await hashes.run(() => scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, { ...SCRYPT, N }));
  return `scrypt$${N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, saltText, keyText] = stored.split("$");
  if (scheme !== "scrypt" || !saltText || !keyText) return false;
  const expected = Buffer.from(keyText, "base64url");
  const options = { N: Number(n), r: Number(r), p: Number(p), maxmem: SCRYPT.maxmem };
  const actual = await hashes.run(() => scrypt(password.normalize("NFKC"), Buffer.from(saltText, "base64url"), expected.length, options));
  return crypto.timingSafeEqual(expected, actual);
}

/**
 * Fast hash for high-entropy random secrets (API tokens, captcha answers with
 * their challenge id): a brute force is hopeless, so a slow hash buys nothing.
 */
export function sha256(value: string): string {
  return crypto.createHash("sha256").update(value).digest("hex");
}

/** Whether a secret someone sent is the configured one, in a time that does not tell how much of it matched. */
export function sameSecret(sent: string, expected: string): boolean {
  const digest = (value: string) => crypto.createHash("sha256").update(value).digest();
  return crypto.timingSafeEqual(digest(sent), digest(expected));
}

export function randomToken(bytes = 32): string {
  return crypto.randomBytes(bytes).toString("base64url");
}

const NONCE_BYTES = 16;
let noncePool = Buffer.alloc(0);
let nonceOffset = 0;

/**
 * 128 random bits for a page's Content-Security-Policy nonce, base64url, a
 * new one each call: taken from a pool of 4 KB drawn from the system's
 * generator at once (randomBytes for every page was ~6 µs of a page's CPU,
 * 0.4 µs this way).
 */
export function randomNonce(): string {
  if (nonceOffset + NONCE_BYTES > noncePool.length) {
    noncePool = crypto.randomBytes(256 * NONCE_BYTES);
    nonceOffset = 0;
  }
  const nonce = noncePool.toString("base64url", nonceOffset, nonceOffset + NONCE_BYTES);
  nonceOffset += NONCE_BYTES;
  return nonce;
}

export function createId(): string {
  return crypto.randomUUID();
}
