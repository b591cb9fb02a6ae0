import { E2E } from "../setup/e2e-env";
import { expect, mimePart, outboxMails, test } from "./fixtures";
import type { Page } from "@playwright/test";

const { createReservation, getReservationByCode } = await import("~/models/reservation.server");
const { addDays, todayInMadrid } = await import("~/utils/dates");
const { getDb } = await import("~/utils/db.server");

const today = todayInMadrid();
const staffRecipient = new RegExp(`^To: ${E2E.serverEnv.STAFF_EMAIL}`, "m");

/** The answer to an anti-spam question ("¿Cuánto es 3 - 2?"). */
function solveCaptcha(question: string) {
  const [, a, op, b] = /(\d+) ([+-]) (\d+)/.exec(question)!;
  return String(op === "+" ? Number(a) + Number(b) : Number(a) - Number(b));
}

async function answerCaptcha(page: Page) {
  const question = await page.getByTestId("captcha-question").first().textContent();
  await page.getByLabel(/Verificación anti-spam/).fill(solveCaptcha(question ?? ""));
}

test.describe("booking", () => {
  test("a room booking shows the receipt with the code and clears the form", async ({ page }) => {
    await page.goto("/reservar");
    await page.getByRole("radio", { name: "Habitación" }).check();
    await page.getByLabel("Fecha de entrada").fill(addDays(today, 3));
    await page.getByLabel("Fecha de salida").fill(addDays(today, 6));
    await page.getByLabel("Tipo de habitación").selectOption("suite");
    await page.getByLabel("Nombre completo").fill("Carmen Álvarez");
    await page.getByRole("textbox", { name: "Email" }).fill("Carmen@Example.com");
    await page.getByRole("textbox", { name: "Teléfono" }).fill("600 123 123");
    await page.getByRole("radio", { name: "Ambos" }).check();
    await page.getByLabel("Peticiones especiales (opcional)").fill("Cuna, por favor");
    await page.getByRole("button", { name: "Reservar" }).click();

    const dialog = page.getByRole("dialog", { name: "¡Reserva creada!" });
    await expect(dialog).toBeVisible();
    const code = (await page.getByTestId("reservation-code").textContent())!.trim();
    expect(code).toMatch(/^[A-Z2-9]{8}$/);
    await expect(dialog).toContainText("Carmen Álvarez");
    await expect(dialog).toContainText("Habitación (Suite)");
    await expect(dialog).toContainText(addDays(today, 3).split("-").reverse().join("/"));
    await expect(dialog).toContainText("email de confirmación");
    await expect(dialog).toContainText("Guarda este código");
    const stored = await getReservationByCode(code);
    expect(stored).toMatchObject({ guestEmail: "carmen@example.com", roomType: "suite", contactPreference: "both", specialRequests: "Cuna, por favor" });
    const [staffNotice] = await outboxMails(`Nueva reserva: ${code}`);
    expect(staffNotice).toMatch(staffRecipient);
    expect(mimePart(staffNotice!, "text/plain")).toContain(`/admin/reservations?modal=detail&reservation=${stored!.id}`);

    await dialog.getByRole("link", { name: "Cerrar" }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByLabel("Nombre completo")).toHaveValue("");
    await expect(page.getByRole("textbox", { name: "Email" })).toHaveValue("");
  });

  test("a meeting room booking needs no room type", async ({ page, javaScriptEnabled }) => {
    await page.goto("/reservar");
    await page.getByRole("radio", { name: "Sala de reuniones" }).check();
    if (javaScriptEnabled) await expect(page.getByLabel("Tipo de habitación")).toHaveCount(0);
    await page.getByLabel("Fecha de entrada").fill(addDays(today, 1));
    await page.getByLabel("Fecha de salida").fill(addDays(today, 2));
    await page.getByLabel("Nombre completo").fill("Equipo Norte");
    await page.getByRole("textbox", { name: "Email" }).fill("norte@example.com");
    await page.getByRole("textbox", { name: "Teléfono" }).fill("600 123 456");
    await page.getByRole("button", { name: "Reservar" }).click();
    await expect(page.getByRole("dialog")).toContainText("Sala de reuniones");
  });

  test("an empty booking shows every message in one toast and beside the fields", async ({ page }) => {
    await page.goto("/reservar");
    await page.getByRole("button", { name: "Reservar" }).click();
    const toast = page.getByTestId("toast");
    await expect(toast).toContainText("Errores de Validación");
    await expect(toast).toContainText(/requerid[oa], /);
    for (const message of ["El nombre es requerido", "El email es requerido", "El teléfono es requerido", "La fecha de entrada es requerida", "La fecha de salida es requerida", "El tipo de habitación es requerido"]) {
      await expect(toast).toContainText(message);
      await expect(page.locator(".field-error", { hasText: message })).toBeVisible();
    }
  });

  test("an exit date before the entry date is refused (and cleared with JavaScript)", async ({ page, javaScriptEnabled }) => {
    await page.goto("/reservar");
    await page.getByLabel("Fecha de salida").fill(addDays(today, 2));
    await page.getByLabel("Fecha de entrada").fill(addDays(today, 4));
    if (javaScriptEnabled) {
      await expect(page.getByLabel("Fecha de salida")).toHaveValue("");
      await expect(page.getByLabel("Fecha de salida")).toHaveAttribute("min", addDays(today, 4));
      await page.getByLabel("Fecha de salida").fill(addDays(today, 3));
    }
    await page.getByLabel("Tipo de habitación").selectOption("doble");
    await page.getByLabel("Nombre completo").fill("Ana");
    await page.getByRole("textbox", { name: "Email" }).fill("no-valido");
    await page.getByRole("textbox", { name: "Teléfono" }).fill("600 123 456");
    await page.getByRole("button", { name: "Reservar" }).click();
    await expect(page.getByText("La fecha de salida debe ser posterior a la fecha de entrada").first()).toBeVisible();
    await expect(page.getByText("El email no es válido").first()).toBeVisible();
    await expect(page.getByRole("dialog")).toHaveCount(0);
  });
});

test.describe("enquiry", () => {
  test("an enquiry is sent, the form clears and a new question comes", async ({ page }) => {
    await page.goto("/consulta");
    const firstId = await page.locator('input[name="captchaId"]').inputValue();
    await page.getByLabel("Nombre").fill("Marcos");
    await page.getByRole("textbox", { name: "Email" }).fill("marcos@example.com");
    await page.getByRole("textbox", { name: "Teléfono" }).fill("611");
    const message = `¿Aceptáis mascotas? ${Date.now()}`;
    await page.getByLabel("Mensaje").fill(message);
    await answerCaptcha(page);
    await page.getByRole("button", { name: "Enviar Consulta" }).click();
    await expect(page.getByTestId("toast")).toContainText("Consulta Enviada");
    const [staffNotice] = await outboxMails(`Mensaje: ${message}`);
    expect(staffNotice).toMatch(staffRecipient);
    await expect(page.getByTestId("toast")).toContainText("Tu consulta ha sido enviada exitosamente. Nos pondremos en contacto contigo pronto.");
    await expect(page.getByLabel("Nombre")).toHaveValue("");
    expect(await page.locator('input[name="captchaId"]').inputValue()).not.toBe(firstId);
    const rows = await getDb().$client.execute({ sql: "SELECT count(*) AS n FROM consultations WHERE email = ?", args: ["marcos@example.com"] });
    expect(Number(rows.rows[0]!.n)).toBeGreaterThan(0);
  });

  test("the captcha refresh brings a new question and keeps what was typed", async ({ page }) => {
    await page.goto("/consulta");
    const firstId = await page.locator('input[name="captchaId"]').inputValue();
    await page.getByLabel("Nombre").fill("Sara");
    await page.getByLabel("Mensaje").fill("Texto a conservar");
    await page.getByRole("button", { name: "Nueva pregunta" }).click();
    await expect(page.locator('input[name="captchaId"]')).not.toHaveValue(firstId);
    await expect(page.getByLabel("Nombre")).toHaveValue("Sara");
    await expect(page.getByLabel("Mensaje")).toHaveValue("Texto a conservar");
  });

  test("missing fields and a bad email get the enquiry messages", async ({ page }) => {
    await page.goto("/consulta");
    await page.getByRole("textbox", { name: "Email" }).fill("mal");
    await page.getByRole("button", { name: "Enviar Consulta" }).click();
    await expect(page.getByText("Por favor completa todos los campos").first()).toBeVisible();
    await expect(page.getByText("Por favor ingresa un email válido")).toBeVisible();
  });

  test("the same message twice answers the duplicate message", async ({ page }) => {
    const message = `Duplicada ${Date.now()}`;
    for (let round = 0; round < 2; round++) {
      await page.goto("/consulta");
      await page.getByLabel("Nombre").fill("Dani");
      await page.getByRole("textbox", { name: "Email" }).fill("dani@example.com");
      await page.getByRole("textbox", { name: "Teléfono" }).fill("600");
      await page.getByLabel("Mensaje").fill(message);
      await answerCaptcha(page);
      await page.getByRole("button", { name: "Enviar Consulta" }).click();
      if (round === 0) await expect(page.getByTestId("toast")).toContainText("Consulta Enviada");
    }
    await expect(page.getByRole("alert").filter({ hasText: "Una consulta similar ya fue enviada recientemente." })).toBeVisible();
  });

  test("too many submissions from one address answer 429; a wrong answer does not count", async ({ page }) => {
    const email = `bot-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const send = async (message: string, answer?: string) => {
      await page.goto("/consulta");
      await page.getByLabel("Nombre").fill("Bot");
      await page.getByRole("textbox", { name: "Email" }).fill(email);
      await page.getByRole("textbox", { name: "Teléfono" }).fill("600");
      await page.getByLabel("Mensaje").fill(message);
      if (answer) await page.getByLabel(/Verificación anti-spam/).fill(answer);
      else await answerCaptcha(page);
      await page.getByRole("button", { name: "Enviar Consulta" }).click();
    };
    await send("Con una respuesta mal", "999");
    await expect(page.getByRole("alert").first()).toBeVisible();
    await send("Intento 0");
    await expect(page.getByTestId("toast").filter({ hasText: "Consulta Enviada" }).first()).toBeVisible();
    // The other nine accepted ones post the same form over HTTP from the same
    // address (the page's context: its X-Forwarded-For and cookies), each
    // answering the page with the same success toast; then the browser's next
    // submission meets the limit.
    for (let attempt = 1; attempt < 10; attempt++) {
      const form = await (await page.request.get("/consulta")).text();
      expect(form).not.toContain("Consulta Enviada");
      const captchaId = /name="captchaId" value="([^"]+)"/.exec(form)![1]!;
      const question = /data-testid="captcha-question">([^<]+)</.exec(form)![1]!;
      const response = await page.request.post("/consulta", {
        headers: { Origin: E2E.baseURL },
        form: { nombre: "Bot", email, telefono: "600", mensaje: `Intento ${attempt}`, captchaId, captchaAnswer: solveCaptcha(question) },
      });
      expect(response.status()).toBe(200);
      expect(await response.text()).toContain("Consulta Enviada");
    }
    await send("Uno más");
    await expect(page.getByRole("alert").filter({ hasText: "Demasiados intentos. Por favor espera un momento antes de intentar nuevamente." })).toBeVisible();
  });
});

/** Fills the visit form on the page (answering its question) and sends it. */
async function requestVisit(page: Page, visit: { name: string; email: string; phone: string; day: string; hour: string; comments?: string }) {
  await page.getByLabel("Nombre completo").fill(visit.name);
  await page.getByRole("textbox", { name: "Email" }).fill(visit.email);
  await page.getByRole("textbox", { name: "Teléfono" }).fill(visit.phone);
  await page.getByLabel("Fecha preferida").fill(visit.day);
  await page.getByLabel("Hora preferida").selectOption(visit.hour);
  if (visit.comments) await page.getByLabel("Comentarios (opcional)").fill(visit.comments);
  await answerCaptcha(page);
  await page.getByRole("button", { name: "Solicitar Visita" }).click();
}

test.describe("visit", () => {
  test("a visit request is sent and stored as a consultation", async ({ page }) => {
    const email = `visita-${Date.now()}@example.com`;
    await page.goto("/visita");
    await expect(page.getByLabel("Fecha preferida")).toHaveAttribute("min", addDays(today, 1));
    await requestVisit(page, { name: "Elena", email, phone: "622", day: addDays(today, 5), hour: "16:00", comments: "Vengo en bici" });
    await expect(page.getByTestId("toast")).toContainText("Solicitud Enviada");
    const rows = await getDb().$client.execute({ sql: "SELECT kind, mensaje FROM consultations WHERE email = ?", args: [email] });
    expect(rows.rows[0]?.kind).toBe("visita");
    expect(String(rows.rows[0]?.mensaje)).toContain("Hora preferida: 16:00");
    const [staffNotice] = await outboxMails(`Email: ${email}`);
    expect(staffNotice).toMatch(staffRecipient);
    expect(mimePart(staffNotice!, "text/plain")).toContain("Elena quiere visitar la casa.");
  });

  test("a page reused from the render cache still brings each visitor a question of their own, and its answer counts", async ({ page, request }) => {
    // Two renders that agree put the page in the cache (app/utils/render-cache.server.ts).
    await expect.poll(async () => (await request.get("/visita")).headers()["server-timing"]).toContain("cache hit");
    const response = await page.goto("/visita");
    expect(response?.headers()["server-timing"]).toContain("cache hit");
    const firstId = await page.locator('input[name="captchaId"]').inputValue();
    await page.reload();
    const captchaId = await page.locator('input[name="captchaId"]').inputValue();
    expect(captchaId).not.toBe(firstId);
    expect(await page.locator('input[name="captchaQuestion"]').inputValue()).toBe(await page.getByTestId("captcha-question").textContent());
    expect(await page.content()).not.toContain("hole-");

    const email = `visita-cache-${Date.now()}@example.com`;
    await requestVisit(page, { name: "Iris", email, phone: "633", day: addDays(today, 3), hour: "11:00" });
    await expect(page.getByTestId("toast")).toContainText("Solicitud Enviada");
    const rows = await getDb().$client.execute({ sql: "SELECT kind FROM consultations WHERE email = ?", args: [email] });
    expect(rows.rows[0]?.kind).toBe("visita");
  });

  test("missing fields get the visit message", async ({ page }) => {
    await page.goto("/visita");
    await page.getByRole("button", { name: "Solicitar Visita" }).click();
    await expect(page.getByText("Por favor completa todos los campos obligatorios").first()).toBeVisible();
  });
});

test("a fault report is stored for the admins and maintenance hears of it", async ({ page }) => {
  const reporter = `Vecino ${Date.now()}`;
  await page.goto("/incidencias");
  await page.getByLabel("Nombre del propietario o inquilino").fill(reporter);
  await page.getByLabel("Número de planta").fill("2");
  await page.getByLabel("Tipo de avería").selectOption("fontaneria");
  await page.getByLabel("Urgencia").selectOption("emergencia");
  await expect(page.getByLabel("Urgencia").locator("option:checked")).toHaveText("Urgente");
  await page.getByLabel("Ubicación").fill("Baño 2B");
  await page.getByLabel("Descripción").fill("Fuga de agua bajo el lavabo");
  await page.getByRole("button", { name: "Enviar Reporte" }).click();
  await expect(page.getByTestId("toast")).toContainText("Incidencia reportada exitosamente");
  await expect(page.getByLabel("Ubicación")).toHaveValue("");
  const rows = await getDb().$client.execute({ sql: "SELECT source, category, urgency, floor FROM incidents WHERE reporter_name = ?", args: [reporter] });
  expect(rows.rows[0]).toMatchObject({ source: "public", category: "plumbing", urgency: "critical", floor: "2" });
  const [staffNotice] = await outboxMails(`${reporter} ha enviado un aviso de avería desde la web.`);
  expect(staffNotice).toMatch(staffRecipient);
  expect(mimePart(staffNotice!, "text/plain")).toContain("Urgencia: Crítica");
});

test("a fault report with missing fields is refused", async ({ page }) => {
  await page.goto("/incidencias");
  await page.getByRole("button", { name: "Enviar Reporte" }).click();
  await expect(page.getByText("Por favor completa todos los campos obligatorios").first()).toBeVisible();
});

test.describe("reservation lookup", () => {
  async function seedReservation() {
    const created = await createReservation({
      guestName: "Jorge Prieto",
      guestEmail: `jorge-${Date.now()}@example.com`,
      guestPhone: "633 123 456",
      reservationType: "habitacion",
      roomType: "individual",
      startDate: addDays(today, 7),
      endDate: addDays(today, 9),
      contactPreference: "email",
      specialRequests: "Vistas al mar",
      ipAddress: null,
    });
    if (!created.ok) throw new Error(`seedReservation: ${created.reason}`);
    return created.reservation;
  }

  test("looks up by code and email, then cancels after confirming", async ({ page }) => {
    const reservation = await seedReservation();
    await page.goto("/reserva-consulta");
    await page.getByLabel("Código de reserva").fill(reservation.reservationCode.toLowerCase());
    await page.getByRole("textbox", { name: "Email" }).fill(reservation.guestEmail.toUpperCase());
    await page.getByRole("textbox", { name: "Email" }).press("Enter");
    await expect(page.getByRole("heading", { name: new RegExp(`Reserva ${reservation.reservationCode}`) })).toBeVisible();
    await expect(page.getByTestId("reservation-status")).toHaveText("Pendiente");
    await expect(page.getByText("Vistas al mar")).toBeVisible();

    await page.getByRole("button", { name: "Cancelar Reserva" }).click();
    const dialog = page.getByRole("dialog", { name: "¿Está seguro de que desea cancelar su reserva?" });
    await expect(dialog).toContainText("Esta acción no se puede deshacer.");
    await dialog.getByRole("button", { name: "No, mantener reserva" }).click();
    await expect(dialog).toBeHidden();
    expect((await getReservationByCode(reservation.reservationCode))?.status).toBe("pending");

    await page.getByRole("button", { name: "Cancelar Reserva" }).click();
    await page.getByRole("button", { name: "Sí, cancelar reserva" }).click();
    await expect(page.getByTestId("toast")).toContainText("Reserva cancelada correctamente");
    await expect(page.getByTestId("reservation-status")).toHaveText("Cancelada");
    await expect(page.getByRole("button", { name: "Cancelar Reserva" })).toHaveCount(0);
    expect((await getReservationByCode(reservation.reservationCode))?.status).toBe("cancelled");
    const [mail] = await outboxMails(`Reserva cancelada: ${reservation.reservationCode}`);
    expect(mail).toMatch(new RegExp(`^To: ${reservation.guestEmail}`, "m"));
    const calendar = mimePart(mail!, "text/calendar")!;
    expect(calendar).toContain("METHOD:CANCEL");
    expect(calendar).toContain(`UID:${reservation.reservationCode}@`);
    expect(calendar).toContain("SEQUENCE:2");
  });

  test("a wrong email and an unknown code get their messages", async ({ page }) => {
    const reservation = await seedReservation();
    await page.goto("/reserva-consulta");
    await page.getByLabel("Código de reserva").fill(reservation.reservationCode);
    await page.getByRole("textbox", { name: "Email" }).fill("otra@example.com");
    await page.getByRole("button", { name: "Buscar Reserva" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "El email no coincide con la reserva" })).toBeVisible();
    await expect(page.getByText("Vistas al mar")).toHaveCount(0);

    await page.getByLabel("Código de reserva").fill("ZZZZ9999");
    await page.getByRole("button", { name: "Buscar Reserva" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "Reserva no encontrada" })).toBeVisible();
  });

  test("the search button waits for both fields (with JavaScript) and the server asks for them (without)", async ({ page, javaScriptEnabled }) => {
    await page.goto("/reserva-consulta");
    const button = page.getByRole("button", { name: "Buscar Reserva" });
    if (javaScriptEnabled) {
      await expect(button).toBeDisabled();
      await page.getByLabel("Código de reserva").fill("abc");
      await expect(page.getByLabel("Código de reserva")).toHaveValue("ABC");
      await expect(button).toBeDisabled();
    } else {
      await button.click();
      await expect(page.getByText("Por favor complete todos los campos").first()).toBeVisible();
    }
  });
});
