import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { ReservationUpdateSchema } from "~/schemas/reservation";
import { changeReservationStatus, getAdminReservation, saveReservationNotes } from "~/services/reservations.server";
import { apiSuccess, methodNotAllowed, parseJsonBody, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";
import { refuse } from "~/utils/refusal.server";

export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  methodNotAllowed();
}

// PUT /api/anonymous-reservations/{id}/status {status?: confirmed | cancelled, adminNotes?, roomId?}:
// the status change is checked and mailed first (a confirmation gives the stay
// `roomId` or the free room that fits best); the notes are saved once it succeeded.
export async function action({ request, params }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "PUT") methodNotAllowed();
  const id = params.id ?? "";
  const { status, adminNotes, roomId } = await parseJsonBody(request, ReservationUpdateSchema);
  if (roomId && status !== "confirmed") refuseApi(refuse(400, "roomId solo se admite al confirmar (status confirmed)"));
  let emailSent: boolean | undefined;
  if (status) {
    const changed = await changeReservationStatus(id, status, new Date(), { roomId });
    if (!changed.ok) refuseApi(changed);
    emailSent = changed.emailSent;
  }
  if (adminNotes !== undefined) {
    const saved = await saveReservationNotes(id, adminNotes);
    if (!saved.ok) refuseApi(saved);
  }
  const current = await getAdminReservation(id);
  if (!current.ok) refuseApi(current);
  return apiSuccess(emailSent === undefined ? current.reservation : { ...current.reservation, emailSent });
}
