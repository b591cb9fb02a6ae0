import { describe, expect, it } from "vitest";
import { parseEnv } from "./env.server";

describe("parseEnv", () => {
  it("applies the documented defaults", () => {
    const env = parseEnv({});
    expect(env.PORT).toBe(3000);
    expect(env.DATABASE_URL).toBe("file:data/app.db");
    expect(env.ADMIN_USERNAME).toBe("admin");
    expect(env.MQTT_HOST).toBe("127.0.0.1");
    expect(env.MQTT_PORT).toBe(1883);
    expect(env.PUBLIC_URL).toBe("http://localhost:3000");
    expect(env.RETENTION_MONTHS).toBe(12);
    expect(env.BACKUP_DIR).toBeUndefined();
    expect(env.BACKUP_HOUR).toBe("03:30");
    expect(env.BACKUP_KEEP).toBe(14);
    expect(env.AUDIT_RETENTION_MONTHS).toBe(24);
    expect(env.ADMIN_EMAIL).toBe("admin@lacasona-coliving.es");
    expect(env.MAX_ACTIVE_BOOKINGS).toBe(3);
    expect(env.MAX_ACTIVE_BOOKINGS_BY_TYPE).toBeUndefined();
    expect(env.MAX_INCIDENTS_PER_DAY).toBe(5);
  });

  it("hashes passwords at scrypt's N=2^15 unless PASSWORD_HASH_COST says otherwise (10 to 20)", () => {
    expect(parseEnv({}).PASSWORD_HASH_COST).toBe(15);
    expect(parseEnv({ PASSWORD_HASH_COST: "10" }).PASSWORD_HASH_COST).toBe(10);
    expect(() => parseEnv({ PASSWORD_HASH_COST: "9" })).toThrow(/PASSWORD_HASH_COST/);
    expect(() => parseEnv({ PASSWORD_HASH_COST: "21" })).toThrow(/PASSWORD_HASH_COST/);
  });

  it("checks the backup settings", () => {
    expect(() => parseEnv({ BACKUP_HOUR: "3:30" })).toThrow(/BACKUP_HOUR/);
    expect(() => parseEnv({ BACKUP_HOUR: "24:00" })).toThrow(/BACKUP_HOUR/);
    expect(() => parseEnv({ BACKUP_KEEP: "0" })).toThrow(/BACKUP_KEEP/);
    expect(parseEnv({ BACKUP_HOUR: "23:59", BACKUP_KEEP: "30", BACKUP_DIR: "/mnt/nas/casona" })).toMatchObject({
      BACKUP_HOUR: "23:59",
      BACKUP_KEEP: 30,
      BACKUP_DIR: "/mnt/nas/casona",
    });
  });

  it("takes a METRICS_TOKEN only long enough and in a bearer token's characters", () => {
    expect(parseEnv({}).METRICS_TOKEN).toBeUndefined();
    expect(parseEnv({ METRICS_TOKEN: "0123456789abcdef0123456789abcdef" }).METRICS_TOKEN).toBe("0123456789abcdef0123456789abcdef");
    expect(() => parseEnv({ METRICS_TOKEN: "short-token" })).toThrow(/METRICS_TOKEN/);
    expect(() => parseEnv({ METRICS_TOKEN: "a token with spaces in it" })).toThrow(/METRICS_TOKEN/);
  });

  it("takes the first admin's email only if the app's own email rule accepts it", () => {
    expect(parseEnv({ ADMIN_EMAIL: "Gestion@Casona.example" }).ADMIN_EMAIL).toBe("gestion@casona.example");
    expect(() => parseEnv({ ADMIN_EMAIL: "admin@localhost" })).toThrow(/ADMIN_EMAIL/);
    expect(() => parseEnv({ ADMIN_EMAIL: "a@b.es,c@d.es" })).toThrow(/ADMIN_EMAIL/);
  });

  it("reads the residents' limits, with booking limits per facility type", () => {
    const env = parseEnv({ MAX_ACTIVE_BOOKINGS: "2", MAX_ACTIVE_BOOKINGS_BY_TYPE: "gym=7, parking=1", MAX_INCIDENTS_PER_DAY: "10" });
    expect(env.MAX_ACTIVE_BOOKINGS).toBe(2);
    expect(env.MAX_ACTIVE_BOOKINGS_BY_TYPE).toEqual({ gym: 7, parking: 1 });
    expect(env.MAX_INCIDENTS_PER_DAY).toBe(10);
    expect(() => parseEnv({ MAX_ACTIVE_BOOKINGS: "0" })).toThrow(/MAX_ACTIVE_BOOKINGS/);
    expect(() => parseEnv({ MAX_ACTIVE_BOOKINGS_BY_TYPE: "sauna=3" })).toThrow(/MAX_ACTIVE_BOOKINGS_BY_TYPE: "sauna=3"/);
    expect(() => parseEnv({ MAX_ACTIVE_BOOKINGS_BY_TYPE: "gym=0" })).toThrow(/MAX_ACTIVE_BOOKINGS_BY_TYPE/);
    expect(() => parseEnv({ MAX_INCIDENTS_PER_DAY: "muchas" })).toThrow(/MAX_INCIDENTS_PER_DAY/);
  });

  it("names the variable that is wrong", () => {
    expect(() => parseEnv({ PORT: "abc" })).toThrow(/PORT/);
    expect(() => parseEnv({ DATABASE_URL: "postgres://x" })).toThrow(/DATABASE_URL/);
    expect(() => parseEnv({ SESSION_SECRET: "short" })).toThrow(/SESSION_SECRET/);
    expect(() => parseEnv({ RETENTION_MONTHS: "0" })).toThrow(/RETENTION_MONTHS/);
    expect(parseEnv({ RETENTION_MONTHS: "24" }).RETENTION_MONTHS).toBe(24);
    expect(() => parseEnv({ AUDIT_RETENTION_MONTHS: "0" })).toThrow(/AUDIT_RETENTION_MONTHS/);
    expect(() => parseEnv({ AUDIT_RETENTION_MONTHS: "dos" })).toThrow(/AUDIT_RETENTION_MONTHS/);
    expect(parseEnv({ AUDIT_RETENTION_MONTHS: "36" }).AUDIT_RETENTION_MONTHS).toBe(36);
  });

  it("keeps the database in DATA_DIR unless DATABASE_URL says otherwise", () => {
    expect(parseEnv({ DATA_DIR: "/srv/casona" }).DATABASE_URL).toBe("file:/srv/casona/app.db");
    expect(parseEnv({ DATA_DIR: "/srv/casona/" }).DATABASE_URL).toBe("file:/srv/casona/app.db");
    expect(parseEnv({ DATA_DIR: "/srv/casona", DATABASE_URL: "file:/other/db.sqlite" }).DATABASE_URL).toBe("file:/other/db.sqlite");
  });

  it("treats empty variables as unset", () => {
    expect(parseEnv({ SMTP_URL: "", PORT: "" }).PORT).toBe(3000);
  });

  it("accepts a remote libSQL database", () => {
    const env = parseEnv({ DATABASE_URL: "libsql://db.example.turso.io", DATABASE_AUTH_TOKEN: "t" });
    expect(env.DATABASE_URL).toBe("libsql://db.example.turso.io");
  });

  it("reads the stay keys' times: CHECKIN_TIME, CHECKOUT_TIME and SALA_HOURS", () => {
    expect(parseEnv({})).toMatchObject({ CHECKIN_TIME: "15:00", CHECKOUT_TIME: "11:00", SALA_HOURS: { from: "08:00", to: "21:00" } });
    expect(parseEnv({ CHECKIN_TIME: "14:30", CHECKOUT_TIME: "10:00", SALA_HOURS: "09:00–20:00" })).toMatchObject({
      CHECKIN_TIME: "14:30",
      CHECKOUT_TIME: "10:00",
      SALA_HOURS: { from: "09:00", to: "20:00" },
    });
    expect(() => parseEnv({ CHECKIN_TIME: "25:00" })).toThrow(/CHECKIN_TIME/);
    expect(() => parseEnv({ CHECKOUT_TIME: "11h" })).toThrow(/CHECKOUT_TIME/);
    expect(() => parseEnv({ SALA_HOURS: "21:00-08:00" })).toThrow(/SALA_HOURS/);
    expect(() => parseEnv({ SALA_HOURS: "08:00" })).toThrow(/SALA_HOURS/);
  });
});
