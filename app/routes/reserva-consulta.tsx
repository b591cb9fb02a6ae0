import { getFormProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useState } from "react";
import { EmailText } from "~/components/email-text";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { FormAlert, InputField, useSchemaForm } from "~/components/forms";
import { Modal } from "~/components/modal";
import {
  CONTACT_PREFERENCE_LABELS,
  isGuestCancellable,
  LookupSchema,
  RESERVATION_STATUS_LABELS,
  RESERVATION_TYPE_LABELS,
  ROOM_TYPE_LABELS,
} from "~/schemas/reservation";
import { cancelGuestReservation, findGuestReservation, toGuestLookupView, type GuestLookupView } from "~/services/visitor.server";
import { requireSameOrigin } from "~/utils/auth.server";
import { getClientIp } from "~/utils/client-ip.server";
import { accessCodeLine } from "~/utils/access-code";
import { formatDateTime, formatIsoDay } from "~/utils/dates";
import { readForm, refusedForm } from "~/utils/form-reply.server";
import { successToast } from "~/utils/toast";
import { dataWithToast } from "~/utils/toast.server";
import { qrSvg } from "~/utils/qr-code.server";
import { useHydrated } from "~/utils/use-hydrated";
import { lastBookingCookie } from "./booking-cookies.server";
import { pageMeta } from "~/utils/meta";
import { cachedPageHandle } from "~/utils/page-handle";

export const meta = pageMeta("Consulta de Reserva");
export const handle = cachedPageHandle();

const INTENTS = ["lookup", "confirm-cancel", "cancel"] as const;
type Intent = (typeof INTENTS)[number];

/**
 * A code in ?codigo= (the booking receipt's link) is filled in, and so is the
 * email when this browser made that booking (a signed cookie, never the URL).
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const code = (new URL(request.url).searchParams.get("codigo") ?? "").trim().toUpperCase().slice(0, 8);
  const last = code ? await lastBookingCookie.read(request) : null;
  return { code, email: last?.reservationCode === code ? last.guestEmail : "" };
}

// Lookup and cancel are POSTs: the guest's email never lands in a URL or a log.
export async function action({ request }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const formData = await readForm(request);
  const intentValue = String(formData.get("intent") ?? "lookup");
  const intent: Intent = (INTENTS as readonly string[]).includes(intentValue) ? (intentValue as Intent) : "lookup";
  const submission = parseWithZod(formData, { schema: LookupSchema });
  if (submission.status !== "success") return refusedForm(submission, { intent });
  const { code, email } = submission.value;
  const context = { ip: getClientIp(request) };
  const outcome = intent === "cancel" ? await cancelGuestReservation(code, email, context) : await findGuestReservation(code, email, context);
  if (!outcome.ok) return refusedForm(outcome, { intent, submission, toastTitle: intent === "cancel" ? "Error al cancelar la reserva" : "Error" });
  const view = await toGuestLookupView(outcome.reservation);
  const found = {
    intent,
    result: submission.reply(),
    reservation: view,
    // The key's QR as inline SVG markup (the pages' CSP allows no data: images).
    qrSvg: view.access ? await qrSvg(view.access.qr) : null,
    confirming: intent === "confirm-cancel" && isGuestCancellable(outcome.reservation.status),
  };
  return intent === "cancel" ? dataWithToast(found, successToast("Reserva cancelada correctamente")) : found;
}

export default function ReservationLookupPage() {
  const prefill = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm(LookupSchema, {
    id: "lookup",
    lastResult: actionData?.result,
    defaultValue: prefill,
  });
  const [code, setCode] = useState(String(fields.code.initialValue ?? ""));
  const [email, setEmail] = useState(String(fields.email.initialValue ?? ""));
  const searching = navigation.state === "submitting" && navigation.formData?.get("intent") === "lookup";
  const reservation = actionData && "reservation" in actionData ? actionData.reservation : null;
  const hydrated = useHydrated();

  return (
    <>
      <h1>Consulta de Reserva</h1>
      <p>Introduce el código de tu reserva y el email con el que la hiciste.</p>
      <Form method="post" {...getFormProps(form)} className="form card">
        <FormAlert id={form.errorId} errors={form.errors} />
        <div className="field-row">
          <InputField
            label="Código de reserva"
            meta={fields.code}
            maxLength={8}
            autoComplete="off"
            style={{ textTransform: "uppercase" }}
            value={code}
            onChange={(event) => setCode(event.currentTarget.value.toUpperCase().slice(0, 8))}
          />
          <InputField
            label="Email"
            meta={fields.email}
            type="email"
            autoComplete="email"
            value={email}
            onChange={(event) => setEmail(event.currentTarget.value)}
          />
        </div>
        <button
          type="submit"
          name="intent"
          value="lookup"
          className="button"
          // Without JavaScript the button stays enabled and the server checks.
          disabled={hydrated && (searching || !code.trim() || !email.trim())}
        >
          {searching ? "Buscando..." : "Buscar Reserva"}
        </button>
      </Form>
      {reservation ? <ReservationDetails key={`${reservation.reservationCode}-${reservation.status}`} reservation={reservation} confirming={actionData && "confirming" in actionData ? actionData.confirming : false} qrMarkup={actionData && "qrSvg" in actionData ? actionData.qrSvg : null} /> : null}
    </>
  );
}

function ReservationDetails({ reservation, confirming, qrMarkup }: { reservation: GuestLookupView; confirming: boolean; qrMarkup: string | null }) {
  const [confirmOpen, setConfirmOpen] = useState(confirming);
  const type = RESERVATION_TYPE_LABELS[reservation.reservationType];
  const hidden = (
    <>
      <input type="hidden" name="code" value={reservation.reservationCode} />
      <input type="hidden" name="email" value={reservation.guestEmail} />
    </>
  );
  return (
    <section className="card" aria-labelledby="reservation-title" style={{ marginTop: "1.5rem" }}>
      <h2 id="reservation-title">
        Reserva {reservation.reservationCode}{" "}
        <span className={`badge badge-${reservation.status}`} data-testid="reservation-status">
          {RESERVATION_STATUS_LABELS[reservation.status]}
        </span>
      </h2>
      <div className="grid-3">
        <div>
          <h3>Datos del huésped</h3>
          <dl className="details">
            <dt>Nombre</dt>
            <dd>{reservation.guestName}</dd>
            <dt>Email</dt>
            <dd>
              <EmailText email={reservation.guestEmail} />
            </dd>
            <dt>Teléfono</dt>
            <dd>{reservation.guestPhone}</dd>
            <dt>Contacto preferido</dt>
            <dd>{CONTACT_PREFERENCE_LABELS[reservation.contactPreference]}</dd>
          </dl>
        </div>
        <div>
          <h3>Detalles de la reserva</h3>
          <dl className="details">
            <dt>Tipo</dt>
            <dd>{reservation.roomType ? `${type} (${ROOM_TYPE_LABELS[reservation.roomType]})` : type}</dd>
            {reservation.room ? (
              <>
                <dt>{reservation.reservationType === "sala" ? "Sala" : "Habitación"}</dt>
                <dd data-testid="reservation-room">{reservation.room.name}</dd>
              </>
            ) : null}
            <dt>Entrada</dt>
            <dd>{formatIsoDay(reservation.startDate)}</dd>
            <dt>Salida</dt>
            <dd>{formatIsoDay(reservation.endDate)}</dd>
            <dt>Creada</dt>
            <dd>{formatDateTime(reservation.createdAt)}</dd>
          </dl>
        </div>
      </div>
      {reservation.access ? (
        <section aria-labelledby="access-title" data-testid="stay-access">
          <h3 id="access-title">Acceso al edificio</h3>
          <p data-testid="access-line">
            <strong>{accessCodeLine(reservation.access)}</strong>
          </p>
          <p>Teclea el código y pulsa # en el teclado de la puerta, o acerca este código QR al lector.</p>
          {qrMarkup ? <div className="access-qr" role="img" aria-label={`Código QR de acceso ${reservation.access.qr}`} dangerouslySetInnerHTML={{ __html: qrMarkup }} /> : null}
          <dl className="details">
            <dt>Código QR</dt>
            <dd>
              <code data-testid="access-qr">{reservation.access.qr}</code>
            </dd>
            <dt>Puertas</dt>
            <dd>{reservation.access.doors.map((door) => door.name).join(", ")}</dd>
          </dl>
        </section>
      ) : null}
      <h3>Peticiones especiales</h3>
      <p>{reservation.specialRequests || "Ninguna"}</p>
      {reservation.adminNotes ? (
        <>
          <h3>Notas de la administración</h3>
          <p>{reservation.adminNotes}</p>
        </>
      ) : null}
      {isGuestCancellable(reservation.status) ? (
        <Form method="post">
          {hidden}
          <button
            type="submit"
            name="intent"
            value="confirm-cancel"
            className="button button-danger"
            onClick={(event) => {
              event.preventDefault();
              setConfirmOpen(true);
            }}
          >
            Cancelar Reserva
          </button>
        </Form>
      ) : null}
      {confirmOpen ? (
        <Modal title="¿Está seguro de que desea cancelar su reserva?" onClose={() => setConfirmOpen(false)}>
          <p>Esta acción no se puede deshacer.</p>
          <Form method="post" className="modal-actions">
            {hidden}
            <button
              type="submit"
              name="intent"
              value="lookup"
              className="button button-secondary"
              onClick={(event) => {
                event.preventDefault();
                setConfirmOpen(false);
              }}
            >
              No, mantener reserva
            </button>
            <button type="submit" name="intent" value="cancel" className="button button-danger">
              Sí, cancelar reserva
            </button>
          </Form>
        </Modal>
      ) : null}
    </section>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
