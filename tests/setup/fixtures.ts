// Test data, plus the few helpers every test file needs: a session cookie and
// the toast a response carries. Each test makes its own data with fresh names,
// so tests never depend on each other's rows. Doors, their credentials and card
// permissions go through the services (so the access service hears of them);
// other rows come from the models' create functions, without the captcha, rate
// limits and mail the services add; getDb() writes only states no code creates
// (past instants, any status, a facility of a test's own). See the Tests
// section of docs/architecture.md. Polling: bridge/src/test-support/eventually.ts.
import { randomBytes, randomUUID } from "node:crypto";
import type { AccessReason } from "~/doors/reasons";
import { accessLogs, facilities, incidents, type Door, type Incident, type User } from "~/db/schema";
import { assignCardToUser, registerCard, type NewCard } from "~/models/card.server";
import { createConsultation, type NewConsultation } from "~/models/consultation.server";
import { createPublicIncident } from "~/models/incident.server";
import { createReservation } from "~/models/reservation.server";
import { issueApiToken } from "~/models/api-token.server";
import { createUser } from "~/models/user.server";
import type { PublicIncidentInput } from "~/schemas/public-incident";
import type { ReservationInput } from "~/schemas/reservation";
import { salaHold } from "~/services/availability.server";
import { setCardPermission } from "~/services/cards.server";
import { createDoor, provisionDoor } from "~/services/doors.server";
import type { BookingInput } from "~/schemas/facility-booking";
import { addDays, formatTime, todayInMadrid } from "~/utils/dates";
import { getDb } from "~/utils/db.server";
import { sessionCookieFor } from "~/utils/auth.server";
import type { Toast } from "~/utils/toast";

/** A fresh upper-case hex prefix, so each test's card numbers are its own. */
export function hexPrefix(bytes = 3) {
  return randomBytes(bytes).toString("hex").toUpperCase();
}

export const unique = () => randomUUID().slice(0, 8);

export async function createTestUser(
  fields: Partial<Pick<User, "role" | "status" | "firstName" | "lastName" | "username" | "unitNumber" | "buildingName">> & { password?: string } = {},
) {
  const username = fields.username ?? `user-${unique()}`;
  return createUser({
    username,
    email: `${username}@example.com`,
    password: fields.password ?? "secreto-123",
    role: fields.role ?? "user",
    status: fields.status ?? "active",
    firstName: "firstName" in fields ? fields.firstName : "Marta",
    lastName: fields.lastName ?? null,
    unitNumber: fields.unitNumber ?? null,
    buildingName: fields.buildingName ?? null,
  });
}

/** An admin and a resident with an API token each: the callers of an API test. */
export async function createApiCallers() {
  const admin = await createTestUser({ role: "admin" });
  const resident = await createTestUser();
  return { admin, resident, adminToken: (await issueApiToken(admin.id)).token, residentToken: (await issueApiToken(resident.id)).token };
}

/** A resident (role user) with a unit, as the admin's users screen creates them. */
export async function createTestResident(fields: Parameters<typeof createTestUser>[0] = {}) {
  return createTestUser({ unitNumber: `${Math.floor(Math.random() * 9) + 1}${String.fromCharCode(65 + Math.floor(Math.random() * 6))}`, ...fields });
}

/** A facility of its own for a test (the catalogue is shared), so its bookings never meet another test's. */
export async function createTestFacility(type: BookingInput["facilityType"] = "meeting-room", name = `Sala de pruebas ${unique()}`) {
  const [facility] = await getDb().insert(facilities).values({ id: `test-${randomUUID()}`, type, name, sortOrder: 100 }).returning();
  return facility!;
}

/**
 * A booking request for `facilityId` starting `hoursAhead` hours from now
 * (whole minutes, in the building's time), as the form and the API send it.
 */
export function bookingRequest(facilityId: string, facilityType: BookingInput["facilityType"], startsAt: Date, duration: BookingInput["duration"] = 1, notes?: string): BookingInput {
  const day = todayInMadrid(startsAt);
  const time = formatTime(startsAt);
  return { facilityType, facilityId, date: day, startTime: time, duration, notes };
}

/** A whole minute at least `minutes` from now (bookings start on whole minutes). */
export function minutesFromNow(minutes: number, now = Date.now()) {
  return new Date(Math.ceil((now + minutes * 60_000) / 60_000) * 60_000);
}

/** A door (through the doors service); its code is fresh unless given. */
export async function createTestDoor(fields: { code?: string; name?: string; location?: string; status?: Door["status"] } = {}) {
  const code = fields.code ?? `door-${unique()}`;
  const created = await createDoor({
    doorId: code,
    name: fields.name ?? `Puerta ${code}`,
    location: fields.location ?? "Planta baja",
    status: fields.status ?? "active",
  });
  if (!created.ok) throw new Error(created.message);
  return created.door;
}

/** A door with a bridge credential: what a bridge needs to log in. */
export async function createTestDoorWithBridge(code: string, name = `Puerta ${code}`) {
  const { door, credential } = await provisionDoor(code, { name, location: "Planta baja" });
  return { door, password: credential.password };
}

/**
 * An active card held by a new user (or by nobody with holder: false),
 * granted on the given doors (row ids).
 */
export async function createTestCard(
  cardNumber: string,
  doorIds: string[] = [],
  options: { firstName?: string | null; userStatus?: User["status"]; expiresAt?: Date | null; holder?: boolean; status?: NewCard["status"] } = {},
) {
  let card;
  let user: User | null = null;
  if (options.holder === false) {
    card = await registerCard({ cardNumber, status: options.status ?? "active", expiresAt: options.expiresAt ?? null });
  } else {
    user = await createTestUser({ firstName: options.firstName, status: options.userStatus });
    ({ card } = await assignCardToUser(user.id, { cardNumber, expiresAt: options.expiresAt ?? null }));
  }
  for (const doorId of doorIds) {
    const granted = await setCardPermission(card.id, doorId, true);
    if (!granted.ok) throw new Error(granted.message);
  }
  return { card, user };
}

/** A signed-in browser's cookie (a real session row) for the user, as a Cookie header value. */
export async function sessionCookie(userId: string) {
  return (await sessionCookieFor({ id: userId })).split(";")[0]!;
}

/** The toast a response carries in its flash cookie (outside the HTTP server every toast travels so). */
export async function toastOf(response: Response): Promise<Toast | null> {
  const cookie = response.headers
    .getSetCookie()
    .map((header) => header.split(";")[0]!)
    .find((pair) => pair.startsWith("__toast="));
  if (!cookie) return null;
  const { createCookieSessionStorage } = await import("@remix-run/node");
  const { getSessionSecret } = await import("~/utils/data-dir.server");
  const storage = createCookieSessionStorage<Record<string, never>, { toast: Toast }>({
    cookie: { name: "__toast", secrets: [getSessionSecret()] },
  });
  return (await storage.getSession(cookie)).get("toast") ?? null;
}

export type LogSeed = {
  at: number;
  cardNumber: string;
  door?: Pick<Door, "id" | "code" | "name"> | null;
  granted?: boolean;
  reason?: AccessReason;
  cardId?: string | null;
  username?: string | null;
  isAnonymous?: boolean;
  offline?: boolean;
  ipAddress?: string | null;
};

/** Access-log rows written straight into the table (exact timestamps and fields), in the given order; returns their ids. */
export async function insertLogs(seeds: LogSeed[]) {
  const rows = seeds.map((seed) => {
    const granted = seed.granted ?? true;
    const id = randomUUID();
    return {
      id,
      eventId: id,
      timestamp: new Date(seed.at),
      cardId: seed.cardId ?? null,
      cardNumber: seed.cardNumber,
      doorId: seed.door?.id ?? null,
      doorCode: seed.door?.code ?? "unknown-door",
      doorName: seed.door?.name ?? null,
      userId: null,
      username: seed.username ?? null,
      accessGranted: granted,
      reason: seed.reason ?? (granted ? "granted" : "no_permission"),
      isAnonymous: seed.isAnonymous ?? false,
      offline: seed.offline ?? false,
      source: "reader",
      ipAddress: "ipAddress" in seed ? (seed.ipAddress ?? null) : "192.0.2.10",
    };
  });
  for (let i = 0; i < rows.length; i += 500) await getDb().insert(accessLogs).values(rows.slice(i, i + 500));
  return rows.map((row) => row.id);
}

/** Smallest real images of each accepted type (1×1 pixel), and their first bytes. */
export const TINY_PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);
export const TINY_JPEG = Buffer.from(
  "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=",
  "base64",
);
export const TINY_WEBP = Buffer.from("UklGRiIAAABXRUJQVlA4IBYAAAAwAQCdASoBAAEADsD+JaQAA3AAAAAA", "base64");

/** A fault report from /incidencias, as the public form stores it. */
export async function createTestPublicIncident(fields: Partial<Omit<PublicIncidentInput, "website">> = {}) {
  return createPublicIncident({
    nombre: fields.nombre ?? `Vecina ${unique()}`,
    departamento: fields.departamento ?? "2",
    tipo: fields.tipo ?? "fontaneria",
    ubicacion: fields.ubicacion ?? "Baño",
    descripcion: fields.descripcion ?? "Gotea el grifo",
    urgencia: fields.urgencia ?? "media",
  });
}

/** A resident's incident as the portal stores it, with any status, photos or report time a test needs. */
export async function createTestResidentIncident(
  reporter: Pick<User, "id" | "username">,
  fields: Partial<Pick<Incident, "title" | "category" | "urgency" | "status" | "description" | "location" | "photos" | "reportedAt">> = {},
) {
  const [row] = await getDb()
    .insert(incidents)
    .values({
      id: randomUUID(),
      source: "resident",
      title: fields.title ?? `Radiador ${unique()}`,
      type: fields.category === "other" ? "other" : "maintenance",
      category: fields.category ?? "hvac",
      urgency: fields.urgency ?? "medium",
      status: fields.status ?? "open",
      description: fields.description ?? "No calienta",
      location: fields.location ?? "Salón",
      reportedById: reporter.id,
      reportedBy: reporter.username,
      photos: fields.photos ?? null,
      reportedAt: fields.reportedAt ?? new Date(),
    })
    .returning();
  return row!;
}

/**
 * A guest's reservation, pending, as the booking stores it (the inventory's
 * rules hold: a full room type throws). Its dates default to a stay of its
 * own: 3 nights starting 60 to 719 days ahead, so tests sharing the house's
 * rooms rarely meet (pass dates where a test needs them).
 */
export async function createTestReservation(fields: Partial<ReservationInput> & { ipAddress?: string | null } = {}) {
  const start = addDays(todayInMadrid(), 60 + Math.floor(Math.random() * 660));
  const end = addDays(start, 3);
  const name = `huesped-${unique()}`;
  const reservationType = fields.reservationType ?? "habitacion";
  const startDate = fields.startDate ?? start;
  const endDate = fields.endDate ?? end;
  const created = await createReservation(
    {
      guestName: fields.guestName ?? `Huésped ${name}`,
      guestEmail: fields.guestEmail ?? `${name}@example.com`,
      guestPhone: fields.guestPhone ?? "+34 600 111 222",
      reservationType,
      roomType: fields.roomType === undefined ? "doble" : fields.roomType,
      startDate,
      endDate,
      contactPreference: fields.contactPreference ?? "email",
      specialRequests: fields.specialRequests ?? null,
      ipAddress: fields.ipAddress ?? "192.0.2.20",
    },
    reservationType === "sala" ? salaHold(startDate, endDate) : null,
  );
  if (!created.ok) throw new Error(`createTestReservation: refused (${created.reason}) for ${startDate}–${endDate}`);
  return created.reservation;
}

/** An enquiry (or, with kind "visita", a visit request) as the public forms store it. */
export async function createTestConsultation(fields: Partial<NewConsultation> & { createdAt?: number } = {}) {
  const name = `consulta-${unique()}`;
  const created = await createConsultation(
    {
      kind: fields.kind ?? "consulta",
      nombre: fields.nombre ?? `Remitente ${name}`,
      email: fields.email ?? `${name}@example.com`,
      telefono: fields.telefono ?? "600 123 456",
      mensaje: fields.mensaje ?? `Hola, ¿tenéis plazas? (${name})`,
      visitDate: fields.visitDate ?? null,
      visitTime: fields.visitTime ?? null,
      ipAddress: fields.ipAddress === undefined ? "192.0.2.30" : fields.ipAddress,
    },
    fields.createdAt,
  );
  if (!created.ok) throw new Error("duplicate consultation");
  return created.consultation;
}
