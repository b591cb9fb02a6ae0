// ESLint (flat config): typescript-eslint's recommended rules, React's rules
// of hooks, and the layer table of docs/architecture.md as import boundaries.
//
// The boundaries are `import-x/no-restricted-paths` zones: "files in
// `target` may not import files in `from`". Imports are resolved to files
// (the `~/` alias included) before a zone is checked, so `~/models/x.server`,
// `../models/x.server` and `./x.server` all count. Test files are exempt:
// a test sets up whatever it needs.
//
// Browser code is checked by name instead: a module that ends up in the
// browser bundle may not import a `*.server` module except for its types
// (`import type`), which TypeScript erases. Route modules are not browser
// code in that sense: Remix strips their loaders and actions, and with them
// the `.server` imports only those use.
//
// typescript-eslint's rules run without type information: with it (project
// service, no-floating-promises, no-misused-promises, await-thenable) the run
// took 28 s of CPU instead of 9 s on two cores, beside a typecheck that already
// builds the same program, and its 10 findings on the tree were deliberate
// fire-and-forget calls that catch their own errors.
import fs from "node:fs";
import path from "node:path";
import js from "@eslint/js";
import { createNodeResolver, importX } from "eslint-plugin-import-x";
import reactHooks from "eslint-plugin-react-hooks";
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

const ROOT = import.meta.dirname;
const at = (...parts) => path.join(ROOT, ...parts);

const TESTS = ["**/*.test.ts", "**/*.test.tsx"];
const SOURCES = "**/*.{ts,tsx,js,mjs,cjs}";

// The web process's top: what nothing below the routes may import.
const WEB_TOP = [at("app/routes"), at("app/root.tsx"), at("app/entry.server.tsx"), at("app/entry.client.tsx"), at("app/boot.server.ts")];

/** A zone: files under `target` may not import `from` (but `except`). */
function zone(target, from, message, except) {
  return { target, from, message: `${message} (docs/architecture.md, Layers).`, ...(except ? { except } : {}) };
}

const LAYER_ZONES = [
  // Models: db/schema, schemas, utils. Never services, access, mail, routes.
  zone(at("app/models"), [at("app/services"), at("app/access"), at("app/mail"), at("app/components"), ...WEB_TOP], "A model may import db/schema, schemas and utils only"),
  // Services: models, other services, schemas, doors, mail, utils, and the
  // one import from the access process, access/notify.
  zone(at("app/services"), [at("app/components"), ...WEB_TOP], "A service never imports routes, components or boot"),
  zone(at("app/services"), at("app/access"), "A service imports only access/notify from the access process", ["./notify.server.ts"]),
  // Access process: models, doors, db/schema, utils, mail/staff-mail.
  zone(at("app/access"), [at("app/services"), at("app/components"), ...WEB_TOP], "The access process never imports services, routes or the web process"),
  zone(at("app/access"), at("app/mail"), "The access process imports only mail/staff-mail", ["./staff-mail.server.ts"]),
  // Mail: db/schema, schemas, utils (and the door vocabulary's labels).
  zone(at("app/mail"), [at("app/models"), at("app/services"), at("app/access"), at("app/components"), ...WEB_TOP], "Mail may import db/schema, schemas, doors and utils only"),
  // Door vocabulary (browser-safe): db/schema, utils/card-number, utils/dates.
  zone(
    at("app/doors"),
    [at("app/models"), at("app/services"), at("app/access"), at("app/mail"), at("app/schemas"), at("app/components"), ...WEB_TOP],
    "The door vocabulary may import db/schema, utils/card-number and utils/dates only",
  ),
  zone(at("app/doors"), at("app/utils"), "The door vocabulary may import utils/card-number and utils/dates only", ["./card-number.ts", "./dates.ts"]),
  // Schemas (browser-safe): db/schema-enums and browser-safe utils.
  zone(
    at("app/schemas"),
    [at("app/models"), at("app/services"), at("app/access"), at("app/mail"), at("app/components"), at("app/db/schema.ts"), ...WEB_TOP],
    "A schema may import db/schema-enums and browser-safe utils only",
  ),
  // Utils: the bottom. Models only in auth.server.ts (the guards).
  zone(at("app/utils"), [at("app/services"), at("app/access"), at("app/mail"), at("app/components"), ...WEB_TOP], "Utils never import services, access, mail, components or routes"),
  zone(at("app/utils/!(auth.server).ts"), [at("app/models/**")], "Only utils/auth.server.ts imports models (the guards)"),
  // Components: browser code; the `.server` rule below keeps server code out.
  zone(at("app/components"), [at("app/db/schema.ts"), at("app/access"), at("app/mail"), ...WEB_TOP], "Components may import schemas, db/schema-enums, doors, browser-safe utils and service types"),
  // Routes and their controllers: services, schemas, components, utils.
  // healthz.ts is the one route that reads a model (its job is a database ping).
  zone(at("app/routes/!(healthz).{ts,tsx}"), [at("app/models/**")], "Routes reach models through services"),
  zone(at("app/routes"), [at("app/access"), at("app/mail"), at("app/boot.server.ts")], "Routes reach the access process and mail through services"),
  // Boot: everything below the routes.
  zone(at("app/boot.server.ts"), [at("app/routes"), at("app/components"), at("app/root.tsx")], "Boot never imports routes or components"),
  // The bridge is its own package (it runs on the door's Pi).
  zone(at("bridge"), [at("app"), at("scripts"), at("tests")], "The bridge is its own package: it never imports the app, scripts or tests"),
];

const ROUTES_DIR = at("app/routes");
const baseName = (file) => path.basename(file).replace(/\.[cm]?[jt]sx?$/, "");
const isController = (file) => /\.server\.[cm]?[jt]sx?$/.test(file);
const routeNames = new Set(
  fs
    .readdirSync(ROUTES_DIR)
    .filter((name) => /\.[jt]sx?$/.test(name) && !isController(name) && !/\.test\./.test(name))
    .map(baseName),
);

/**
 * What `import-x/no-restricted-paths` cannot say with globs: inside
 * app/routes/, a route module imports its own controller
 * (`<route>.server.ts`), the one of the route it nests under
 * (`admin.auditoria.export.ts` → `admin.auditoria.server.ts`), or a shared
 * one (a controller no route is named after, e.g. `enquiry-form.server.ts`),
 * never another route; a controller imports neither routes nor controllers.
 * Type-only imports are free (`useRouteLoaderData<typeof loader>`).
 */
const routeImports = {
  meta: {
    type: "problem",
    schema: [],
    messages: {
      route: "A route never imports another route module (docs/architecture.md, Layers).",
      controller: "A controller never imports routes or other controllers (docs/architecture.md, Layers).",
      otherController: "'{{name}}' is route {{route}}'s own controller: move what both need to a service or a shared controller (docs/architecture.md, Layers).",
    },
  },
  create(context) {
    const file = context.physicalFilename;
    if (path.dirname(file) !== ROUTES_DIR) return {};
    const importerBase = baseName(file);
    function check(node, source, typeOnly) {
      if (typeOnly || typeof source?.value !== "string") return;
      const spec = source.value;
      let target;
      if (spec.startsWith("~/")) target = at("app", spec.slice(2));
      else if (spec.startsWith(".")) target = path.resolve(path.dirname(file), spec);
      else return;
      if (path.dirname(target) !== ROUTES_DIR) return;
      const targetBase = baseName(target).replace(/\.server$/, "");
      if (isController(file)) return context.report({ node, messageId: "controller" });
      if (!/\.server(\.[cm]?[jt]sx?)?$/.test(target)) return context.report({ node, messageId: "route" });
      const own = targetBase === importerBase || importerBase.startsWith(`${targetBase}.`);
      if (!own && routeNames.has(targetBase)) {
        context.report({ node, messageId: "otherController", data: { name: spec, route: targetBase } });
      }
    }
    const typeOnly = (node) =>
      node.importKind === "type" ||
      node.exportKind === "type" ||
      (node.specifiers?.length > 0 && node.specifiers.every((s) => s.importKind === "type" || s.exportKind === "type"));
    return {
      ImportDeclaration: (node) => check(node, node.source, typeOnly(node)),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source, typeOnly(node)),
      ExportAllDeclaration: (node) => check(node, node.source, node.exportKind === "type"),
      ImportExpression: (node) => node.source.type === "Literal" && check(node, node.source, false),
    };
  },
};
const localRules = { rules: { "route-imports": routeImports } };

// Modules that reach the browser bundle: everything in app/ that is not
// `.server`, not a route module, not a test, and not server-only by place.
const BROWSER_FILES = ["app/**/*.{ts,tsx}"];
const NOT_BROWSER_FILES = ["app/**/*.server.{ts,tsx}", "app/routes/**", "app/root.tsx", "app/entry.server.tsx", "app/routes.ts", "app/db/schema.ts", ...TESTS];

// Findings in files other engineers are editing now (issue 39): each entry
// turns one rule off for one file, with the line it found. Remove an entry
// with its fix; the rule then holds for that file too.
const KNOWN_VIOLATIONS = {
  "app/models/door-key.server.ts": ["@typescript-eslint/no-unused-vars"], // 4: `like` imported, never used
  "tests/integration/backup-restore.test.ts": ["no-useless-assignment"], // 352: `restoredDir = ""` is overwritten before any read
  "tests/integration/key-decisions.test.ts": ["@typescript-eslint/no-unused-vars"], // 11: `updateDoor` imported, never used
  "tests/integration/rooms-pages.test.ts": ["@typescript-eslint/no-unused-vars"], // 25: `slash` assigned, never used
};

export default defineConfig(
  {
    ignores: ["build/**", "public/build/**", ".cache/**", "data/**", "bridge/dist/**", "bridge/data/**", "test-results/**", "playwright-report/**", "**/node_modules/**"],
  },
  {
    files: [SOURCES],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    plugins: { "import-x": importX, "react-hooks": reactHooks, local: localRules },
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: "module",
      globals: {
        // Node's globals for the .mjs scripts (in .ts files TypeScript
        // checks names itself and no-undef is off).
        ...Object.fromEntries(
          [
            "process", "Buffer", "console", "setTimeout", "clearTimeout", "setInterval", "clearInterval", "setImmediate", "clearImmediate",
            "queueMicrotask", "structuredClone", "URL", "URLSearchParams", "AbortController", "AbortSignal", "TextEncoder", "TextDecoder",
            "fetch", "Request", "Response", "Headers", "FormData", "Blob", "performance", "globalThis", "crypto", "WebSocket", "EventTarget", "Event",
          ].map((name) => [name, "readonly"]),
        ),
      },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    settings: {
      "import-x/resolver-next": [
        createNodeResolver({
          extensions: [".ts", ".tsx", ".mjs", ".js", ".cjs", ".json", ".d.ts"],
          extensionAlias: { ".js": [".ts", ".tsx", ".js"] },
          alias: { "~": [at("app")] },
          conditionNames: ["node", "import", "require", "default"],
        }),
      ],
    },
    rules: {
      // Unused code is usually a leftover or a typo; `_name` says "on purpose".
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
      // Empty `catch {}` is this code's idiom for "it may already be gone"
      // (a process that exited, a file removed meanwhile); empty blocks
      // elsewhere are still an error.
      "no-empty": ["error", { allowEmptyCatch: true }],
      // The text rules strip and refuse control characters on purpose
      // (schemas/fields, log values, cookies): every hit was intended.
      "no-control-regex": "off",
    },
  },
  {
    // React code only: elsewhere `use…` names are not hooks (Playwright's
    // fixture `use`, the access service's `useAccessNotifier`).
    files: ["app/**/*.{ts,tsx}"],
    ignores: ["app/**/*.server.{ts,tsx}", ...TESTS],
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
    },
  },
  {
    // Playwright: `async ({}, use) => …` is how a fixture that needs no other
    // fixture is written, and a test asks for `asAdmin` / `asResident` for
    // their effect (the page signs in) without reading them.
    files: ["tests/e2e/**"],
    rules: {
      "no-empty-pattern": "off",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^(_|as[A-Z])", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
    },
  },
  {
    // TypeScript checks names, redeclarations and `this` itself.
    files: ["**/*.{ts,tsx}"],
    rules: { "no-undef": "off", "no-redeclare": "off" },
  },
  {
    files: [SOURCES],
    ignores: TESTS,
    rules: {
      "import-x/no-restricted-paths": ["error", { basePath: ROOT, zones: LAYER_ZONES }],
      "local/route-imports": "error",
    },
  },
  {
    files: BROWSER_FILES,
    ignores: NOT_BROWSER_FILES,
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "\\.server(\\.[cm]?[jt]sx?)?$",
              allowTypeImports: true,
              message: "Browser code may import only the types of a `.server` module (docs/architecture.md: `*.server.ts` is server-only).",
            },
          ],
        },
      ],
    },
  },
  ...Object.entries(KNOWN_VIOLATIONS).map(([file, rules]) => ({ files: [file], rules: Object.fromEntries(rules.map((rule) => [rule, "off"])) })),
);
