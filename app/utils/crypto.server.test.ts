import { describe, expect, it } from "vitest";
import { hashPassword, MAX_CONCURRENT_HASHES, passwordHashLoad, randomNonce, verifyPassword } from "./crypto.server";
import { getEnv, resetEnvForTests } from "./env.server";

describe("password hashing", () => {
  it("verifies the right password and refuses a wrong one", async () => {
    const hash = await hashPassword("correct horse");
    expect(hash.startsWith("scrypt$")).toBe(true);
    expect(hash).not.toContain("correct horse");
    expect(await verifyPassword("correct horse", hash)).toBe(true);
    expect(await verifyPassword("correct horsf", hash)).toBe(false);
  });

  it("hashes at the cost PASSWORD_HASH_COST names, and verifies each hash at its own cost", async () => {
    const cheap = await hashPassword("correct horse");
    expect(cheap.split("$").slice(0, 4)).toEqual(["scrypt", String(2 ** getEnv().PASSWORD_HASH_COST), "8", "1"]);
    const cost = process.env.PASSWORD_HASH_COST;
    try {
      process.env.PASSWORD_HASH_COST = "15";
      resetEnvForTests();
      const production = await hashPassword("correct horse");
      expect(production.split("$").slice(0, 4)).toEqual(["scrypt", "32768", "8", "1"]);
      expect(await verifyPassword("correct horse", production)).toBe(true);
      expect(await verifyPassword("correct horse", cheap)).toBe(true);
      expect(await verifyPassword("correct horsf", cheap)).toBe(false);
    } finally {
      process.env.PASSWORD_HASH_COST = cost;
      resetEnvForTests();
    }
  });

  it("salts every hash", async () => {
    expect(await hashPassword("same")).not.toBe(await hashPassword("same"));
  });
});

describe("password hashes at once", () => {
  it("run at most MAX_CONCURRENT_HASHES at a time, the others waiting their turn", async () => {
    const hashes = Array.from({ length: 5 }, (_, index) => hashPassword(`clave-${index}`));
    expect(passwordHashLoad()).toEqual({ running: MAX_CONCURRENT_HASHES, waiting: 5 - MAX_CONCURRENT_HASHES });
    const done = await Promise.all(hashes);
    expect(await verifyPassword("clave-4", done[4]!)).toBe(true);
    expect(passwordHashLoad()).toEqual({ running: 0, waiting: 0 });
  });
});

describe("a page's nonce", () => {
  it("is 128 bits in base64url, and never the same twice, across refills of its pool", () => {
    const nonces = Array.from({ length: 1000 }, () => randomNonce());
    for (const nonce of nonces) {
      expect(nonce).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(Buffer.from(nonce, "base64url")).toHaveLength(16);
    }
    expect(new Set(nonces).size).toBe(nonces.length);
  });
});
