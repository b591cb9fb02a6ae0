import crypto from "node:crypto";
import type { Page } from "@playwright/test";
import { E2E } from "../setup/e2e-env";
import { expect, seriousA11yViolations, test } from "./fixtures";

const { serializeTheme } = await import("~/utils/theme.server");
const { THEMES } = await import("~/utils/theme");
const { createTestDoor, createTestReservation } = await import("../setup/fixtures");

const PUBLIC_PAGES = ["/", "/login", "/reservar", "/consulta", "/reserva-consulta", "/incidencias", "/visita", "/privacidad", "/no-existe"];
const ADMIN_PAGES = ["/admin", "/admin?modal=new", "/admin/users", "/admin/cards", "/admin/logs", "/admin/incidents", "/admin/reservations", "/admin/consultations", "/admin/copias", "/admin/auditoria"];
// The inventory's screens (issue 28), in the default theme.
const INVENTORY_PAGES = ["/admin/habitaciones", "/admin/habitaciones?modal=new", "/admin/ocupacion", "/admin/instalaciones", "/admin/invitaciones"];

async function violationsOn(page: Page, path: string) {
  await page.goto(path);
  return (await seriousA11yViolations(page)).map((violation) => ({ path, ...violation }));
}

// Pages that share a caller are scanned one after another in one test (one
// browser page, one sign-in): a test of its own per page cost more in setting
// up than in scanning. Each violation names its page.
async function violationsOnEach(page: Page, paths: string[]) {
  const found = [];
  for (const path of paths) found.push(...(await violationsOn(page, path)));
  return found;
}

test("no serious accessibility violations on the public pages", async ({ page }) => {
  test.setTimeout(120_000);
  expect(await violationsOnEach(page, PUBLIC_PAGES)).toEqual([]);
});

test("no serious accessibility violations on /portal", async ({ page, asResident }) => {
  expect(await violationsOn(page, "/portal")).toEqual([]);
});

test("no serious accessibility violations on the admin pages", async ({ page, asAdmin }) => {
  test.setTimeout(120_000);
  expect(await violationsOnEach(page, ADMIN_PAGES)).toEqual([]);
});

test("no serious accessibility violations on the inventory's pages", async ({ page, asAdmin }) => {
  test.setTimeout(120_000);
  expect(await violationsOnEach(page, INVENTORY_PAGES)).toEqual([]);
});

// Every theme, every page: colour contrast of buttons, badges and links included.
for (const theme of THEMES) {
  test(`no serious accessibility violations in the ${theme} theme`, async ({ page, context, asAdmin }) => {
    test.setTimeout(120_000);
    const cookie = (await serializeTheme(theme)).split(";")[0]!;
    await context.addCookies([{ name: "theme", value: cookie.slice("theme=".length), url: E2E.baseURL }]);
    // Pages as people see them: doors with their danger buttons, a confirmation, a lookup's result.
    const door = await createTestDoor();
    const reservation = await createTestReservation({ guestName: "Tema", guestEmail: "tema@example.com", guestPhone: "600 123 456", reservationType: "sala", roomType: null });
    const found = [];
    for (const path of [...PUBLIC_PAGES, ...ADMIN_PAGES, `/admin?modal=delete&door=${door.id}`]) found.push(...(await violationsOn(page, path)));
    await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
    await page.goto("/reserva-consulta");
    await page.getByLabel("Código de reserva").fill(reservation.reservationCode);
    await page.getByRole("textbox", { name: "Email" }).fill("tema@example.com");
    await page.getByRole("button", { name: "Buscar Reserva" }).click();
    await expect(page.getByTestId("reservation-status")).toBeVisible();
    found.push(...(await seriousA11yViolations(page)).map((violation) => ({ path: "/reserva-consulta (result)", ...violation })));
    expect(found).toEqual([]);
  });
}

/** A resident with a card, an inactive resident holding another card, and a pending card nobody holds. */
async function usersModalData() {
  const { createUser } = await import("~/models/user.server");
  const { assignCardToUser, registerCard } = await import("~/models/card.server");
  const name = `a11y-${crypto.randomUUID().slice(0, 8)}`;
  const user = await createUser({ username: name, email: `${name}@example.com`, password: "castaños-y-sidra", firstName: "Marta" });
  const inactive = await createUser({ username: `${name}-off`, email: `${name}-off@example.com`, password: "castaños-y-sidra", status: "inactive" });
  const { card } = await assignCardToUser(user.id, { cardNumber: crypto.randomBytes(5).toString("hex"), alias: "Llavero" });
  const { card: othersCard } = await assignCardToUser(inactive.id, { cardNumber: crypto.randomBytes(5).toString("hex") });
  await registerCard({ cardNumber: crypto.randomBytes(5).toString("hex"), status: "pending", isAnonymous: true });
  return { name, user, inactive, card, othersCard };
}

const USERS_MODALS: Array<[string, (data: Awaited<ReturnType<typeof usersModalData>>) => string]> = [
  ["new", () => "modal=new"],
  ["edit", ({ user }) => `modal=edit&user=${user.id}`],
  ["detail", ({ user }) => `modal=detail&user=${user.id}`],
  ["inactivate", ({ user }) => `modal=inactivate&user=${user.id}`],
  ["activate", ({ inactive }) => `modal=activate&user=${inactive.id}`],
  ["delete", ({ user }) => `modal=delete&user=${user.id}`],
  ["assign", ({ user }) => `modal=assign&user=${user.id}`],
  ["edit-card", ({ user, card }) => `modal=edit-card&user=${user.id}&card=${card.id}`],
  ["unassign", ({ user, card }) => `modal=unassign&user=${user.id}&card=${card.id}`],
];

// Opening a modal by its URL changes nothing, so the modals share one set of data.
test("no serious accessibility violations in the /admin/users modals", async ({ page, asAdmin }) => {
  test.setTimeout(120_000);
  const data = await usersModalData();
  const found = [];
  for (const [modal, query] of USERS_MODALS) {
    await page.goto(`/admin/users?search=${data.name}&${query(data)}`);
    await expect(page.getByRole("dialog")).toBeVisible();
    found.push(...(await seriousA11yViolations(page)).map((violation) => ({ modal, ...violation })));
    if (modal !== "assign") continue;
    // Once a card of someone else is chosen: the card's fields and the reassignment warning.
    await page.getByLabel("Tarjeta", { exact: true }).selectOption({ label: `${data.othersCard.cardNumber} · ${data.inactive.username}` });
    await expect(page.getByTestId("reassign-warning")).toBeVisible();
    found.push(...(await seriousA11yViolations(page)).map((violation) => ({ modal: "assign (another's card chosen)", ...violation })));
  }
  expect(found).toEqual([]);
});

/** The back office's modals and empty state, each opened by its URL on data made for it. */
const BACK_OFFICE_VIEWS: Array<{ name: string; url: (admin: { id: string; username: string }) => Promise<string>; dialog?: false }> = [
  { name: "incidents: create", url: async () => "/admin/incidents?modal=new" },
  ...(["edit", "delete"] as const).map((modal) => ({
    name: `incidents: ${modal}`,
    url: async (admin: { id: string; username: string }) => {
      const { createTestDoor } = await import("../setup/fixtures");
      const { createIncident } = await import("~/services/incidents.server");
      const created = await createIncident({ doorId: (await createTestDoor()).id, type: "hardware", urgency: "high", title: "Lector del garaje" }, admin);
      if (!created.ok) throw new Error(created.message);
      return `/admin/incidents?modal=${modal}&incident=${created.incident.id}`;
    },
  })),
  { name: "incidents: not found", url: async () => "/admin/incidents?modal=edit&incident=nope" },
  {
    name: "incidents: empty list, and a resident's photos",
    dialog: false,
    url: async (admin) => {
      const { createTestDoor, createTestResidentIncident } = await import("../setup/fixtures");
      await createTestResidentIncident(admin, { photos: ["foto.jpg"] });
      return `/admin/incidents?doorId=${(await createTestDoor()).id}`;
    },
  },
  ...(["detail", "cancel"] as const).map((modal) => ({
    name: `reservations: ${modal}`,
    url: async () => {
      const { createTestReservation } = await import("../setup/fixtures");
      return `/admin/reservations?modal=${modal}&reservation=${(await createTestReservation({ specialRequests: "Cuna" })).id}`;
    },
  })),
  ...(["detail", "message", "delete"] as const).map((modal) => ({
    name: `consultations: ${modal}`,
    url: async () => {
      const { createTestConsultation } = await import("../setup/fixtures");
      const visit = await createTestConsultation({ kind: "visita", visitDate: "2026-12-24", visitTime: "17:00", mensaje: "Solicitud de visita\nFecha preferida: 24/12/2026\nHora preferida: 17:00" });
      return `/admin/consultations?modal=${modal}&consultation=${visit.id}`;
    },
  })),
];

test("no serious accessibility violations in the back office's modals and empty state", async ({ page, asAdmin }) => {
  test.setTimeout(120_000);
  const found = [];
  for (const view of BACK_OFFICE_VIEWS) {
    await page.goto(await view.url(asAdmin));
    if (view.dialog !== false) await expect(page.getByRole("dialog")).toBeVisible();
    found.push(...(await seriousA11yViolations(page)).map((violation) => ({ view: view.name, ...violation })));
  }
  expect(found).toEqual([]);
});
