// Accessibility of the resident portal and each of its modals (axe runs in
// the JavaScript project; the no-JS markup is the same server render).
import type { Page } from "@playwright/test";
import { expect, seriousA11yViolations, signIn, test } from "./fixtures";

const { createUser } = await import("~/models/user.server");
const { createResidentBooking } = await import("~/services/facility-bookings.server");
const { reportResidentIncident } = await import("~/services/resident-incidents.server");
const { insertNotification } = await import("~/models/notification.server");
const { addDays, todayInMadrid } = await import("~/utils/dates");
const { createTestFacility, TINY_PNG } = await import("../setup/fixtures");

/** A signed-in resident with a booking, an incident with a photo and a notification. */
async function residentWithData(page: Page) {
  const username = `a11y-${Math.random().toString(36).slice(2, 8)}`;
  const resident = await createUser({ username, email: `${username}@example.com`, password: "clave-segura-1", firstName: "Ana", unitNumber: "1A" });
  const facility = await createTestFacility("pool");
  const booking = await createResidentBooking(resident, { facilityType: "pool", facilityId: facility.id, date: addDays(todayInMadrid(), 5), startTime: "09:00", duration: 1 });
  const incident = await reportResidentIncident(resident, { title: "Ducha fría", category: "plumbing", location: "Baño", description: "Sin agua caliente", priority: "high" }, [
    { filename: "ducha.png", bytes: TINY_PNG },
  ]);
  if (!booking.ok || !incident.ok) throw new Error("fixtures");
  await insertNotification(resident.id, { type: "info", title: "Hola", message: "Bienvenida" });
  await signIn(page.context(), resident);
  return { bookingId: booking.booking._id, incidentId: incident.incident._id };
}

const PAGES: Array<[string, (ids: { bookingId: string; incidentId: string }) => string]> = [
  ["the page", () => "/portal"],
  ["the new booking modal", () => "/portal?modal=reservar"],
  ["the report modal", () => "/portal?modal=reportar"],
  ["the edit incident modal", ({ incidentId }) => `/portal?modal=editar-incidencia&incidencia=${incidentId}`],
  ["the cancel incident modal", ({ incidentId }) => `/portal?modal=cancelar-incidencia&incidencia=${incidentId}`],
  ["the cancel booking modal", ({ bookingId }) => `/portal?modal=cancelar-reserva&reserva=${bookingId}`],
  ["the profile modal", () => "/portal?modal=perfil"],
  ["the password modal", () => "/portal?modal=contrasena"],
  ["the invite a visitor modal", () => "/portal?modal=invitar"],
];

// Opening a modal by its URL changes nothing, so one resident's data serves
// every view, scanned one after another in one browser page.
test("no serious accessibility violations on the portal and its modals", async ({ page }) => {
  test.setTimeout(120_000);
  const ids = await residentWithData(page);
  const found = [];
  for (const [name, pathOf] of PAGES) {
    const path = pathOf(ids);
    await page.goto(path);
    if (path.includes("modal=")) await expect(page.getByRole("dialog")).toBeVisible();
    found.push(...(await seriousA11yViolations(page)).map((violation) => ({ view: name, ...violation })));
  }
  expect(found).toEqual([]);
});
