// /admin/incidents with and without JavaScript. Each test makes its own
// door (and incidents on it) with fresh names and filters by that door where
// it can, so tests running side by side never see each other's rows.
import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { dismissDialog, expect, expectFocusInside, test, toast } from "./fixtures";

const { createTestDoor, createTestPublicIncident, createTestResidentIncident } = await import("../setup/fixtures");
const { getIncidentById } = await import("~/models/incident.server");
const { listNotificationsOfUser } = await import("~/models/notification.server");
const { createUser } = await import("~/models/user.server");
const { createIncident } = await import("~/services/incidents.server");

const unique = () => randomUUID().slice(0, 8);

async function door(name = `Puerta ${unique()}`) {
  return createTestDoor({ code: `e2e-${unique()}`, name, location: `Planta ${unique().slice(0, 3)}` });
}

async function doorIncident(doorId: string, reporter: { id: string; username: string }, fields: { title?: string; urgency?: "low" | "medium" | "high" | "critical"; type?: "hardware" | "access" | "network" | "maintenance" | "other" } = {}) {
  const created = await createIncident({ doorId, type: fields.type ?? "hardware", urgency: fields.urgency ?? "medium", title: fields.title ?? `Avería ${unique()}` }, reporter);
  if (!created.ok) throw new Error(created.message);
  return created.incident;
}

function card(page: Page, title: string) {
  return page.getByTestId("incident-card").filter({ has: page.getByRole("heading", { name: title, exact: true }) });
}

test.describe("list", () => {
  test("shows a public fault report, a resident's report and a door incident in one list", async ({ page, asAdmin }) => {
    const where = `Pasillo ${unique()}`;
    const publicReport = await createTestPublicIncident({ nombre: "Carmen Vecina", departamento: "4", ubicacion: where, tipo: "electrico", urgencia: "emergencia", descripcion: "Chispas en el enchufe" });
    const name = `res-${unique()}`;
    const resident = await createUser({ username: name, email: `${name}@example.com`, password: "secreto-123", firstName: "Lucía", lastName: "Suárez", unitNumber: "3B" });
    const residentTitle = `Radiador ${unique()}`;
    const residents = await createTestResidentIncident(resident, { title: residentTitle, urgency: "critical", photos: ["foto-1.jpg", "foto-2.jpg"] });
    const garage = await door(`Garaje ${unique()}`);
    const doorTitle = `Lector ${unique()}`;
    const onDoor = await doorIncident(garage.id, asAdmin, { title: doorTitle, urgency: "critical", type: "maintenance" });

    // Critical maintenance: only this test makes such incidents, so all three are on the first page.
    await page.goto("/admin/incidents?type=maintenance&urgency=critical");
    await expect(page.getByRole("heading", { name: "Gestión de Incidencias", level: 1 })).toBeVisible();

    const publicCard = card(page, `Avería eléctrica · ${where}`);
    await expect(publicCard.getByTestId("incident-source")).toHaveText("Aviso público Carmen Vecina · Planta 4");
    await expect(publicCard).toContainText(`#${publicReport.id.slice(-6)}`);
    await expect(publicCard).toContainText("Abierta");
    await expect(publicCard).toContainText("Urgencia: Crítica");
    await expect(publicCard).toContainText("Mantenimiento · Electricidad");
    await expect(publicCard).toContainText("Chispas en el enchufe");

    const residentCard = card(page, residentTitle);
    await expect(residentCard.getByTestId("incident-source")).toHaveText("Residente Lucía Suárez · Unidad 3B");
    const photos = residentCard.getByRole("img");
    await expect(photos).toHaveCount(2);
    await expect(photos.first()).toHaveAttribute("src", `/api/user-portal/incidents/${residents.id}/photos/foto-1.jpg`);
    await expect(publicCard.getByRole("img")).toHaveCount(0);

    const doorCard = card(page, doorTitle);
    await expect(doorCard.getByTestId("incident-source")).toHaveText(`Puerta ${garage.name} · reportada por ${asAdmin.username}`);
    await expect(doorCard).toContainText(`#${onDoor.id.slice(-6)}`);
    await expect(doorCard).toContainText("Urgencia: Crítica");
    await expect(doorCard).toContainText("Mantenimiento");
    await expect(doorCard.locator("time")).toHaveAttribute("datetime", onDoor.reportedAt.toISOString());
  });

  test("filters by status, type, urgency and door (in the URL) and 'Limpiar' resets them", async ({ page, asAdmin }) => {
    const target = await door();
    const other = await door();
    const high = await doorIncident(target.id, asAdmin, { title: `Alta ${unique()}`, urgency: "high", type: "network" });
    const low = await doorIncident(target.id, asAdmin, { title: `Baja ${unique()}`, urgency: "low", type: "network" });
    const elsewhere = await doorIncident(other.id, asAdmin, { title: `Otra ${unique()}`, urgency: "high", type: "network" });

    await page.goto("/admin/incidents");
    await page.getByLabel("Puerta", { exact: true }).selectOption({ label: `${target.name} (${target.location})` });
    await page.getByLabel("Urgencia", { exact: true }).selectOption({ label: "Alta" });
    await page.getByLabel("Tipo", { exact: true }).selectOption({ label: "Red" });
    await page.getByRole("button", { name: "Aplicar Filtros" }).click();
    await expect(page).toHaveURL(new RegExp(`doorId=${target.code}`));
    await expect(page).toHaveURL(/urgency=high/);
    await expect(page.getByTestId("incident-card")).toHaveCount(1);
    await expect(card(page, high.title)).toBeVisible();
    await expect(page.getByRole("region", { name: "Estadísticas de las incidencias filtradas" })).toContainText("1Total");

    await page.getByLabel("Estado", { exact: true }).selectOption({ label: "Cerrada" });
    await page.getByRole("button", { name: "Aplicar Filtros" }).click();
    await expect(page.getByRole("heading", { name: "No hay incidencias" })).toBeVisible();

    // The URL alone opens the same list (a bookmark, a reload).
    await page.goto(`/admin/incidents?doorId=${target.code}&urgency=low`);
    await expect(page.getByTestId("incident-card")).toHaveCount(1);
    await expect(card(page, low.title)).toBeVisible();
    await expect(page.getByLabel("Urgencia", { exact: true })).toHaveValue("low");
    await expect(card(page, elsewhere.title)).toHaveCount(0);

    await page.getByRole("link", { name: "Limpiar" }).click();
    await expect(page).toHaveURL(/\/admin\/incidents$/);
    await expect(page.getByLabel("Puerta", { exact: true })).toHaveValue("");
    await expect(page.getByLabel("Urgencia", { exact: true })).toHaveValue("");
  });

  test("an empty list says 'No hay incidencias' and offers creating the first one; 'Actualizar' reloads", async ({ page, asAdmin }) => {
    const empty = await door();
    await page.goto(`/admin/incidents?doorId=${empty.code}`);
    await expect(page.getByRole("heading", { name: "No hay incidencias" })).toBeVisible();
    await expect(page.getByRole("navigation", { name: "Paginación" })).toHaveCount(0);

    const created = await doorIncident(empty.id, asAdmin);
    await page.getByRole("link", { name: "Actualizar" }).click();
    await expect(card(page, created.title)).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`doorId=${empty.code}$`));

    const another = await door();
    await page.goto(`/admin/incidents?doorId=${another.code}`);
    await page.getByRole("link", { name: "Crear la primera incidencia" }).click();
    await expect(page.getByRole("dialog", { name: "Crear Incidencia" })).toBeVisible();
  });

  test("pages by 20 only past one page", async ({ page, asAdmin }) => {
    const busy = await door();
    for (let i = 0; i < 21; i++) await doorIncident(busy.id, asAdmin, { title: `Corte ${i} ${busy.code}` });
    await page.goto(`/admin/incidents?doorId=${busy.code}`);
    await expect(page.getByTestId("incident-card")).toHaveCount(20);
    await expect(page.getByTestId("incident-count")).toHaveText("21 incidencias");
    const pagination = page.getByRole("navigation", { name: "Paginación" });
    await expect(pagination).toContainText("Página 1 de 2");
    await pagination.getByRole("link", { name: "Siguiente" }).click();
    await expect(pagination).toContainText("Página 2 de 2");
    await expect(page.getByTestId("incident-card")).toHaveCount(1);
    await expect(card(page, `Corte 0 ${busy.code}`)).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`doorId=${busy.code}&page=2`));
  });
});

test.describe("create, edit, advance, delete", () => {
  test("creates an incident on a door after the SPEC's required-field messages", async ({ page, asAdmin, javaScriptEnabled }) => {
    const target = await door();
    await page.goto(`/admin/incidents?doorId=${target.code}`);
    await page.getByRole("link", { name: "Crear Incidencia" }).click();
    const dialog = page.getByRole("dialog", { name: "Crear Incidencia" });
    if (javaScriptEnabled) await expectFocusInside(page, dialog);
    await expect(dialog.getByLabel("Urgencia")).toHaveValue("medium");
    await expect(dialog.getByLabel("Descripción (opcional)")).toHaveAttribute("rows", "4");

    await dialog.getByRole("button", { name: "Crear Incidencia" }).click();
    for (const message of ["El título es requerido", "El tipo es requerido", "La puerta es requerida"]) {
      await expect(dialog.getByText(message)).toBeVisible();
    }

    const title = `Puerta atascada ${unique()}`;
    await dialog.getByLabel("Título").fill(title);
    await dialog.getByLabel("Tipo").selectOption({ label: "Acceso" });
    await dialog.getByLabel("Puerta").selectOption({ label: `${target.name} (${target.location})` });
    await dialog.getByLabel("Descripción (opcional)").fill("Cuesta abrirla");
    await dialog.getByRole("button", { name: "Crear Incidencia" }).click();

    await expect(toast(page, "Incidencia Creada")).toContainText(title);
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(page).toHaveURL(new RegExp(`/admin/incidents\\?doorId=${target.code}$`));
    const created = card(page, title);
    await expect(created).toContainText("Urgencia: Media");
    await expect(created).toContainText("Acceso");
    await expect(created).toContainText("Cuesta abrirla");
  });

  test("edits title, type, status, urgency and description", async ({ page, asAdmin, javaScriptEnabled }) => {
    const target = await door();
    const incident = await doorIncident(target.id, asAdmin, { urgency: "low" });
    await page.goto(`/admin/incidents?doorId=${target.code}`);
    await card(page, incident.title).getByRole("link", { name: "Editar" }).click();
    const dialog = page.getByRole("dialog", { name: "Editar Incidencia" });
    if (javaScriptEnabled) await expectFocusInside(page, dialog);
    await expect(dialog.getByLabel("Título")).toHaveValue(incident.title);

    await dialog.getByLabel("Título").fill("");
    await dialog.getByRole("button", { name: "Guardar Cambios" }).click();
    await expect(dialog.getByText("El título es requerido")).toBeVisible();

    const title = `Cable suelto ${unique()}`;
    await dialog.getByLabel("Título").fill(title);
    await dialog.getByLabel("Tipo").selectOption({ label: "Red" });
    await dialog.getByLabel("Estado").selectOption({ label: "Resuelta" });
    await dialog.getByLabel("Urgencia").selectOption({ label: "Crítica" });
    await dialog.getByLabel("Descripción (opcional)").fill("Bajo el falso techo");
    await dialog.getByRole("button", { name: "Guardar Cambios" }).click();

    await expect(toast(page, "Incidencia Actualizada")).toContainText(title);
    await expect(page.getByRole("dialog")).toHaveCount(0);
    const edited = card(page, title);
    await expect(edited).toContainText("Resuelta");
    await expect(edited).toContainText("Urgencia: Crítica");
    await expect(edited).toContainText("Bajo el falso techo");
    expect(await getIncidentById(incident.id)).toMatchObject({ title, type: "network", status: "resolved", urgency: "critical" });
  });

  test("the advance button is labelled with the next status and cycles open → in progress → resolved → closed → open", async ({ page, asAdmin }) => {
    const target = await door();
    const incident = await doorIncident(target.id, asAdmin);
    await page.goto(`/admin/incidents?doorId=${target.code}`);
    const steps = [
      ["En Progreso", "en progreso"],
      ["Resuelta", "resuelta"],
      ["Cerrada", "cerrada"],
      ["Abierta", "abierta"],
    ] as const;
    for (const [label] of steps) {
      await card(page, incident.title).getByRole("button", { name: new RegExp(`^${label}:`) }).click();
      await expect(toast(page, `Incidencia marcada como ${label}`)).toContainText("Estado Actualizado");
      await expect(card(page, incident.title).locator(".incident-badges")).toContainText(label);
    }
    await expect(page).toHaveURL(new RegExp(`doorId=${target.code}$`));
    expect((await getIncidentById(incident.id))?.status).toBe("open");
  });

  test("a status change of a resident's incident reaches the resident", async ({ page, asAdmin }) => {
    const name = `res-${unique()}`;
    const resident = await createUser({ username: name, email: `${name}@example.com`, password: "secreto-123" });
    const title = `Persiana ${unique()}`;
    await createTestResidentIncident(resident, { title, urgency: "high" });
    await page.goto("/admin/incidents?status=open&type=maintenance&urgency=high");
    await card(page, title).getByRole("button", { name: /^En Progreso:/ }).click();
    await expect(toast(page, "Incidencia marcada como En Progreso")).toBeVisible();
    await expect.poll(async () => (await listNotificationsOfUser(resident.id)).map((n) => n.message)).toEqual([`Tu incidencia «${title}» está ahora en progreso.`]);
  });

  test("deletes after the confirmation; 'Cerrar' keeps it", async ({ page, asAdmin, javaScriptEnabled }) => {
    const target = await door();
    const incident = await doorIncident(target.id, asAdmin);
    await page.goto(`/admin/incidents?doorId=${target.code}`);
    await card(page, incident.title).getByRole("link", { name: "Eliminar" }).click();
    const dialog = page.getByRole("dialog", { name: "Eliminar incidencia" });
    await expect(dialog).toContainText("¿Estás seguro de que quieres eliminar esta incidencia?");
    await dismissDialog(page, dialog, javaScriptEnabled);
    expect(await getIncidentById(incident.id)).not.toBeNull();

    await card(page, incident.title).getByRole("link", { name: "Eliminar" }).click();
    await page.getByRole("dialog", { name: "Eliminar incidencia" }).getByRole("button", { name: "Eliminar" }).click();
    await expect(toast(page, "Incidencia Eliminada")).toContainText(incident.title);
    await expect(page.getByRole("heading", { name: "No hay incidencias" })).toBeVisible();
    expect(await getIncidentById(incident.id)).toBeNull();
  });

  test("an incident deleted meanwhile: the advance is refused with the SPEC's error toast", async ({ page, asAdmin }) => {
    const target = await door();
    const incident = await doorIncident(target.id, asAdmin);
    await page.goto(`/admin/incidents?doorId=${target.code}`);
    const { deleteIncident } = await import("~/services/incidents.server");
    await deleteIncident(incident.id);
    await card(page, incident.title).getByRole("button", { name: /^En Progreso:/ }).click();
    await expect(toast(page, "No se pudo actualizar el estado")).toContainText("Incidencia no encontrada");
  });
});
