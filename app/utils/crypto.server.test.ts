import { describe, expect, it } from "vitest";
import { hashPassword, MAX_CONCURRENT_HASHES, passwordHashLoad, verifyPassword } from "./crypto.server";

describe("password hashing", () => {
  it("verifies the right password and refuses a wrong one", async () => {
    const hash = await hashPassword("correct horse");
    expect(hash.startsWith("scrypt$")).toBe(true);
    expect(hash).not.toContain("correct horse");
    expect(await verifyPassword("correct horse", hash)).toBe(true);
    expect(await verifyPassword("correct horsf", hash)).toBe(false);
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
