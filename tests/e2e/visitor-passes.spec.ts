// Visitor passes (issue 29) in the browser, with and without JavaScript: a
// resident invites a visitor from the portal (the PIN and QR shown once, the
// visitor's mail written) and cancels the pass; the house cancels one from
// /admin/invitaciones. The doors' side is tested in
// tests/integration/visitor-passes.test.ts.
import { randomBytes } from "node:crypto";
import { expect, mimePart, outboxMails, test, toast } from "./fixtures";

const { createTestDoor } = await import("../setup/fixtures");
const { assignCardToUser } = await import("~/models/card.server");
const { setCardPermission } = await import("~/services/cards.server");
const { updateDoor } = await import("~/services/doors.server");
const { createVisitorPass } = await import("~/services/visitor-passes.server");
const { getUserById } = await import("~/models/user.server");
const { addDays, todayInMadrid } = await import("~/utils/dates");

/** An entrance the resident's own card opens. */
async function entranceFor(userId: string) {
  const door = await createTestDoor({ name: `Portal ${randomBytes(3).toString("hex")}` });
  await updateDoor(door.id, { isEntrance: true });
  const { card } = await assignCardToUser(userId, { cardNumber: randomBytes(4).toString("hex").toUpperCase(), expiresAt: null });
  expect((await setCardPermission(card.id, door.id, true)).ok).toBe(true);
  return door;
}

test("a resident invites a visitor, sees the code once, and cancels the invitation", async ({ page, asResident }) => {
  test.slow();
  const door = await entranceFor(asResident.id);
  const visitor = `Bea ${randomBytes(3).toString("hex")}`;
  const email = `${visitor.replace(" ", ".").toLowerCase()}@correo.es`;
  await page.goto("/portal");
  const card = page.getByRole("region", { name: "Mis Invitaciones" });
  await expect(card.getByText("No has invitado a nadie.")).toBeVisible();
  await card.getByRole("link", { name: "Invitar a una visita" }).click();
  const dialog = page.getByRole("dialog", { name: "Invitar a una visita" });
  await expect(dialog.getByLabel(door.name)).toBeChecked();
  await dialog.getByLabel("Nombre de la visita").fill(visitor);
  await dialog.getByLabel("Email de la visita").fill(email);
  await dialog.getByLabel("Fecha").fill(addDays(todayInMadrid(), 3));
  await dialog.getByLabel("Desde").fill("12:00");
  await dialog.getByLabel("Hasta").fill("10:00");
  await dialog.getByRole("button", { name: "Invitar" }).click();
  await expect(dialog.getByText("La hora de fin debe ser posterior a la de inicio")).toBeVisible();

  await dialog.getByLabel("Desde").fill("10:00");
  await dialog.getByLabel("Hasta").fill("12:00");
  await dialog.getByRole("button", { name: "Invitar" }).click();
  const created = page.getByRole("dialog", { name: "Invitación enviada" });
  await expect(toast(page, "Invitación enviada")).toBeVisible();
  const line = created.getByTestId("visitor-pass-line");
  await expect(line).toHaveText(/^Código: \d{6} · válido del \d\d\/\d\d\/\d{4} 10:00 al \d\d\/\d\d\/\d{4} 12:00$/);
  const pin = (await line.textContent())!.match(/\d{6}/)![0];
  const qr = (await created.getByTestId("visitor-pass-qr").textContent())!;
  await expect(created.getByRole("img", { name: `Código QR de acceso ${qr}` })).toBeVisible();
  const [mail] = await outboxMails(email);
  expect(mimePart(mail!, "text/plain")).toContain(`Tu código de acceso: ${pin}`);

  // The list shows the pass, never its code again.
  await page.goto("/portal");
  const pass = card.getByTestId("visitor-pass").filter({ hasText: visitor });
  await expect(pass).toHaveAttribute("data-status", "active");
  await expect(page.getByText(pin)).toHaveCount(0);

  await pass.getByRole("link", { name: /^Anular invitación/ }).click();
  const confirm = page.getByRole("dialog", { name: "Anular invitación" });
  await confirm.getByRole("button", { name: "Anular invitación" }).click();
  await expect(toast(page, "Invitación anulada")).toBeVisible();
  await expect(pass).toHaveAttribute("data-status", "cancelled");
  await expect(pass.getByRole("link", { name: /^Anular invitación/ })).toHaveCount(0);
});

test("the house lists visitor passes and cancels one", async ({ page, asAdmin, createUser }) => {
  const resident = await createUser();
  await entranceFor(resident.id);
  const visitor = `Luis ${randomBytes(3).toString("hex")}`;
  const made = await createVisitorPass((await getUserById(resident.id))!, {
    visitorName: visitor,
    visitorEmail: "luis@correo.es",
    date: addDays(todayInMadrid(), 4),
    startTime: "16:00",
    endTime: "18:00",
  });
  expect(made.ok).toBe(true);

  await page.goto("/admin/invitaciones");
  // The filter form, as an admin uses it.
  await page.getByLabel("Estado").selectOption("active");
  await page.getByLabel("Buscar").fill(visitor);
  await page.getByRole("button", { name: "Filtrar" }).click();
  await expect(page).toHaveURL(/search=/);
  await expect(page.getByTestId("visitor-pass-count")).toHaveText("1 invitación");
  const row = page.getByTestId("visitor-pass-row").filter({ hasText: visitor });
  await expect(row).toHaveAttribute("data-status", "active");
  await row.getByRole("link", { name: /^Anular invitación/ }).click();
  await page.getByRole("dialog", { name: "Anular invitación" }).getByRole("button", { name: "Anular invitación" }).click();
  await expect(toast(page, "Invitación anulada")).toBeVisible();
  // Filtered on 'Activa', the cancelled pass leaves the list.
  await expect(page.getByTestId("visitor-pass-count")).toHaveText("0 invitaciones");
  await page.goto(`/admin/invitaciones?search=${encodeURIComponent(visitor)}&status=cancelled`);
  await expect(row).toHaveAttribute("data-status", "cancelled");
});
