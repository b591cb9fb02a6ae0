import crypto from "node:crypto";
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

for (const [modal, query] of USERS_MODALS) {
  test(`no serious accessibility violations in the /admin/users ${modal} modal`, async ({ page, asAdmin }) => {
    const data = await usersModalData();
    await page.goto(`/admin/users?search=${data.name}&${query(data)}`);
    await expect(page.getByRole("dialog")).toBeVisible();
    expect(await seriousA11yViolations(page)).toEqual([]);
    if (modal !== "assign") return;
    // Once a card of someone else is chosen: the card's fields and the reassignment warning.
    await page.getByLabel("Tarjeta", { exact: true }).selectOption({ label: `${data.othersCard.cardNumber} · ${data.inactive.username}` });
    await expect(page.getByTestId("reassign-warning")).toBeVisible();
    expect(await seriousA11yViolations(page)).toEqual([]);
  });
}
