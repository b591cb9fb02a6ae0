// The query plans of what a call runs, for tests that a query reads the index
// it was written for (EXPLAIN QUERY PLAN of each statement, same arguments).
import { getDb } from "~/utils/db.server";

/** Every statement the calls run, with its plan lines ("id parent detail"). */
export async function plansOf(run: () => Promise<unknown>) {
  const client = getDb().$client;
  const original = client.execute.bind(client);
  const statements: Array<{ sql: string; args: unknown[] }> = [];
  const spy = ((statement: { sql: string; args: unknown[] }) => {
    statements.push(statement);
    return original(statement as never);
  }) as typeof client.execute;
  client.execute = spy;
  try {
    await run();
  } finally {
    client.execute = original;
  }
  const plans = [];
  for (const statement of statements) {
    const plan = await original({ sql: `EXPLAIN QUERY PLAN ${statement.sql}`, args: statement.args as never });
    const lines = plan.rows.map((row) => ({ id: Number(row.id), parent: Number(row.parent), detail: String(row.detail) }));
    // The lines of the page's `rowid IN (…)` list: the LIST SUBQUERY line and what runs under it.
    const byId = new Map(lines.map((line) => [line.id, line]));
    const inList = (line: (typeof lines)[number]): boolean =>
      line.detail.startsWith("LIST SUBQUERY") || (byId.has(line.parent) && inList(byId.get(line.parent)!));
    plans.push({ sql: statement.sql, lines: lines.map((line) => ({ ...line, inPageIds: inList(line) })) });
  }
  return plans;
}
