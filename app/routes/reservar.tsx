import { getFormProps, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { ErrorList, FormAlert, InputField, SelectField, TextareaField, useSchemaForm } from "~/components/forms";
import { Modal } from "~/components/modal";
import { PrivacyNotice } from "~/components/privacy-notice";
import { useToast } from "~/components/toaster";
import { CONTACT_PREFERENCES, RESERVATION_TYPES, ROOM_TYPES } from "~/db/schema-enums";
import { availabilityMessage, createAvailabilitySchema, fullMessage, unconfirmedHoldsMessage, type Availability } from "~/schemas/availability";
import {
  CONTACT_PREFERENCE_LABELS,
  createReservationSchema,
  RESERVATION_TYPE_LABELS,
  ROOM_TYPE_LABELS,
} from "~/schemas/reservation";
import { readAvailability } from "~/services/availability.server";
import { placeReservation } from "~/services/visitor.server";
import { receiptHoldNote } from "~/services/pending-holds.server";
import { getEnv } from "~/utils/env.server";
import { requireSameOrigin } from "~/utils/auth.server";
import { getClientIp } from "~/utils/client-ip.server";
import { formatIsoDay, todayInMadrid } from "~/utils/dates";
import { readForm, refusedForm } from "~/utils/form-reply.server";
import { errorToast, successToast } from "~/utils/toast";
import { redirectWithToast } from "~/utils/toast.server";
import { checkAvailability } from "~/services/availability.server";
import { useHydrated } from "~/utils/use-hydrated";
import { bookingReceiptCookie, lastBookingCookie, type BookingReceipt as Receipt } from "./booking-cookies.server";
import { availabilityOfForm, withAvailability } from "./reservar.server";
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
  const ip = getClientIp(request);
  const today = todayInMadrid();
  // 'Ver disponibilidad' (without JavaScript): what is free for the stay, the form kept as typed.
  if (formData.get("intent") === "check") {
    const asked = parseWithZod(formData, { schema: createAvailabilitySchema({ today }) });
    if (asked.status !== "success") return refusedForm(asked, { intent: "check" });
    const checked = await checkAvailability(asked.value, { ip });
    if (!checked.ok) return refusedForm(checked, { intent: "check", submission: asked });
    return data({ intent: "check", result: asked.reply(), availability: checked.availability });
  }
  const submission = parseWithZod(formData, { schema: createReservationSchema({ today }) });
  if (submission.status !== "success") {
    return withAvailability(refusedForm(submission, { intent: "book", toast: validationToast(submission.error) }), await availabilityOfForm(formData, { ip, today }));
  }
  const result = await placeReservation(submission.value, { ip });
  if (!result.ok) {
    // Refused as full: the page says what is free for those dates (the booking counted against its limit already).
    const availability = result.status === 409 ? await readAvailability(submission.value) : null;
    return withAvailability(refusedForm(result, { intent: "book", submission }), availability);
  }
  if (result.kind === "enquiry") {
    return redirectWithToast(
      "/reservar",
      successToast("Solicitud enviada", `Las estancias de más de ${getEnv().MAX_ONLINE_NIGHTS} noches no se reservan en línea: te hemos enviado tu solicitud como consulta y te escribiremos para acordarla. No te guardamos ninguna plaza hasta entonces.`),
    );
  }
  const { reservation } = result;
  const typeLabel = RESERVATION_TYPE_LABELS[reservation.reservationType];
  const receipt: Receipt = {
    reservationCode: reservation.reservationCode,
    guestName: reservation.guestName,
    type: reservation.roomType ? `${typeLabel} (${ROOM_TYPE_LABELS[reservation.roomType]})` : typeLabel,
    startDate: reservation.startDate,
    endDate: reservation.endDate,
    emailSent: result.emailSent,
    holdNote: receiptHoldNote(reservation),
  };
  const headers = new Headers();
  headers.append("Set-Cookie", await bookingReceiptCookie.set(receipt));
  headers.append("Set-Cookie", await lastBookingCookie.set({ reservationCode: reservation.reservationCode, guestEmail: reservation.guestEmail }));
  return redirectWithToast("/reservar", successToast("Reserva creada exitosamente"), { headers });
}

export default function BookingPage() {
  const { today, receipt } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>() as { result?: SubmissionResult<string[]>; availability?: Availability | null } | undefined;
  const [receiptOpen, setReceiptOpen] = useState(true);
  return (
    <>
      <h1>Reservar</h1>
      <p>Reserva una habitación para tu estancia o una sala de reuniones para tu equipo. Te confirmaremos la reserva por email.</p>
      {/* A new key after each booking mounts a fresh, empty form. */}
      <BookingForm key={receipt?.reservationCode ?? "booking"} today={today} lastResult={actionData?.result} answered={actionData?.availability ?? null} />
      {receipt && receiptOpen ? <ReceiptModal receipt={receipt} onClose={() => setReceiptOpen(false)} /> : null}
    </>
  );
}

type StayChoice = { reservationType: string; roomType: string; startDate: string; endDate: string };

/**
 * What is free for the stay as the guest chooses it: with JavaScript asked of
 * GET /api/availability as the dates and type change (a moment after the last
 * change); without it, the server's answer to the last submit.
 */
function useAvailability(choice: StayChoice, answered: Availability | null) {
  const hydrated = useHydrated();
  const [live, setLive] = useState<{ availability: Availability | null } | null>(null);
  const { reservationType, roomType, startDate, endDate } = choice;
  // A new answer from the server (a refused booking) is the latest word until the guest changes something.
  useEffect(() => setLive(null), [answered]);
  useEffect(() => {
    if (!hydrated) return;
    const complete = startDate && endDate && endDate > startDate && (reservationType === "sala" || roomType);
    if (!complete) {
      setLive({ availability: null });
      return;
    }
    const query = new URLSearchParams({ reservationType, startDate, endDate, ...(reservationType === "sala" ? {} : { roomType }), holds: "1" });
    const controller = new AbortController();
    const timer = setTimeout(() => {
      fetch(`/api/availability?${query}`, { signal: controller.signal })
        .then((response) => response.json())
        .then((body: { success: boolean; data?: Pick<Availability, "available" | "total" | "salas" | "unconfirmed"> }) =>
          setLive({
            availability: body.success && body.data ? { reservationType: reservationType as Availability["reservationType"], roomType: (roomType || null) as Availability["roomType"], startDate, endDate, ...body.data } : null,
          }),
        )
        .catch(() => {
          if (!controller.signal.aborted) setLive({ availability: null });
        });
    }, 250);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [hydrated, reservationType, roomType, startDate, endDate]);
  return live ? live.availability : answered;
}

function AvailabilityMessage({ availability }: { availability: Availability }) {
  const free = availability.available > 0;
  const held = unconfirmedHoldsMessage(availability);
  return (
    <>
      <div className={`alert availability ${free ? "alert-success" : "alert-error"}`} id="availability-message" data-testid="availability-message">
        <p>{availabilityMessage(availability)}</p>
        {free && availability.salas ? <p className="muted">Libres: {availability.salas.map((sala) => sala.name).join(", ")}</p> : null}
      </div>
      {/* Issue 40: places held by bookings the house has not confirmed yet, which may lapse. */}
      {held ? (
        <p className="muted" data-testid="availability-holds">
          {held}
        </p>
      ) : null}
    </>
  );
}

function BookingForm({ today, lastResult, answered }: { today: string; lastResult: SubmissionResult<string[]> | undefined; answered: Availability | null }) {
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
  const [choice, setChoice] = useState<StayChoice>({
    reservationType,
    roomType: String(fields.roomType.initialValue ?? ""),
    startDate,
    endDate: String(fields.endDate.initialValue ?? ""),
  });
  const availability = useAvailability(choice, answered);
  const full = availability !== null && availability.available <= 0;
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
        onChange={(event) => {
          const elements = event.currentTarget.elements;
          const value = (name: string) => (elements.namedItem(name) as HTMLInputElement | HTMLSelectElement | RadioNodeList | null)?.value ?? "";
          setChoice({ reservationType: value("reservationType") || "habitacion", roomType: value("roomType"), startDate: value("startDate"), endDate: value("endDate") });
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
        <div aria-live="polite">{availability ? <AvailabilityMessage availability={availability} /> : null}</div>
        <div className="actions">
          {/* A full type: the button says why it cannot be used. */}
          <button type="submit" className="button" disabled={submitting || full} aria-describedby={full ? "availability-message" : undefined}>
            {submitting ? "Procesando..." : full && availability ? `Reservar: ${fullMessage(availability.reservationType, availability.roomType).replace("No quedan", "no quedan")}` : "Reservar"}
          </button>
          {hydrated ? null : (
            <button type="submit" name="intent" value="check" formNoValidate className="button button-secondary">
              Ver disponibilidad
            </button>
          )}
        </div>
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
      {receipt.holdNote ? <p data-testid="receipt-hold">{receipt.holdNote}</p> : null}
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
