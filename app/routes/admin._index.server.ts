// The dashboard's data and its forms' intents (doors, their messages,
// incidents and bridge credentials), through app/services/doors.server.ts.
import { parseWithZod } from "@conform-to/zod/v4";
import { data } from "@remix-run/node";
import { DoorIncidentSchema, DoorMessagesSchema, DoorSchema } from "~/schemas/door";
import { listDoorAlarms } from "~/services/door-alarms.server";
import * as doors from "~/services/doors.server";
import * as lockdown from "~/services/lockdown.server";
import { listFacilityCatalogue } from "~/services/facility-bookings.server";
import type { User } from "~/services/users.server";
import { renderedNow } from "~/utils/dates";
import { readForm, refusedForm } from "~/utils/form-reply.server";
import { modalOf } from "~/utils/page-url";
import { throwRefusal } from "~/utils/refusal.server";
import { untrustedProxySeenAt } from "~/utils/untrusted-proxy.server";
import { successToast } from "~/utils/toast";
import { redirectWithToast } from "~/utils/toast.server";

export const DOOR_MODALS = ["new", "edit", "messages", "incident", "delete", "credential", "lockdown"] as const;
export type DoorModal = (typeof DOOR_MODALS)[number];

export async function loadDashboard(request: Request) {
  const url = new URL(request.url);
  const [{ doors: doorList, stats, hourly }, facilities, lockdownState, alarms] = await Promise.all([
    // The 24-hour figures from the start of this minute: equal all minute long while no swipe comes in (ADR 0008).
    doors.getDoorsOverview(new Date(renderedNow())),
    listFacilityCatalogue(),
    lockdown.getLockdown(),
    listDoorAlarms(),
  ]);
  return {
    lockdown: lockdownState,
    alarms,
    /** Requests came through a proxy that TRUST_PROXY does not trust: every client shares its address. */
    untrustedProxy: untrustedProxySeenAt() !== null,
    stats,
    doors: doorList,
    facilities,
    activity: hourly,
    modal: {
      name: modalOf(url.searchParams, DOOR_MODALS),
      /** `?door=`: the open modal's door, by its row id (`_id`). */
      doorRowId: url.searchParams.get("door"),
    },
  };
}

export async function dashboardAction(request: Request, admin: User) {
  const formData = await readForm(request);
  const intent = String(formData.get("intent") ?? "");
  const doorId = String(formData.get("id") ?? "");
  const done = (title: string) => redirectWithToast("/admin", successToast(title));

  switch (intent) {
    case "create-door":
    case "update-door": {
      const submission = parseWithZod(formData, { schema: DoorSchema });
      if (submission.status !== "success") return refusedForm(submission, { intent });
      // The form always sends the facility: an empty choice unlinks the door.
      const input = { ...submission.value, facilityId: submission.value.facilityId ?? null };
      const saved = intent === "create-door" ? await doors.createDoor(input) : await doors.updateDoor(doorId, input);
      if (!saved.ok) return refusedForm(saved, { intent, submission });
      return done(intent === "create-door" ? "Puerta creada" : "Puerta actualizada");
    }
    case "set-messages": {
      const submission = parseWithZod(formData, { schema: DoorMessagesSchema });
      if (submission.status !== "success") return refusedForm(submission, { intent });
      const saved = await doors.setDoorMessages(doorId, submission.value);
      if (!saved.ok) return refusedForm(saved, { intent, submission });
      return done("Mensaje actualizado");
    }
    case "report-incident": {
      const submission = parseWithZod(formData, { schema: DoorIncidentSchema });
      if (submission.status !== "success") return refusedForm(submission, { intent });
      const reported = await doors.reportDoorIncident(doorId, submission.value, admin);
      if (!reported.ok) return refusedForm(reported, { intent, submission });
      return done("Incidencia Creada");
    }
    case "delete-door": {
      const deleted = await doors.deleteDoor(doorId);
      if (!deleted.ok) return refusedForm(deleted, { intent });
      return done("Puerta eliminada");
    }
    case "start-lockdown":
    case "lift-lockdown": {
      const starting = intent === "start-lockdown";
      const changed = await lockdown.setLockdown({ active: starting, reason: String(formData.get("reason") ?? "").slice(0, 200) });
      if (!changed.ok) return refusedForm(changed, { intent, toastTitle: "Error en el bloqueo general" });
      return done(starting ? "Bloqueo general activado" : "Bloqueo general levantado");
    }
    case "rotate-credential": {
      const rotated = await doors.rotateBridgeCredential(doorId);
      if (!rotated.ok) return refusedForm(rotated, { intent });
      // Shown once, in this response only: never stored in a cookie or URL.
      return data({ intent, credential: rotated.credential }, { headers: { "Cache-Control": "no-store" } });
    }
    default:
      throwRefusal({ status: 400, message: "Acción no válida" });
  }
}
