// /portal: the resident's page data (each card loaded on its own, so one
// failing read shows its SPEC message without taking the page down), the
// open modal (URL state: ?modal=…&reserva=…|incidencia=…) and the forms'
// intents, all through the services the JSON API uses too. Everything is
// the signed-in user's own: the services scope every read and write to them.
import { parseWithZod } from "@conform-to/zod/v4";
import { BookingDraftSchema, type BookingDraft } from "~/schemas/calendar";
import { BookingSchema, MAX_BOOKING_DAYS_AHEAD } from "~/schemas/facility-booking";
import { PasswordFormSchema, ProfileSchema } from "~/schemas/profile";
import { ResidentIncidentSchema } from "~/schemas/resident-incident";
import { MAX_VISITOR_PASS_DAYS_AHEAD, VisitorPassSchema } from "~/schemas/visitor-pass";
import { getBuildingConditions } from "~/services/building.server";
import {
  activeBookingLimits,
  cancelResidentBooking,
  createResidentBooking,
  getResidentBooking,
  listDaySlots,
  listFacilityCatalogue,
  listResidentBookings,
} from "~/services/facility-bookings.server";
import { getNotifications, markAllRead } from "~/services/notifications.server";
import { changeOwnPassword, toProfileJson, updateProfile } from "~/services/profile.server";
import {
  cancelResidentIncident,
  editResidentIncident,
  getResidentIncident,
  listResidentIncidents,
  reportResidentIncident,
} from "~/services/resident-incidents.server";
import type { User } from "~/services/users.server";
import { cancelVisitorPass, createVisitorPass, listResidentVisitorPasses, visitorPassDoorChoices } from "~/services/visitor-passes.server";
import { filtersFromQuery } from "~/utils/api.server";
import { getSessionId } from "~/utils/auth.server";
import { addDays, todayInMadrid, renderedNow } from "~/utils/dates";
import { readForm, refusedForm } from "~/utils/form-reply.server";
import { modalOf } from "~/utils/page-url";
import { isMultipart, readPhotoForm } from "~/utils/photo-upload.server";
import { throwRefusal } from "~/utils/refusal.server";
import { errorToast, infoToast, successToast, type Toast } from "~/utils/toast";
import { dataWithToast, redirectWithToast } from "~/utils/toast.server";
import { qrSvg } from "~/utils/qr-code.server";

export const PORTAL_MODALS = [
  "reservar",
  "cancelar-reserva",
  "reportar",
  "editar-incidencia",
  "cancelar-incidencia",
  "perfil",
  "contrasena",
  "invitar",
  "anular-invitacion",
] as const;
export type PortalModal = (typeof PORTAL_MODALS)[number];

/** SPEC §8 portal toasts: what a failed load or action is called. */
export const PORTAL_FAILURES = {
  bookings: "No se pudieron cargar las reservas",
  incidents: "No se pudieron cargar las incidencias",
  notifications: "No se pudieron cargar las notificaciones",
  createBooking: "No se pudo crear la reserva",
  reportIncident: "No se pudo enviar el reporte",
  cancelBooking: "No se pudo cancelar la reserva",
  editIncident: "No se pudo actualizar la incidencia",
  cancelIncident: "No se pudo cancelar la incidencia",
  updateProfile: "No se pudo actualizar el perfil",
  changePassword: "No se pudo cambiar la contraseña",
  building: "No se pudo cargar la información del edificio",
  visitorPasses: "No se pudieron cargar las invitaciones",
  createVisitorPass: "No se pudo crear la invitación",
  cancelVisitorPass: "No se pudo anular la invitación",
} as const;

/** One card's data, or the message that says it could not be read. */
export type Section<T> = { ok: true; data: T } | { ok: false; message: string };

async function section<T>(load: () => Promise<T>, failure: string): Promise<Section<T>> {
  try {
    return { ok: true, data: await load() };
  } catch (error) {
    console.error(`[portal] ${failure}`, error);
    return { ok: false, message: failure };
  }
}

export async function loadPortal(request: Request, user: User) {
  const url = new URL(request.url);
  const now = new Date();
  const modal = modalOf(url.searchParams, PORTAL_MODALS);
  const today = todayInMadrid(now);
  const [facilities, bookings, incidents, notifications, building, modalBooking, modalIncident, bookingDraft, visitorPasses, visitorPassDoors] = await Promise.all([
    modal === "reservar" ? listFacilityCatalogue() : Promise.resolve([]),
    section(() => listResidentBookings(user, now), PORTAL_FAILURES.bookings),
    section(() => listResidentIncidents(user), PORTAL_FAILURES.incidents),
    section(() => getNotifications(user.id), PORTAL_FAILURES.notifications),
    section(() => getBuildingConditions(now), PORTAL_FAILURES.building),
    modal === "cancelar-reserva" ? getResidentBooking(user, url.searchParams.get("reserva") ?? "", now) : null,
    modal === "editar-incidencia" || modal === "cancelar-incidencia" ? getResidentIncident(user, url.searchParams.get("incidencia") ?? "") : null,
    modal === "reservar" ? loadBookingDraft(url, now) : null,
    section(() => listResidentVisitorPasses(user, now), PORTAL_FAILURES.visitorPasses),
    modal === "invitar" ? visitorPassDoorChoices(user, now) : Promise.resolve([]),
  ]);
  const passId = url.searchParams.get("invitacion");
  return {
    profile: toProfileJson(user),
    now: renderedNow(now),
    bookingDates: { min: today, max: addDays(today, MAX_BOOKING_DAYS_AHEAD) },
    bookingLimits: activeBookingLimits(),
    facilities,
    bookings,
    incidents,
    notifications,
    building,
    visitorPasses,
    visitorPassForm: { doors: visitorPassDoors, dates: { min: today, max: addDays(today, MAX_VISITOR_PASS_DAYS_AHEAD) } },
    modal: {
      name: modal,
      booking: modalBooking?.ok ? modalBooking.booking : null,
      incident: modalIncident?.ok ? modalIncident.incident : null,
      // Only a pass of the resident's own list (and still cancellable) can be cancelled here.
      visitorPass: modal === "anular-invitacion" && visitorPasses.ok ? (visitorPasses.data.find((pass) => pass._id === passId && pass.cancellable) ?? null) : null,
    },
    bookingDraft: bookingDraft ?? { draft: {}, slots: null },
  };
}

/**
 * The booking form's choices and that day's free slots of the chosen
 * facility, when 'Ver horarios libres' sent them (a GET of the form, without
 * JavaScript; with it the form asks /api/user-portal/facilities/{id}/slots).
 */
async function loadBookingDraft(url: URL, now: Date) {
  const draft: BookingDraft = filtersFromQuery(BookingDraftSchema, url.searchParams);
  const found = draft.facilityId && draft.date ? await listDaySlots(draft.facilityId, draft.date, now) : null;
  return { draft, slots: found?.ok ? found.slots : null };
}

const PORTAL_URL = "/portal";

export async function portalAction(request: Request, user: User) {
  const { formData, photos, problem } = isMultipart(request)
    ? await readPhotoForm(request)
    : { formData: await readForm(request), photos: [], problem: null };
  // Only the report form is multipart: a body too large to read is its refusal.
  if (problem && !problem.field) return refusedForm(problem, { intent: "report-incident", toastTitle: PORTAL_FAILURES.reportIncident });
  const intent = String(formData.get("intent") ?? "");
  const done = (toast: Toast) => redirectWithToast(PORTAL_URL, toast);

  switch (intent) {
    case "create-booking": {
      const submission = parseWithZod(formData, { schema: BookingSchema });
      if (submission.status !== "success") return refusedForm(submission, { intent, toastTitle: PORTAL_FAILURES.createBooking });
      const created = await createResidentBooking(user, submission.value);
      if (!created.ok) return refusedForm(created, { intent, submission, toastTitle: PORTAL_FAILURES.createBooking });
      return done(successToast("Reserva Creada", `${created.booking.facilityName}: reserva confirmada.`));
    }
    case "cancel-booking": {
      const cancelled = await cancelResidentBooking(user, String(formData.get("id") ?? ""));
      if (!cancelled.ok) return refusedForm(cancelled, { intent, toastTitle: PORTAL_FAILURES.cancelBooking });
      return done(successToast("Reserva Cancelada", cancelled.booking.facilityName));
    }
    case "report-incident": {
      const submission = parseWithZod(formData, { schema: ResidentIncidentSchema });
      if (submission.status !== "success") return refusedForm(submission, { intent, toastTitle: PORTAL_FAILURES.reportIncident });
      if (problem) return refusedForm(problem, { intent, submission, toastTitle: PORTAL_FAILURES.reportIncident });
      const reported = await reportResidentIncident(user, submission.value, photos);
      if (!reported.ok) return refusedForm(reported, { intent, submission, toastTitle: PORTAL_FAILURES.reportIncident });
      return done(successToast("Incidencia Reportada", reported.incident.title));
    }
    case "edit-incident": {
      const submission = parseWithZod(formData, { schema: ResidentIncidentSchema });
      if (submission.status !== "success") return refusedForm(submission, { intent, toastTitle: PORTAL_FAILURES.editIncident });
      const edited = await editResidentIncident(user, String(formData.get("id") ?? ""), submission.value);
      if (!edited.ok) return refusedForm(edited, { intent, submission, toastTitle: PORTAL_FAILURES.editIncident });
      return done(successToast("Incidencia Actualizada", edited.incident.title));
    }
    case "cancel-incident": {
      const cancelled = await cancelResidentIncident(user, String(formData.get("id") ?? ""));
      if (!cancelled.ok) return refusedForm(cancelled, { intent, toastTitle: PORTAL_FAILURES.cancelIncident });
      return done(successToast("Incidencia Cancelada", cancelled.incident.title));
    }
    case "create-visitor-pass": {
      const submission = parseWithZod(formData, { schema: VisitorPassSchema });
      if (submission.status !== "success") return refusedForm(submission, { intent, toastTitle: PORTAL_FAILURES.createVisitorPass });
      const created = await createVisitorPass(user, submission.value);
      if (!created.ok) return refusedForm(created, { intent, submission, toastTitle: PORTAL_FAILURES.createVisitorPass });
      // Not a redirect: the PIN and QR are shown this once, in this answer (and in the visitor's mail).
      return dataWithToast(
        { intent, createdVisitorPass: created.pass, qrSvg: await qrSvg(created.pass.qr) },
        successToast("Invitación enviada", `${created.pass.visitorName} recibirá su código por correo.`),
      );
    }
    case "cancel-visitor-pass": {
      const cancelled = await cancelVisitorPass(String(formData.get("id") ?? ""), { createdBy: user.id });
      if (!cancelled.ok) return refusedForm(cancelled, { intent, toastTitle: PORTAL_FAILURES.cancelVisitorPass });
      return done(successToast("Invitación anulada", cancelled.pass.visitorName));
    }
    case "mark-notifications-read": {
      const marked = await markAllRead(user.id);
      return done(marked === 0 ? infoToast("Notificaciones", "No había notificaciones sin leer.") : successToast("Notificaciones", "Todas las notificaciones se han marcado como leídas."));
    }
    case "update-profile": {
      const submission = parseWithZod(formData, { schema: ProfileSchema });
      if (submission.status !== "success") return refusedForm(submission, { intent, toastTitle: PORTAL_FAILURES.updateProfile });
      const updated = await updateProfile(user, submission.value);
      if (!updated.ok) return refusedForm(updated, { intent, submission, toastTitle: PORTAL_FAILURES.updateProfile });
      return done(successToast("Perfil actualizado"));
    }
    case "change-password": {
      const submission = parseWithZod(formData, { schema: PasswordFormSchema });
      const hideFields = ["currentPassword", "newPassword", "confirmPassword"];
      if (submission.status !== "success") return refusedForm(submission, { intent, hideFields, toast: errorToast(PORTAL_FAILURES.changePassword) });
      const changed = await changeOwnPassword(user, submission.value, { keepSessionId: await getSessionId(request) });
      if (!changed.ok) return refusedForm(changed, { intent, submission, hideFields, toastTitle: PORTAL_FAILURES.changePassword });
      return done(successToast("Contraseña actualizada"));
    }
    default:
      throwRefusal({ status: 400, message: "Acción no válida" });
  }
}
