// The admin dashboard's data and actions (doors, their messages, incidents and
// bridge credentials). The JSON API (/api/doors) shares the views and models.
import type { SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data } from "@remix-run/node";
import type { User } from "~/db/schema";
import { countAccessByDoorSince, getHourlyAccessActivity } from "~/models/access-log-query.server";
import {
  createDoor,
  deleteDoor,
  getDoorById,
  getDoorStats,
  issueBridgeCredential,
  listDoors,
  setDoorMessages,
  updateDoor,
  type Door,
} from "~/models/door.server";
import { createDoorIncident } from "~/models/incident.server";
import { DoorIncidentSchema, DoorMessagesSchema, DoorSchema } from "~/schemas/door";
import type { Toast } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";

const MODALS = ["new", "edit", "messages", "incident", "delete", "credential"] as const;

/** What admins and the API see of a door (never the bridge secret's hash). */
export function toDoorView(door: Door, recentActivity = 0) {
  return {
    _id: door.id,
    id: door.id,
    doorId: door.doorId,
    name: door.name,
    location: door.location,
    description: door.description,
    status: door.status,
    useCustomMessages: door.useCustomMessages,
    customStatus: door.customStatus,
    customMessage: door.customMessage,
    recentActivity,
    lastAccess: door.lastAccessAt?.toISOString() ?? null,
    lastAccessAt: door.lastAccessAt?.toISOString() ?? null,
    hardware: door.hardware ?? null,
    bridgeSecretIssuedAt: door.bridgeSecretIssuedAt?.toISOString() ?? null,
    createdAt: door.createdAt.toISOString(),
    updatedAt: door.updatedAt.toISOString(),
  };
}

export async function listDoorViews(now = new Date()) {
  const [doors, recent] = await Promise.all([listDoors(), countAccessByDoorSince(new Date(now.getTime() - 24 * 3600_000))]);
  return doors.map((door) => toDoorView(door, recent.get(door.id) ?? 0));
}

export async function loadDashboard(request: Request) {
  const url = new URL(request.url);
  const modalName = url.searchParams.get("modal");
  const now = new Date();
  const [stats, doors, activity] = await Promise.all([getDoorStats(now), listDoorViews(now), getHourlyAccessActivity(now)]);
  return {
    stats,
    doors,
    activity,
    modal: {
      name: (MODALS as readonly string[]).includes(modalName ?? "") ? modalName : null,
      doorId: url.searchParams.get("door"),
    },
  };
}

/** A doorId already taken shows up as a unique-constraint failure. */
export function isDuplicateDoorId(error: unknown) {
  const text = `${String((error as { cause?: unknown })?.cause ?? "")} ${(error as Error)?.message ?? ""}`;
  return text.includes("UNIQUE") && text.includes("door_id");
}

export const DUPLICATE_DOOR_ID = "Ya existe una puerta con ese ID";

function failure(intent: string, result: SubmissionResult<string[]>, message: string, status = 400) {
  const toast: Toast = { id: crypto.randomUUID(), type: "error", title: "Error", description: message };
  return data({ intent, result, toast }, { status });
}

export async function dashboardAction(request: Request, admin: User) {
  const formData = await request.formData();
  const intent = String(formData.get("intent") ?? "");
  const doorRowId = String(formData.get("id") ?? "");
  const success = (title: string) => redirectWithToast(request, "/admin", { type: "success", title });

  if (intent === "create-door" || intent === "update-door") {
    const submission = parseWithZod(formData, { schema: DoorSchema });
    if (submission.status !== "success") return data({ intent, result: submission.reply() }, { status: 400 });
    try {
      if (intent === "create-door") {
        await createDoor(submission.value);
        return success("Puerta creada");
      }
      const door = await updateDoor(doorRowId, submission.value);
      if (!door) return failure(intent, submission.reply({ formErrors: ["Puerta no encontrada"] }), "Puerta no encontrada", 404);
      return success("Puerta actualizada");
    } catch (error) {
      if (!isDuplicateDoorId(error)) throw error;
      return failure(intent, submission.reply({ fieldErrors: { doorId: [DUPLICATE_DOOR_ID] } }), DUPLICATE_DOOR_ID, 409);
    }
  }

  if (intent === "set-messages") {
    const submission = parseWithZod(formData, { schema: DoorMessagesSchema });
    if (submission.status !== "success") return data({ intent, result: submission.reply() }, { status: 400 });
    const { useCustomMessages, customStatus, customMessage } = submission.value;
    const door = await setDoorMessages(doorRowId, {
      useCustomMessages,
      customStatus: customStatus || null,
      customMessage: customMessage || null,
    });
    if (!door) return failure(intent, submission.reply({ formErrors: ["No se pudo actualizar el mensaje"] }), "No se pudo actualizar el mensaje", 404);
    return success("Mensaje actualizado");
  }

  if (intent === "report-incident") {
    const submission = parseWithZod(formData, { schema: DoorIncidentSchema });
    if (submission.status !== "success") return data({ intent, result: submission.reply() }, { status: 400 });
    const door = await getDoorById(doorRowId);
    if (!door) return failure(intent, submission.reply({ formErrors: ["No se pudo crear la incidencia"] }), "No se pudo crear la incidencia", 404);
    await createDoorIncident({ door, ...submission.value, reportedBy: admin });
    return success("Incidencia Creada");
  }

  if (intent === "delete-door") {
    if (!(await deleteDoor(doorRowId))) return redirectWithToast(request, "/admin", { type: "error", title: "Error", description: "Puerta no encontrada" });
    return success("Puerta eliminada");
  }

  if (intent === "rotate-credential") {
    const credential = await issueBridgeCredential(doorRowId);
    if (!credential) return redirectWithToast(request, "/admin", { type: "error", title: "Error", description: "Puerta no encontrada" });
    // Shown once, in this response only: never stored in a cookie or URL.
    return data({ intent, credential });
  }

  throw new Response("Acción no válida", { status: 400 });
}
