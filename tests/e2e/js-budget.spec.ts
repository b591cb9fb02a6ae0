// Every page's JavaScript within its budget (gzip KB of the same-origin
// module scripts and modulepreloads its HTML names; budgets in
// scripts/lib/page-js.mjs). Sizes of a build are deterministic, so unlike a
// timing this can fail a test run. Runs once (in the JavaScript project): it
// reads the served HTML and scripts over HTTP.
import { E2E } from "../setup/e2e-env";
import { jsBudgetKB, pageJsSizes } from "../../scripts/lib/page-js.mjs";
import { expect, test } from "./fixtures";

const { sessionCookieFor } = await import("~/utils/auth.server");

const PUBLIC_PAGES = ["/", "/privacidad", "/reservar", "/consulta", "/visita", "/incidencias", "/reserva-consulta", "/login"];
const ADMIN_PAGES = ["/admin", "/admin/cards", "/admin/logs", "/admin/users", "/admin/incidents", "/admin/reservations", "/admin/consultations", "/admin/copias", "/admin/habitaciones", "/admin/ocupacion", "/admin/instalaciones", "/admin/auditoria"];

async function expectWithinBudget(paths: string[], cookie?: string) {
  const sizes = await pageJsSizes(E2E.baseURL, paths, cookie);
  for (const page of sizes) {
    expect(page.status, `${page.path} answers`).toBe(200);
    expect(page.files, `${page.path} loads its scripts`).toBeGreaterThan(0);
  }
  const overBudget = sizes
    .filter((page) => page.gzipKB > jsBudgetKB(page.path))
    .map((page) => `${page.path}: ${page.gzipKB} KB of JavaScript (gzip), budget ${jsBudgetKB(page.path)} KB`);
  expect(overBudget).toEqual([]);
}

test("public pages stay within their JavaScript budgets", async () => {
  await expectWithinBudget(PUBLIC_PAGES);
});

test("admin pages and the residents' portal stay within their JavaScript budget", async ({ createUser }) => {
  const admin = await createUser({ role: "admin" });
  await expectWithinBudget(ADMIN_PAGES, (await sessionCookieFor(admin)).split(";")[0]);
  const resident = await createUser({ role: "user" });
  await expectWithinBudget(["/portal"], (await sessionCookieFor(resident)).split(";")[0]);
});
