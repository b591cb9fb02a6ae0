// preparedQuery (utils/db.server.ts): a query built once with drizzle's
// prepare(), for the reads of every signed-in request; inside a write
// transaction it is built on the transaction and reads its writes.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { sessions } from "~/db/schema";
import { deleteSession, getUserOfSession, insertSession } from "~/models/session.server";
import { getDb, inWriteTransaction, preparedQuery } from "~/utils/db.server";
import { createTestUser } from "../setup/fixtures";

describe("preparedQuery", () => {
  it("builds its query once, and answers each call's values", async () => {
    let builds = 0;
    const double = preparedQuery((db) => {
      builds += 1;
      return db.select({ value: sql<number>`${sql.placeholder("n")} * 2` }).from(sql`(SELECT 1)`).prepare();
    });
    for (const n of [1, 2, 3]) expect(await double().all({ n })).toEqual([{ value: n * 2 }]);
    expect(builds).toBe(1);
  });

  it("inside a write transaction, runs on the transaction and sees its writes", async () => {
    const count = preparedQuery((db) => db.select({ n: sql<number>`count(*)` }).from(sessions).where(sql`${sessions.id} = ${sql.placeholder("id")}`).prepare());
    const user = await createTestUser();
    await count().all({ id: "none" }); // built outside first
    const seen = await inWriteTransaction(async () => {
      const id = await insertSession(user.id, new Date(Date.now() + 60_000));
      const [row] = await count().all({ id });
      await getDb().delete(sessions).where(sql`${sessions.id} = ${id}`);
      return row?.n;
    });
    expect(seen).toBe(1);
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
