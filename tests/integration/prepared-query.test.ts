// preparedQuery (utils/db.server.ts): a read built once with drizzle's
// prepare(), its values only as placeholders (its builder gets the database
// and nothing else); inside a write transaction it is built on the
// transaction and reads its writes. Every prepared query of the app runs
// here with two sets of values, and each set gets its own rows.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { sessions } from "~/db/schema";
import { countUnreadNotifications, insertNotification, markAllNotificationsRead } from "~/models/notification.server";
import { deleteSession, getUserOfSession, insertSession, storedSessionId } from "~/models/session.server";
import { getDb, inWriteTransaction, preparedQuery, preparedQueryNames } from "~/utils/db.server";
import { createTestUser } from "../setup/fixtures";

describe("preparedQuery", () => {
  it("builds its query once, and answers each call's values", async () => {
    let builds = 0;
    const double = preparedQuery("test: double", (db) => {
      builds += 1;
      return db.select({ value: sql<number>`${sql.placeholder("n")} * 2` }).from(sql`(SELECT 1)`).prepare();
    });
    for (const n of [1, 2, 3]) expect(await double().all({ n })).toEqual([{ value: n * 2 }]);
    expect(builds).toBe(1);
  });

  it("inside a write transaction, runs on the transaction and sees its writes", async () => {
    const count = preparedQuery("test: sessions with this id", (db) =>
      db.select({ n: sql<number>`count(*)` }).from(sessions).where(sql`${sessions.id} = ${sql.placeholder("id")}`).prepare(),
    );
    const user = await createTestUser();
    await count().all({ id: "none" }); // built outside first
    const seen = await inWriteTransaction(async () => {
      // The table keeps the SHA-256 of the cookie's id.
      const id = storedSessionId(await insertSession(user.id, new Date(Date.now() + 60_000)));
      const [row] = await count().all({ id });
      await getDb().delete(sessions).where(sql`${sessions.id} = ${id}`);
      return row?.n;
    });
    expect(seen).toBe(1);
  });
});

describe("the app's prepared queries, each with two sets of values", () => {
  /** Every prepared query of the app, by the name it was given: a new one fails this test until it is run below. */
  const covered = ["the session's user"];

  it("are the ones run below", async () => {
    // Loads every model and service, so that each of their prepared queries is registered.
    await Promise.all(Object.values(import.meta.glob(["/app/models/*.server.ts", "/app/services/*.server.ts"])).map((load) => load()));
    expect(preparedQueryNames().filter((name) => !name.startsWith("test: ")).sort()).toEqual([...covered].sort());
  });

  it("the session's user: each session answers its own user", async () => {
    const [first, second] = [await createTestUser(), await createTestUser()];
    const firstSession = await insertSession(first.id, new Date(Date.now() + 60_000));
    const secondSession = await insertSession(second.id, new Date(Date.now() + 60_000));
    expect((await getUserOfSession(firstSession))?.id).toBe(first.id);
    expect((await getUserOfSession(secondSession))?.id).toBe(second.id);
    expect((await getUserOfSession(firstSession))?.id).toBe(first.id);
    // The instant is a value too: the same session, later than its end.
    expect(await getUserOfSession(secondSession, new Date(Date.now() + 120_000))).toBeNull();
    expect((await getUserOfSession(secondSession))?.id).toBe(second.id);
  });

  it("the unread count (a plain query beside it on every page): each user answers their own count", async () => {
    const [first, second] = [await createTestUser(), await createTestUser()];
    await insertNotification(first.id, { type: "test", title: "Uno", message: "uno" });
    for (const title of ["Uno", "Dos", "Tres"]) await insertNotification(second.id, { type: "test", title, message: title });
    expect(await countUnreadNotifications(first.id)).toBe(1);
    expect(await countUnreadNotifications(second.id)).toBe(3);
    await markAllNotificationsRead(first.id);
    expect(await countUnreadNotifications(first.id)).toBe(0);
    expect(await countUnreadNotifications(second.id)).toBe(3);
  });
});

describe("the session's user (a prepared query)", () => {
  it("answers the user of a live session, and nobody once it expired or ended", async () => {
    const user = await createTestUser();
    const id = await insertSession(user.id, new Date(Date.now() + 60_000));
    expect((await getUserOfSession(id))?.id).toBe(user.id);
    expect(await getUserOfSession(id, new Date(Date.now() + 120_000))).toBeNull();
    await deleteSession(id);
    expect(await getUserOfSession(id)).toBeNull();
  });
});
