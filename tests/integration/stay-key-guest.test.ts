// What a guest is told of their stay's key (issue 29): the confirmation mail
// (over the real SMTP receiver) carries the PIN, the window and the QR as an
// inline PNG; the lookup page and GET /api/anonymous-reservations/code/{code}
// show it for a confirmed stay only, never while pending or once cancelled.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getActiveKeyOfReservation } from "~/models/door-key.server";
import * as codeRoute from "~/routes/api.anonymous-reservations.code.$code";
import * as lookupPage from "~/routes/reserva-consulta";
import { updateDoor } from "~/services/doors.server";
import { changeReservationStatus } from "~/services/reservations.server";
import { createRoom } from "~/services/rooms.server";
import { accessCodeLine } from "~/utils/access-code";
import { resetEnvForTests } from "~/utils/env.server";
import { resetMailTransport } from "~/utils/mail.server";
import { qrPng } from "~/utils/qr-code.server";
import { eventually } from "../../bridge/src/test-support/eventually";
import { createTestDoor, createTestReservation, hexPrefix } from "../setup/fixtures";
import { mimePart } from "../setup/mime";
import { callApi, callRoute, formPost } from "../setup/route";
import { startSmtpReceiver } from "../setup/smtp";

let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  process.env.SMTP_URL = smtp.url;
  resetEnvForTests();
  resetMailTransport();
});

afterAll(async () => {
  delete process.env.SMTP_URL;
  resetEnvForTests();
  await smtp.close();
});

/** The bytes of the first MIME part of this type (base64), with its headers. */
function binaryPart(raw: string, contentType: string) {
  for (const part of raw.split(/\r?\n--[^\r\n]+\r?\n/)) {
    const [head = "", ...rest] = part.split(/\r?\n\r?\n/);
    if (!head.toLowerCase().includes(`content-type: ${contentType}`)) continue;
    return { head, bytes: Buffer.from(rest.join("").replace(/--[^\r\n]*--\s*$/, "").replace(/\s+/g, ""), "base64") };
  }
  return null;
}

/** A room with its own door, an entrance, and a stay in the room, pending. */
async function stayWithDoors() {
  const entrance = await createTestDoor({ name: `Portal ${hexPrefix(2)}` });
  await updateDoor(entrance.id, { isEntrance: true });
  const roomDoor = await createTestDoor({ name: `Habitación ${hexPrefix(2)}` });
  const room = await createRoom({ name: `G${hexPrefix(3)}`, floor: 2, roomType: "individual", doorId: roomDoor.code, status: "available" });
  if (!room.ok) throw new Error(room.message);
  const guestEmail = `ana-${hexPrefix(3).toLowerCase()}@example.com`;
  const stay = await createTestReservation({ guestName: "Ana López", guestEmail, roomType: "individual", startDate: "2026-12-10", endDate: "2026-12-14" });
  return { stay, room: room.room, entrance, roomDoor };
}

const lookupApi = (code: string, email: string) =>
  callApi(codeRoute.loader, `/api/anonymous-reservations/code/${code}?email=${encodeURIComponent(email)}`, { params: { code } });
const lookupPageAnswer = async (code: string, email: string) =>
  (await callRoute(lookupPage.action, formPost("/reserva-consulta", "", { code, email }))).json() as Promise<{
    reservation: { access: unknown };
    qrSvg: string | null;
  }>;

describe("a confirmed stay's key, as the guest gets it", () => {
  it("comes in the confirmation mail: PIN and window in Spanish, the doors, the QR token and its PNG inline", async () => {
    const { stay, room, entrance, roomDoor } = await stayWithDoors();
    expect((await changeReservationStatus(stay.id, "confirmed", new Date(), { roomId: room._id })).ok).toBe(true);
    const key = (await getActiveKeyOfReservation(stay.id))!;
    const mail = await eventually(() => smtp.messages.find((m) => m.to.includes(stay.guestEmail)), "the confirmation mail", 2000);
    const text = mimePart(mail.raw, "text/plain")!;
    expect(text).toContain(`Tu código de acceso: ${key.pin} · válido del 10/12/2026 15:00 al 14/12/2026 11:00`);
    expect(text).toContain(`Código QR: ${key.qrToken}`);
    expect(text).toContain(entrance.name);
    expect(text).toContain(roomDoor.name);
    const html = mimePart(mail.raw, "text/html")!;
    const cid = /<img src="cid:([^"]+)"/.exec(html)?.[1];
    expect(cid).toBeTruthy();
    const png = binaryPart(mail.raw, "image/png")!;
    expect(png.head).toMatch(new RegExp(`Content-ID: <${cid!.replace(/[.]/g, "\\.")}>`, "i"));
    // The PNG is the token's QR (the renderer is deterministic).
    expect(png.bytes.equals(await qrPng(key.qrToken))).toBe(true);
  });

  it("is shown by the API and the lookup page only while the stay is confirmed", async () => {
    const { stay, room, entrance, roomDoor } = await stayWithDoors();
    const pending = await lookupApi(stay.reservationCode, stay.guestEmail);
    expect(pending.status).toBe(200);
    expect(pending.body.data.access).toBeNull();
    expect((await lookupPageAnswer(stay.reservationCode, stay.guestEmail)).reservation.access).toBeNull();

    await changeReservationStatus(stay.id, "confirmed", new Date(), { roomId: room._id });
    const key = (await getActiveKeyOfReservation(stay.id))!;
    const confirmed = await lookupApi(stay.reservationCode, stay.guestEmail);
    expect(confirmed.body.data.access).toEqual({
      pin: key.pin,
      qr: key.qrToken,
      validFrom: "2026-12-10T14:00:00.000Z",
      validUntil: "2026-12-14T10:00:00.000Z",
      // Every entrance (this file's other tests made some too) and the room's door.
      doors: expect.arrayContaining([
        { _id: entrance.id, name: entrance.name },
        { _id: roomDoor.id, name: roomDoor.name },
      ]),
    });
    const otherDoors = confirmed.body.data.access.doors.filter((door: { _id: string }) => door._id !== roomDoor.id);
    expect(otherDoors.every((door: { name: string }) => door.name.startsWith("Portal "))).toBe(true);
    const page = await lookupPageAnswer(stay.reservationCode, stay.guestEmail);
    expect(page.reservation.access).toEqual(confirmed.body.data.access);
    expect(page.qrSvg).toMatch(/^<svg /);
    expect(accessCodeLine(confirmed.body.data.access)).toBe(`Tu código de acceso: ${key.pin} · válido del 10/12/2026 15:00 al 14/12/2026 11:00`);

    await changeReservationStatus(stay.id, "cancelled");
    expect((await lookupApi(stay.reservationCode, stay.guestEmail)).body.data.access).toBeNull();
    const cancelledPage = await lookupPageAnswer(stay.reservationCode, stay.guestEmail);
    expect(cancelledPage.reservation.access).toBeNull();
    expect(cancelledPage.qrSvg).toBeNull();
  });
});
