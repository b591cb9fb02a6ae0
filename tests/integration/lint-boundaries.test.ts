// The layer table of docs/architecture.md is enforced by `npm run lint`
// (eslint.config.js): a layer-breaking import fails, a legal one passes.
// Each case lints a small module as if it were a file at that path; the
// imports it names are real files of app/.
import path from "node:path";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT });
});

/** The rules a module would break at `file` (a path from the repository root). */
async function brokenRules(file: string, code: string) {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  // A parse error or an unresolved config would pass every case silently.
  expect(result.messages.filter((message) => message.fatal)).toEqual([]);
  return result.messages.map((message) => message.ruleId);
}

describe("import boundaries (docs/architecture.md, Layers)", () => {
  it("a model that imports a service fails, by alias or by relative path", async () => {
    const byAlias = `import { listCardsJson } from "~/services/cards.server";\nexport const cards = listCardsJson;\n`;
    expect(await brokenRules("app/models/lint-probe.server.ts", byAlias)).toEqual(["import-x/no-restricted-paths"]);
    const byPath = `import { listCardsJson } from "../services/cards.server";\nexport const cards = listCardsJson;\n`;
    expect(await brokenRules("app/models/lint-probe.server.ts", byPath)).toEqual(["import-x/no-restricted-paths"]);
  });

  it("a model that imports a route fails", async () => {
    const code = `import { loader } from "~/routes/healthz";\nexport const probe = loader;\n`;
    expect(await brokenRules("app/models/lint-probe.server.ts", code)).toEqual(["import-x/no-restricted-paths"]);
  });

  it("browser code that imports a *.server.ts module fails; its types alone pass", async () => {
    const value = `import { listCardsJson } from "~/services/cards.server";\nexport const cards = listCardsJson;\n`;
    expect(await brokenRules("app/components/lint-probe.tsx", value)).toEqual(["@typescript-eslint/no-restricted-imports"]);
    expect(await brokenRules("app/utils/lint-probe.ts", `import { getDb } from "./db.server";\nexport const db = getDb;\n`)).toContain(
      "@typescript-eslint/no-restricted-imports",
    );
    const types = `import type { CardJson } from "~/services/cards.server";\nexport type Card = CardJson;\n`;
    expect(await brokenRules("app/components/lint-probe.tsx", types)).toEqual([]);
  });

  it("a route module may import a .server module (Remix strips loaders and actions from the browser build)", async () => {
    const code = `import { listCardsJson } from "~/services/cards.server";\nexport async function loader() {\n  return listCardsJson;\n}\n`;
    expect(await brokenRules("app/routes/lint-probe.tsx", code)).toEqual([]);
  });

  it("a route that imports a model, or another route's own controller, fails", async () => {
    const model = `import { pingDatabase } from "~/models/health.server";\nexport const probe = pingDatabase;\n`;
    expect(await brokenRules("app/routes/lint-probe.tsx", model)).toEqual(["import-x/no-restricted-paths"]);
    const otherController = `import { loadUsersPage } from "./admin.users.server";\nexport const probe = loadUsersPage;\n`;
    expect(await brokenRules("app/routes/admin.cards.tsx", otherController)).toEqual(["local/route-imports"]);
  });

  it("a service imports access/notify only from the access process", async () => {
    const notify = `import { notifyAccessChange } from "~/access/notify.server";\nexport const probe = notifyAccessChange;\n`;
    expect(await brokenRules("app/services/lint-probe.server.ts", notify)).toEqual([]);
    const service = `import { startAccessService } from "~/access/service.server";\nexport const probe = startAccessService;\n`;
    expect(await brokenRules("app/services/lint-probe.server.ts", service)).toEqual(["import-x/no-restricted-paths"]);
  });

  it("the bridge never imports the app", async () => {
    const code = `import { doorTopic } from "../../app/doors/contract";\nexport const probe = doorTopic;\n`;
    expect(await brokenRules("bridge/src/lint-probe.ts", code)).toEqual(["import-x/no-restricted-paths"]);
  });

  it("legal imports down the table pass", async () => {
    const model = `import { getDb } from "~/utils/db.server";\nimport { cards } from "~/db/schema";\nexport const probe = [getDb, cards];\n`;
    expect(await brokenRules("app/models/lint-probe.server.ts", model)).toEqual([]);
    const component = `import { todayInMadrid } from "~/utils/dates";\nexport const probe = todayInMadrid;\n`;
    expect(await brokenRules("app/components/lint-probe.tsx", component)).toEqual([]);
    const doors = `import { todayInMadrid } from "~/utils/dates";\nexport const probe = todayInMadrid;\n`;
    expect(await brokenRules("app/doors/lint-probe.ts", doors)).toEqual([]);
  });
});
