import { getFormProps, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useRef, useState } from "react";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { ErrorList, FormAlert, InputField, SelectField, TextareaField, useSchemaForm } from "~/components/forms";
import { Modal } from "~/components/modal";
import { PrivacyNotice } from "~/components/privacy-notice";
import { useToast } from "~/components/toaster";
import { CONTACT_PREFERENCES, RESERVATION_TYPES, ROOM_TYPES } from "~/db/schema-enums";
import {
  CONTACT_PREFERENCE_LABELS,
  createReservationSchema,
  RESERVATION_TYPE_LABELS,
  ROOM_TYPE_LABELS,
} from "~/schemas/reservation";
import { placeReservation } from "~/services/visitor.server";
import { requireSameOrigin } from "~/utils/auth.server";
import { getClientIp } from "~/utils/client-ip.server";
import { formatIsoDay, todayInMadrid } from "~/utils/dates";
import { readForm, refusedForm } from "~/utils/form-reply.server";
import { errorToast, successToast } from "~/utils/toast";
import { redirectWithToast } from "~/utils/toast.server";
import { useHydrated } from "~/utils/use-hydrated";
import { bookingReceiptCookie, lastBookingCookie, type BookingReceipt as Receipt } from "./booking-cookies.server";
import { pageMeta } from "~/utils/meta";
import { cachedPageHandle } from "~/utils/page-handle";

export const meta = pageMeta("Reservar");
export const handle = cachedPageHandle();


export async function loader({ request }: LoaderFunctionArgs) {
  const { value: receipt, clear } = await bookingReceiptCookie.pop(request);
  return data({ today: todayInMadrid(), receipt }, { headers: clear ? { "Set-Cookie": clear } : undefined });
}

/** SPEC §5: every validation message, joined with commas, in one toast. */
function validationToast(errors: Record<string, string[] | null> | null | undefined) {
  const messages = Object.values(errors ?? {}).flatMap((list) => list ?? []);
  return errorToast("Errores de Validación", [...new Set(messages)].join(", "));
}

export async function action({ request }: ActionFunctionArgs) {
  requireSameOrigin(request);
  const formData = await readForm(request);
  const submission = parseWithZod(formData, { schema: createReservationSchema({ today: todayInMadrid() }) });
  if (submission.status !== "success") return refusedForm(submission, { intent: "book", toast: validationToast(submission.error) });
  const result = await placeReservation(submission.value, { ip: getClientIp(request) });
  if (!result.ok) return refusedForm(result, { intent: "book", submission });
  const { reservation } = result;
  const typeLabel = RESERVATION_TYPE_LABELS[reservation.reservationType];
  const receipt: Receipt = {
    reservationCode: reservation.reservationCode,
    guestName: reservation.guestName,
    type: reservation.roomType ? `${typeLabel} (${ROOM_TYPE_LABELS[reservation.roomType]})` : typeLabel,
    startDate: reservation.startDate,
    endDate: reservation.endDate,
    emailSent: result.emailSent,
  };
  const headers = new Headers();
  headers.append("Set-Cookie", await bookingReceiptCookie.set(receipt));
  headers.append("Set-Cookie", await lastBookingCookie.set({ reservationCode: reservation.reservationCode, guestEmail: reservation.guestEmail }));
  return redirectWithToast("/reservar", successToast("Reserva creada exitosamente"), { headers });
}

export default function BookingPage() {
  const { today, receipt } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const [receiptOpen, setReceiptOpen] = useState(true);
  return (
    <>
      <h1>Reservar</h1>
      <p>Reserva una habitación para tu estancia o una sala de reuniones para tu equipo. Te confirmaremos la reserva por email.</p>
      {/* A new key after each booking mounts a fresh, empty form. */}
      <BookingForm key={receipt?.reservationCode ?? "booking"} today={today} lastResult={actionData?.result} />
      {receipt && receiptOpen ? <ReceiptModal receipt={receipt} onClose={() => setReceiptOpen(false)} /> : null}
    </>
  );
}

function BookingForm({ today, lastResult }: { today: string; lastResult: SubmissionResult<string[]> | undefined }) {
  const navigation = useNavigation();
  const hydrated = useHydrated();
  const schema = createReservationSchema({ today });
  const clientErrors = useRef<Record<string, string[] | null> | null>(null);
  const showToast = useToast();
  const [form, fields] = useSchemaForm(schema, {
    id: "booking",
    lastResult,
    defaultValue: { reservationType: "habitacion", contactPreference: "email" },
    onValidated(submission) {
      clientErrors.current = submission.status === "error" ? (submission.error ?? null) : null;
      return submission;
    },
  });
  const [reservationType, setReservationType] = useState(String(fields.reservationType.initialValue ?? "habitacion"));
  const [startDate, setStartDate] = useState(String(fields.startDate.initialValue ?? ""));
  const submitting = navigation.state === "submitting" && navigation.formAction === "/reservar";
  const formProps = getFormProps(form);

  return (
    <>
      <Form
        method="post"
        {...formProps}
        onSubmit={(event) => {
          formProps.onSubmit(event);
          // Refused in the browser: the same toast the server gives without JavaScript.
          if (event.defaultPrevented && clientErrors.current) showToast(validationToast(clientErrors.current));
        }}
        className="form card"
      >
        <FormAlert id={form.errorId} title="Error" errors={form.errors} />
        <fieldset className="field">
          <legend>¿Qué quieres reservar?</legend>
          <div className="segmented">
            {RESERVATION_TYPES.map((type) => (
              <label key={type}>
                <input
                  type="radio"
                  name={fields.reservationType.name}
                  value={type}
                  defaultChecked={reservationType === type}
                  onChange={() => setReservationType(type)}
                />
                <span>{RESERVATION_TYPE_LABELS[type]}</span>
              </label>
            ))}
          </div>
        </fieldset>
        <div className="field-row">
          <InputField
            label="Fecha de entrada"
            meta={fields.startDate}
            type="date"
            min={today}
            onChange={(event) => {
              const entry = event.currentTarget.value;
              setStartDate(entry);
              const exit = (event.currentTarget.form?.elements.namedItem(fields.endDate.name) as HTMLInputElement | null)?.value;
              if (exit && entry && exit < entry) form.update({ name: fields.endDate.name, value: "" });
            }}
          />
          <InputField label="Fecha de salida" meta={fields.endDate} type="date" min={startDate || today} />
        </div>
        {/* Rooms only: with JavaScript it follows the choice; without, the CSS hides it while 'Sala de reuniones' is checked. */}
        {!hydrated || reservationType === "habitacion" ? (
          <div className="room-type">
            <SelectField
              label="Tipo de habitación"
              meta={fields.roomType}
              placeholder="Selecciona un tipo"
              options={ROOM_TYPES.map((value) => ({ value, label: ROOM_TYPE_LABELS[value] }))}
            />
          </div>
        ) : null}
        <InputField label="Nombre completo" meta={fields.guestName} autoComplete="name" />
        <div className="field-row">
          <InputField label="Email" meta={fields.guestEmail} type="email" autoComplete="email" />
          <InputField label="Teléfono" meta={fields.guestPhone} type="tel" autoComplete="tel" />
        </div>
        <fieldset className="field">
          <legend>Preferencia de contacto</legend>
          <div className="segmented">
            {CONTACT_PREFERENCES.map((preference) => (
              <label key={preference}>
                <input
                  type="radio"
                  name={fields.contactPreference.name}
                  value={preference}
                  defaultChecked={(fields.contactPreference.initialValue ?? "email") === preference}
                />
                <span>{CONTACT_PREFERENCE_LABELS[preference]}</span>
              </label>
            ))}
          </div>
          <ErrorList errors={fields.contactPreference.errors} />
        </fieldset>
        <TextareaField label="Peticiones especiales (opcional)" meta={fields.specialRequests} rows={3} />
        <PrivacyNotice
          purpose="gestionar tu reserva y contactarte sobre ella"
          retention="mientras dure la reserva y hasta un año después, o lo que exija la ley"
        />
        <button type="submit" className="button" disabled={submitting}>
          {submitting ? "Procesando..." : "Reservar"}
        </button>
      </Form>
    </>
  );
}

function ReceiptModal({ receipt, onClose }: { receipt: Receipt; onClose: () => void }) {
  return (
    <Modal title="¡Reserva creada!" onClose={onClose}>
      <p>Tu código de reserva es:</p>
      <p className="receipt-code" data-testid="reservation-code">
        {receipt.reservationCode}
      </p>
      <dl className="details">
        <dt>Nombre</dt>
        <dd>{receipt.guestName}</dd>
        <dt>Tipo</dt>
        <dd>{receipt.type}</dd>
        <dt>Fecha de entrada</dt>
        <dd>{formatIsoDay(receipt.startDate)}</dd>
        <dt>Fecha de salida</dt>
        <dd>{formatIsoDay(receipt.endDate)}</dd>
      </dl>
      <p>
        {receipt.emailSent
          ? "Te hemos enviado un email de confirmación."
          : "No hemos podido enviarte el email de confirmación; apunta el código."}{" "}
        Guarda este código para consultar tu reserva más adelante.
      </p>
      <div className="modal-actions">
        <Link to={`/reserva-consulta?codigo=${encodeURIComponent(receipt.reservationCode)}`} className="button button-secondary">
          Consultar mi reserva
        </Link>
        <Link
          to="/reservar"
          className="button"
          onClick={(event) => {
            event.preventDefault();
            onClose();
          }}
        >
          Cerrar
        </Link>
      </div>
    </Modal>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
