import { describe, expect, it } from "vitest";
import { changedFields, HIDDEN, redactSecrets, storedEvent } from "./audit.server";

describe("redactSecrets", () => {
  it("hides every value whose key names a password, secret, token, PIN or credential, at any depth", () => {
    const redacted = redactSecrets({
      password: "hunter22hunter",
      passwordHash: "scrypt$32768$8$1$abc$def",
      new_password: "otra-clave-larga",
      bridgeSecretHash: "$7$101$abc",
      bridge_secret: "s3cr3t",
      tokenHash: "f00",
      apiToken: "abc",
      pin: "1234",
      doorPIN: "9999",
      "pin-code": "0000",
      credentials: { username: "door-1", password: "x" },
      nested: { deeper: [{ token: "t", alias: "visible" }] },
    });
    expect(redacted).toEqual({
      apiToken: HIDDEN,
      bridgeSecretHash: HIDDEN,
      bridge_secret: HIDDEN,
      credentials: HIDDEN,
      doorPIN: HIDDEN,
      nested: { deeper: [{ alias: "visible", token: HIDDEN }] },
      new_password: HIDDEN,
      password: HIDDEN,
      passwordHash: HIDDEN,
      pin: HIDDEN,
      "pin-code": HIDDEN,
      tokenHash: HIDDEN,
    });
    expect(HIDDEN).toBe("[oculto]");
  });

  it("keeps what is not a secret, even when a word merely contains one (spinner, opinion) or names the chain's hash", () => {
    const at = new Date("2026-03-01T10:00:00.000Z");
    expect(
      redactSecrets({ spinner: "a", opinion: "b", mapping: "c", firstKeptPrevHash: "00ff", alias: null, at, gone: undefined, list: [1, "dos", null] }),
    ).toEqual({ alias: null, at: "2026-03-01T10:00:00.000Z", firstKeptPrevHash: "00ff", list: [1, "dos", null], mapping: "c", opinion: "b", spinner: "a" });
  });

  it("leaves an empty secret empty and sorts keys, so the stored text is canonical", () => {
    expect(JSON.stringify(redactSecrets({ b: 1, passwordHash: null, a: 2 }))).toBe('{"a":2,"b":1,"passwordHash":null}');
  });
});

describe("changedFields", () => {
  it("answers only the fields that differ, as they were and as they are", () => {
    const when = new Date("2026-01-01T00:00:00Z");
    expect(
      changedFields({ alias: "A", status: "active", expiresAt: when }, { alias: "B", status: "active", expiresAt: new Date(when) }, ["alias", "status", "expiresAt"]),
    ).toEqual({ before: { alias: "A" }, after: { alias: "B" }, changed: ["alias"] });
  });
});

describe("storedEvent", () => {
  it("writes what the text rule refuses visibly: no value can reorder, hide or break a line of the trail", () => {
    const actor = { id: null, username: "eve\u202Eadmin\r\nroot", role: "anonimo" as const };
    const event = storedEvent(
      { action: "session.sign_in_refused", entityType: "session", entityId: "x\u0000y", summary: "intentó\u200B iniciar sesión", after: { username: "a\u2066b", note: "línea 1\nlínea 2", lone: "\ud800" } },
      actor,
      "10.0.0.1\n",
    );
    expect(event.actorUsername).toBe("eve\\u202eadmin\\r\\nroot");
    expect(event.summary).toBe("eve\\u202eadmin\\r\\nroot intentó\\u200b iniciar sesión");
    expect(event.entityId).toBe("x\\u0000y");
    expect(event.ip).toBe("10.0.0.1\\n");
    // Multi-line values keep their line breaks; everything else is written out.
    expect(JSON.parse(event.after!)).toEqual({ username: "a\\u2066b", note: "línea 1\nlínea 2", lone: "\\ud800" });
    const stored = [event.actorUsername, event.summary, event.entityId, event.ip, event.after].join("");
    expect(stored).not.toMatch(/[\u0000\u200B\u202E\u2066\r]|[\uD800-\uDFFF]/);
  });

  it("leaves ordinary Spanish text as it is", () => {
    const event = storedEvent({ action: "card.update", entityType: "card", entityId: "0A1B2C3D", summary: "cambió el alias de la tarjeta 0A1B2C3D a «Llavero azul»", after: { alias: "Llavero azul ñ 😀" } }, { id: "u1", username: "maría", role: "admin" }, null);
    expect(event.summary).toBe("maría cambió el alias de la tarjeta 0A1B2C3D a «Llavero azul»");
    expect(JSON.parse(event.after!)).toEqual({ alias: "Llavero azul ñ 😀" });
  });
});
