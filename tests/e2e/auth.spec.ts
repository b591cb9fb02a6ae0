import { E2E } from "../setup/e2e-env";
import { expect, test } from "./fixtures";

test.describe("sign-in", () => {
  test("an admin signs in and lands on /admin with a welcome toast", async ({ page, createUser }) => {
    const admin = await createUser({ role: "admin" });
    await page.goto("/login");
    await page.getByLabel("Usuario").fill(admin.username);
    await page.getByLabel("Contraseña").fill(admin.password);
    await page.getByRole("button", { name: "Iniciar Sesión" }).click();
    await expect(page).toHaveURL(/\/admin$/);
    await expect(page.getByText("Sistema de Gestión de Accesos")).toBeVisible();
    await expect(page.getByTestId("toast")).toContainText(`Bienvenido, ${admin.username}`);
  });

  test("a resident signs in and lands on /portal with the portal button but no admin button", async ({ page, createUser }) => {
    const resident = await createUser({ role: "user" });
    await page.goto("/login");
    await page.getByLabel("Usuario").fill(resident.username);
    await page.getByLabel("Contraseña").fill(resident.password);
    await page.getByRole("button", { name: "Iniciar Sesión" }).click();
    await expect(page).toHaveURL(/\/portal$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Bienvenido, Prueba");
    await expect(page.getByTestId("welcome")).toHaveText(`Bienvenido, ${resident.username}`);
    await expect(page.getByRole("link", { name: "Mi Portal" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Panel Admin" })).toHaveCount(0);
  });

  test("a wrong password shows the failure message and signs nobody in", async ({ page, createUser }) => {
    const resident = await createUser();
    await page.goto("/login");
    await page.getByLabel("Usuario").fill(resident.username);
    await page.getByLabel("Contraseña").fill("no-es-esta");
    await page.getByRole("button", { name: "Iniciar Sesión" }).click();
    await expect(page.getByRole("alert")).toContainText("Error al iniciar sesión");
    await expect(page.getByRole("alert")).toContainText("Usuario o contraseña incorrectos");
    await expect(page.getByRole("link", { name: "Iniciar Sesión" })).toBeVisible();
  });

  test("a username with a control character gets the text rule's message, not an error page", async ({ page }) => {
    await page.goto("/login");
    await page.getByLabel("Usuario").fill("eve\u0000admin");
    await page.getByLabel("Contraseña").fill("cualquier-clave");
    await page.getByRole("button", { name: "Iniciar Sesión" }).click();
    await expect(page.getByText("El texto contiene caracteres no permitidos").first()).toBeVisible();
    await expect(page).toHaveURL(/\/login/);
    await expect(page.getByRole("link", { name: "Iniciar Sesión" })).toBeVisible();
  });

  test("empty fields ask to complete them", async ({ page }) => {
    await page.goto("/login");
    await page.getByRole("button", { name: "Iniciar Sesión" }).click();
    await expect(page.getByText("Por favor complete todos los campos").first()).toBeVisible();
  });

  test("a suspended user cannot sign in", async ({ page, createUser }) => {
    const suspended = await createUser({ status: "suspended" });
    await page.goto("/login");
    await page.getByLabel("Usuario").fill(suspended.username);
    await page.getByLabel("Contraseña").fill(suspended.password);
    await page.getByRole("button", { name: "Iniciar Sesión" }).click();
    await expect(page.getByRole("alert")).toContainText("no está activa");
  });

  test("honours a same-site redirectTo and ignores another host", async ({ page, createUser }) => {
    const admin = await createUser({ role: "admin" });
    await page.goto("/login?redirectTo=%2Fadmin%2Fcards");
    await page.getByLabel("Usuario").fill(admin.username);
    await page.getByLabel("Contraseña").fill(admin.password);
    await page.getByRole("button", { name: "Iniciar Sesión" }).click();
    await expect(page).toHaveURL(/\/admin\/cards$/);
  });

  test("too many attempts from one address are refused with 429", async ({ page }) => {
    const attempt = async (username: string) => {
      await page.getByLabel("Usuario").fill(username);
      await page.getByLabel("Contraseña").fill("x");
      await page.getByRole("button", { name: "Iniciar Sesión" }).click();
      await expect(page.getByRole("alert")).toBeVisible();
    };
    await page.goto("/login");
    await attempt("nadie-0");
    // Nine more failures post the same form over HTTP from the same address
    // (the page's context: its X-Forwarded-For), each answered with the
    // failure; then the browser's eleventh attempt meets the limit.
    for (let failure = 1; failure < 10; failure++) {
      const response = await page.request.post("/login", { headers: { Origin: E2E.baseURL }, form: { username: `nadie-${failure}`, password: "x", redirectTo: "" } });
      expect(response.status()).toBe(401);
      expect(await response.text()).toContain("Usuario o contraseña incorrectos");
    }
    await attempt("nadie-10");
    await expect(page.getByRole("alert")).toContainText(
      "Demasiados intentos. Por favor espera un momento antes de intentar nuevamente.",
    );
  });
});

test.describe("guards", () => {
  test("an anonymous visitor of /admin goes to /login", async ({ page }) => {
    await page.goto("/admin/logs");
    await expect(page).toHaveURL(/\/login\?redirectTo=%2Fadmin%2Flogs$/);
  });

  test("an anonymous visitor of /portal goes to /login", async ({ page }) => {
    await page.goto("/portal");
    await expect(page).toHaveURL(/\/login\?redirectTo=%2Fportal$/);
  });

  test("a resident on /admin goes to /", async ({ page, asResident }) => {
    await page.goto("/admin");
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByTestId("welcome")).toContainText(asResident.username);
  });

  test("a signed-in visitor of /login is sent on by role", async ({ page, asAdmin }) => {
    await page.goto("/login");
    await expect(page).toHaveURL(/\/admin$/);
  });
});

test("logout from the top bar signs out, goes to / and shows a toast", async ({ page, asResident }) => {
  await page.goto("/portal");
  await expect(page.getByRole("heading", { name: /Bienvenido/ })).toBeVisible();
  await page.getByRole("button", { name: "Cerrar Sesión" }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByTestId("toast")).toContainText("Sesión cerrada");
  await expect(page.getByRole("link", { name: "Iniciar Sesión" })).toBeVisible();
  await page.goto("/portal");
  await expect(page).toHaveURL(/\/login/);
});

test("logout from the admin sidebar goes to /login, and the old session cookie opens nothing", async ({ page, context, asAdmin }) => {
  await page.goto("/admin");
  const before = (await context.cookies()).find((cookie) => cookie.name === "__session")!;
  await page.getByRole("button", { name: "Cerrar Sesión" }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.goto("/admin");
  await expect(page).toHaveURL(/\/login\?redirectTo/);
  // A copy of the cookie taken before signing out is refused too: the session ended on the server.
  await context.addCookies([before]);
  await page.goto("/admin");
  await expect(page).toHaveURL(/\/login/);
});

test("the theme choice persists across reloads", async ({ page, javaScriptEnabled }) => {
  await page.goto("/");
  await page.locator("#theme-top").selectOption("ocean");
  if (!javaScriptEnabled) await page.getByRole("button", { name: "Aplicar" }).click();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "ocean");
  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "ocean");
  await page.goto("/reservar");
  await expect(page.locator("html")).toHaveAttribute("data-theme", "ocean");
});

test("with no choice made the system dark preference picks the dark palette", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto("/");
  await expect(page.locator("html")).toHaveAttribute("data-theme", "system");
  const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(background).toBe("rgb(17, 20, 24)");
});

test("unknown pages answer a Spanish 404", async ({ page }) => {
  const response = await page.goto("/no-existe");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Página no encontrada" })).toBeVisible();
});
