// The house's rooms (issue 28): the form's and the API's schema, the labels,
// and the Spanish words for a room type in a sentence. Browser-safe.
import * as z from "zod/mini";
import { ROOM_STATUSES, ROOM_TYPES } from "~/db/schema-enums";
import { requiredText, text } from "./fields";

export type RoomType = (typeof ROOM_TYPES)[number];
export type RoomStatus = (typeof ROOM_STATUSES)[number];

export const ROOM_STATUS_LABELS: Record<RoomStatus, string> = {
  available: "Disponible",
  "out-of-service": "Fuera de servicio",
};

/** A room type inside a sentence: "una habitación doble", "habitaciones dobles". */
export const ROOM_TYPE_WORDS: Record<RoomType, { one: string; many: string }> = {
  individual: { one: "individual", many: "individuales" },
  doble: { one: "doble", many: "dobles" },
  suite: { one: "suite", many: "suites" },
};

export const FLOOR_MIN = -5;
export const FLOOR_MAX = 100;
const FLOOR_MESSAGE = `La planta debe ser un número entero entre ${FLOOR_MIN} y ${FLOOR_MAX}`;

/** A form sends the floor as text, the API as a number or text. */
const floor = z.pipe(
  z.transform((value: unknown) => (typeof value === "string" && value.trim() !== "" ? Number(value.trim()) : value)),
  z.number({ error: (issue) => (issue.input === undefined || issue.input === "" ? "La planta es requerida" : FLOOR_MESSAGE) }).check(
    z.int(FLOOR_MESSAGE),
    z.minimum(FLOOR_MIN, FLOOR_MESSAGE),
    z.maximum(FLOOR_MAX, FLOOR_MESSAGE),
  ),
);

/** Empty, absent or null: none. */
function noneIfEmpty(max: number, message: string) {
  return z.optional(
    z.pipe(
      z.union([z.string().check(z.trim(), z.maxLength(max, message)), z.null()]),
      z.transform((value: string | null) => (value === "" ? null : value)),
    ),
  );
}

const roomFields = {
  name: requiredText("El nombre o número es requerido", 40),
  floor,
  roomType: z.enum(ROOM_TYPES, { error: "El tipo de habitación es requerido" }),
  // The room's own lock: a door's hardware code (its doorId; a door's _id is still
  // accepted for one release); empty or null: none.
  doorId: noneIfEmpty(64, "La puerta no es válida"),
  status: z.enum(ROOM_STATUSES, { error: "El estado no es válido (available o out-of-service)" }),
  notes: z.optional(z.nullable(text(500))),
};

/** The room forms and POST /api/rooms: a new room is in service unless told otherwise. */
export const RoomSchema = z.object({ ...roomFields, status: z._default(roomFields.status, "available") });
export type RoomInput = z.output<typeof RoomSchema>;

/** PUT /api/rooms/{id}: the fields sent, only those (no defaults); an empty body is refused. */
export const RoomUpdateSchema = z
  .partial(z.object(roomFields))
  .check(z.refine((fields) => Object.values(fields).some((value) => value !== undefined), "No hay cambios que guardar"));
export type RoomUpdate = z.output<typeof RoomUpdateSchema>;
