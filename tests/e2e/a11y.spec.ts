import { expect, seriousA11yViolations, test } from "./fixtures";

const PUBLIC_PAGES = ["/", "/login", "/reservar", "/consulta", "/reserva-consulta", "/incidencias", "/visita", "/privacidad", "/no-existe"];
const ADMIN_PAGES = ["/admin", "/admin?modal=new", "/admin/users", "/admin/cards", "/admin/logs", "/admin/incidents", "/admin/reservations", "/admin/consultations"];

for (const path of PUBLIC_PAGES) {
  test(`no serious accessibility violations on ${path}`, async ({ page }) => {
    await page.goto(path);
    expect(await seriousA11yViolations(page)).toEqual([]);
  });
}

test("no serious accessibility violations on /portal", async ({ page, asResident }) => {
  await page.goto("/portal");
  expect(await seriousA11yViolations(page)).toEqual([]);
});

for (const path of ADMIN_PAGES) {
  test(`no serious accessibility violations on ${path}`, async ({ page, asAdmin }) => {
    await page.goto(path);
    expect(await seriousA11yViolations(page)).toEqual([]);
  });
}

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

for (const view of BACK_OFFICE_VIEWS) {
  test(`no serious accessibility violations in ${view.name}`, async ({ page, asAdmin }) => {
    await page.goto(await view.url(asAdmin));
    if (view.dialog !== false) await expect(page.getByRole("dialog")).toBeVisible();
    expect(await seriousA11yViolations(page)).toEqual([]);
  });
}
