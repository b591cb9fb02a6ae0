import { describe, expect, it } from "vitest";
import { generateBridgeSecret, mosquittoPasswordHash, verifyMosquittoPassword } from "./mosquitto-password.server";

describe("Mosquitto password hashes", () => {
  it("verify a line written by mosquitto_passwd 2.0 (door1 / secretpw)", () => {
    const stored =
      "$7$101$cdFC+XFzpb9CGyRM$Vmq/QpuqcpQsF4549njNI6dFObmTtO9hjxZvD9FYNDquKV6QETPX/T49M5u/nqaoDo/WAYevOqDH6vGEKtMG7g==";
    expect(verifyMosquittoPassword("secretpw", stored)).toBe(true);
    expect(verifyMosquittoPassword("secretpx", stored)).toBe(false);
  });

  it("write the same format: $7$101$<12-byte salt>$<64-byte hash>", () => {
    const secret = generateBridgeSecret();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const stored = mosquittoPasswordHash(secret);
    const [, scheme, iterations, salt, hash] = stored.split("$");
    expect([scheme, iterations]).toEqual(["7", "101"]);
    expect(Buffer.from(salt!, "base64")).toHaveLength(12);
    expect(Buffer.from(hash!, "base64")).toHaveLength(64);
    expect(verifyMosquittoPassword(secret, stored)).toBe(true);
    expect(verifyMosquittoPassword(secret, "scrypt$whatever")).toBe(false);
  });
});
