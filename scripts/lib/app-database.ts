// The app's own database, for the scripts that write credentials into it
// (`npm run bridge -- --simulate`, `npm run sensor -- --provision`): the
// same DATABASE_URL the app reads (default file:$DATA_DIR/app.db, DATA_DIR
// default `data`), never a new one. A credential written anywhere else is
// refused by the app's broker.
import fs from "node:fs";
import { getEnv } from "~/utils/env.server";

/** The app's database URL (without its query); throws a plain message when a file database is missing. */
export function requireAppDatabase() {
  const env = getEnv();
  const url = env.DATABASE_URL.split("?")[0]!;
  const file = url.startsWith("file:") ? url.slice("file:".length) : null;
  if (file && file !== ":memory:" && !fs.existsSync(file)) {
    const source = process.env.DATABASE_URL ? "DATABASE_URL" : process.env.DATA_DIR ? `DATA_DIR=${env.DATA_DIR}` : "DATA_DIR unset, so data/";
    throw new Error(
      `there is no app database at ${file} (${source}). Start the app first (npm start), ` +
        "and run this with the DATA_DIR or DATABASE_URL the app runs with.",
    );
  }
  return url;
}
