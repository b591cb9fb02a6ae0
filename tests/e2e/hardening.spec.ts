// What a browser meets at the app's edge (issue 25, points 2, 7 and 9), with
// and without JavaScript: a form posted from another site is refused with the
// Spanish 403 page (never a 500), an oversized form is refused without its
// value coming back, and pages carry a Content-Security-Policy that their own
// scripts satisfy — a page served from the render cache too.
import { E2E } from "../setup/e2e-env";
import { expect, test } from "./fixtures";

const { addDays, todayInMadrid } = await import("~/utils/dates");

test("a form posted to us from another site answers the Spanish 403 page", async ({ page }) => {
  await page.route("http://evil.example/**", (route) =>
    route.fulfill({
      contentType: "text/html",
      body: `<!DOCTYPE html><form method="post" action="${E2E.baseURL}/reservar"><input name="guestName" value="Eva"><button>Enviar</button></form>`,
    }),
  );
  // The frame's goto: the fixture's page.goto waits for our app to hydrate.
  await page.mainFrame().goto("http://evil.example/");
  const answer = page.waitForResponse(`${E2E.baseURL}/reservar`);
  await page.getByRole("button", { name: "Enviar" }).click();
  expect((await answer).status()).toBe(403);
  await expect(page.getByRole("heading", { name: "Acceso denegado" })).toBeVisible();
  await expect(page.getByText("Solicitud rechazada: origen no permitido.")).toBeVisible();
});

test("an oversized booking form is refused and its value never comes back", async ({ page, javaScriptEnabled }) => {
  const huge = "x".repeat(100_000);
  await page.goto("/reservar");
  await page.getByRole("radio", { name: "Sala de reuniones" }).check();
  await page.getByLabel("Fecha de entrada").fill(addDays(todayInMadrid(), 1));
  await page.getByLabel("Fecha de salida").fill(addDays(todayInMadrid(), 2));
  await page.getByLabel("Nombre completo").fill("Gran Texto");
  await page.getByRole("textbox", { name: "Email" }).fill("grande@example.com");
  await page.getByRole("textbox", { name: "Teléfono" }).fill("600 100 100");
  await page.getByLabel("Peticiones especiales (opcional)").fill(huge);
  await page.getByRole("button", { name: "Reservar" }).click();
  if (javaScriptEnabled) {
    // The browser checks the form first: nothing is sent.
    await expect(page.locator(".field-error", { hasText: "Máximo 1000 caracteres" })).toBeVisible();
  } else {
    await expect(page.getByRole("heading", { name: "Solicitud demasiado grande" })).toBeVisible();
    await expect(page.getByText("La solicitud es demasiado grande")).toBeVisible();
  }
  expect(await page.content()).not.toContain(huge.slice(0, 2000));
});

test("pages carry a Content-Security-Policy their scripts satisfy, from the render cache too", async ({ page, javaScriptEnabled }) => {
  // Violations are reported in the page; an init script runs before the page's own (with JavaScript on).
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener("securitypolicyviolation", (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
  });
  const nonces = new Set<string>();
  let cacheHit = false;
  // A public page is served from the render cache once two renders agree.
  for (let visit = 0; visit < 6 && !(cacheHit && visit >= 2); visit++) {
    const response = (await page.goto("/privacidad"))!;
    const csp = response.headers()["content-security-policy"] ?? "";
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(csp).toContain("script-src 'self' 'nonce-");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(nonce).toBeTruthy();
    nonces.add(nonce!);
    // Every inline script of this response carries this response's nonce.
    const html = await response.text();
    const inlineScripts = [...html.matchAll(/<script(?![^>]*\bsrc=)([^>]*)>/g)].map((match) => match[1]!);
    expect(inlineScripts.length).toBeGreaterThan(0);
    for (const attributes of inlineScripts) expect(attributes).toContain(`nonce="${nonce}"`);
    cacheHit = (response.headers()["server-timing"] ?? "").includes("cache hit");
    if (javaScriptEnabled) expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
  }
  expect(cacheHit).toBe(true);
  expect(nonces.size).toBeGreaterThan(1);
  // A form page hydrates under the policy and its browser checks run (with JavaScript).
  await page.goto("/reservar");
  if (javaScriptEnabled) {
    await page.getByRole("button", { name: "Reservar" }).click();
    await expect(page.getByText("El nombre es requerido", { exact: true })).toBeVisible();
    expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
  }
});
