// Shared Playwright fixtures: data is set up directly in the test database
// (never through the UI), and each test gets its own client address so the
// per-IP rate limits of one test never affect another.
import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { test as base, expect, type BrowserContext, type Locator, type Page } from "@playwright/test";
import { E2E } from "../setup/e2e-env";
import { mimePart } from "../setup/mime";

Object.assign(process.env, E2E.serverEnv, { NODE_ENV: "test" });

const { createUser } = await import("~/models/user.server");
const { sessionCookieFor } = await import("~/utils/auth.server");
type User = Awaited<ReturnType<typeof createUser>>;

export type UserFactory = (fields?: { role?: "user" | "admin"; status?: User["status"]; password?: string }) => Promise<User & { password: string }>;

function randomIp() {
  const bytes = crypto.randomBytes(3);
  return `10.${bytes[0]}.${bytes[1]}.${bytes[2]}`;
}

export async function signIn(context: BrowserContext, user: Pick<User, "id">) {
  const cookie = (await sessionCookieFor(user)).split(";")[0]!;
  const [name, value] = [cookie.slice(0, cookie.indexOf("=")), cookie.slice(cookie.indexOf("=") + 1)];
  await context.addCookies([{ name, value, url: E2E.baseURL }]);
}

export const test = base.extend<{ clientIp: string; createUser: UserFactory; asAdmin: User; asResident: User }>({
  // With JavaScript, wait for hydration after each navigation so clicks reach React.
  page: async ({ page, javaScriptEnabled }, use) => {
    page.on("pageerror", (error) => console.error(`[pageerror] ${page.url()}: ${error.message}`));
    if (javaScriptEnabled) {
      const goto = page.goto.bind(page);
      page.goto = async (url, options) => {
        const response = await goto(url, options);
        await page.waitForSelector("html[data-hydrated]", { state: "attached" });
        return response;
      };
      const reload = page.reload.bind(page);
      page.reload = async (options) => {
        const response = await reload(options);
        await page.waitForSelector("html[data-hydrated]", { state: "attached" });
        return response;
      };
    }
    await use(page);
  },
  clientIp: async ({}, use) => use(randomIp()),
  extraHTTPHeaders: async ({ clientIp }, use) => use({ "X-Forwarded-For": clientIp }),
  createUser: async ({}, use) => {
    await use(async ({ role = "user", status = "active", password = "contraseña-segura-1" } = {}) => {
      const name = `${role}-${crypto.randomUUID().slice(0, 8)}`;
      const user = await createUser({ username: name, email: `${name}@example.com`, password, role, status, firstName: "Prueba" });
      return { ...user, password };
    });
  },
  asAdmin: async ({ context, createUser }, use) => {
    const admin = await createUser({ role: "admin" });
    await signIn(context, admin);
    await use(admin);
  },
  asResident: async ({ context, createUser }, use) => {
    const resident = await createUser({ role: "user" });
    await signIn(context, resident);
    await use(resident);
  },
});

export { expect, mimePart };

const require = createRequire(import.meta.url);
const axeSource = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/**
 * Runs axe-core in the page; returns the serious and critical violations.
 * axe is evaluated through the DevTools protocol, not added as a <script>:
 * the pages' Content-Security-Policy refuses inline scripts without its nonce.
 * It is evaluated once per document (a second scan of the same page, after
 * the test changed it, reuses it). Only violations are gathered in full
 * (`resultTypes`): passes and inapplicable rules keep one node each, which
 * spares axe the selectors of every passing node and changes no violation.
 */
export async function seriousA11yViolations(page: Page) {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe;
    const result = await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] },
      resultTypes: ["violations"],
    });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(" ")) }));
  });
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}

/** The newest toast with this text (toasts stack, newest on top). */
export function toast(page: Page, text: string | RegExp) {
  return page.getByTestId("toast").filter({ hasText: text }).first();
}

/** With JavaScript, the open dialog holds the focus. */
export async function expectFocusInside(page: Page, dialog: Locator) {
  await expect(dialog).toBeVisible();
  await expect.poll(() => page.evaluate(() => Boolean(document.activeElement?.closest('[role="dialog"]')))).toBe(true);
}

/**
 * Closes a dialog without acting: with JavaScript by Escape (focus was
 * trapped inside it), without it by its 'Cerrar' link.
 */
export async function dismissDialog(page: Page, dialog: Locator, javaScriptEnabled: boolean) {
  if (javaScriptEnabled) {
    await expectFocusInside(page, dialog);
    await page.keyboard.press("Escape");
  } else {
    await dialog.getByRole("link", { name: "Cerrar" }).click();
  }
  await expect(dialog).toHaveCount(0);
}

/**
 * The mails the e2e server wrote to its outbox (it runs without SMTP_URL)
 * whose raw source or decoded plain text contains `text`, once there are
 * `count` of them.
 */
export async function outboxMails(text: string, count = 1) {
  const dir = path.join(E2E.root, "outbox");
  let found: string[] = [];
  await expect
    .poll(() => {
      const files = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
      found = files
        .map((file) => fs.readFileSync(path.join(dir, file), "utf8"))
        .filter((raw) => raw.includes(text) || (mimePart(raw, "text/plain") ?? "").includes(text));
      return found.length;
    })
    .toBeGreaterThanOrEqual(count);
  return found;
}
