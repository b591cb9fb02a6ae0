// The portal's booking modals (URL state): a new booking and the
// confirmation of a cancellation. Plain forms that work without JavaScript;
// with it, the facility list follows the chosen type. The chosen facility's
// free slots that day show before booking: with JavaScript as facility and
// day are chosen, without it after 'Ver horarios libres' (a GET of the form).
import { getFormProps, getSelectProps, type FieldMetadata, type SubmissionResult } from "@conform-to/react";
import { Form } from "@remix-run/react";
import { useEffect, useState } from "react";
import { RouteModal } from "~/components/admin/route-modal";
import { ErrorList, FormAlert, InputField, SelectField, SubmitButton, TextareaField, useSchemaForm } from "~/components/forms";
import { FACILITY_TYPES } from "~/db/schema-enums";
import {
  BOOKING_DURATION_LABELS,
  BOOKING_DURATIONS,
  BookingSchema,
  FACILITY_TYPE_LABELS,
  type FacilityType,
} from "~/schemas/facility-booking";
import type { BookingDraft } from "~/schemas/calendar";
import type { BookingJson, DaySlot, DaySlots, FacilityJson } from "~/services/facility-bookings.server";
import { formatIsoDay, formatTimeRange } from "~/utils/dates";
import { useHydrated } from "~/utils/use-hydrated";

const CLOSE_TO = "/portal";

type SlotsState = { status: "idle" } | { status: "loading" } | { status: "ready"; slots: DaySlots } | { status: "error"; message: string };

export function NewBookingModal({
  facilities,
  dates,
  draft,
  limits,
  lastResult,
}: {
  facilities: FacilityJson[];
  dates: { min: string; max: string };
  draft: { draft: BookingDraft; slots: DaySlots | null };
  /** The most bookings not over yet a resident may have, per facility type. */
  limits: Record<FacilityType, number>;
  lastResult?: SubmissionResult<string[]>;
}) {
  const hydrated = useHydrated();
  const [form, fields] = useSchemaForm(BookingSchema, {
    id: "new-booking",
    lastResult,
    defaultValue: { duration: "1", ...draft.draft },
  });
  const [choice, setChoice] = useState({ facilityId: draft.draft.facilityId ?? "", date: draft.draft.date ?? "" });
  const [slots, setSlots] = useState<SlotsState>(draft.slots ? { status: "ready", slots: draft.slots } : { status: "idle" });
  // With JavaScript: the day's slots of the chosen facility, asked again as either changes.
  useEffect(() => {
    if (!hydrated) return;
    if (!choice.facilityId || !choice.date) {
      setSlots({ status: "idle" });
      return;
    }
    const controller = new AbortController();
    setSlots({ status: "loading" });
    fetch(`/api/user-portal/facilities/${encodeURIComponent(choice.facilityId)}/slots?date=${encodeURIComponent(choice.date)}`, { signal: controller.signal })
      .then((response) => response.json())
      .then((body: { success: boolean; data?: DaySlots; error?: { message: string } }) =>
        setSlots(body.success && body.data ? { status: "ready", slots: body.data } : { status: "error", message: body.error?.message ?? "No se pudieron cargar los horarios" }),
      )
      .catch(() => {
        if (!controller.signal.aborted) setSlots({ status: "error", message: "No se pudieron cargar los horarios" });
      });
    return () => controller.abort();
  }, [hydrated, choice.facilityId, choice.date]);
  return (
    <RouteModal title="Nueva Reserva" closeTo={CLOSE_TO}>
      <Form
        method="post"
        {...getFormProps(form)}
        className="form"
        preventScrollReset
        onChange={(event) => {
          const elements = event.currentTarget.elements;
          const value = (name: string) => (elements.namedItem(name) as HTMLInputElement | HTMLSelectElement | null)?.value ?? "";
          setChoice({ facilityId: value(fields.facilityId.name), date: value(fields.date.name) });
        }}
      >
        <FormAlert id={form.errorId} title="No se pudo crear la reserva" errors={form.errors} />
        {/* 'Ver horarios libres' (a GET) comes back to this modal. */}
        <input type="hidden" name="modal" value="reservar" />
        <FacilityFields typeField={fields.facilityType} facilityField={fields.facilityId} facilities={facilities} />
        <p className="muted" data-testid="booking-limit">
          {bookingLimitText(limits)}
        </p>
        <div className="field-row">
          <InputField label="Fecha" meta={fields.date} type="date" min={dates.min} max={dates.max} />
          <InputField label="Hora de inicio" meta={fields.startTime} type="time" step={300} />
        </div>
        <SlotsPanel state={slots} />
        {hydrated ? null : (
          <div>
            <button type="submit" formMethod="get" formAction="/portal" formNoValidate className="button button-secondary">
              Ver horarios libres
            </button>
          </div>
        )}
        <SelectField
          label="Duración"
          meta={fields.duration}
          options={BOOKING_DURATIONS.map((value) => ({ value, label: BOOKING_DURATION_LABELS[value] }))}
        />
        <TextareaField label="Notas (opcional)" meta={fields.notes} rows={2} />
        <SubmitButton intent="create-booking" label="Reservar" busyLabel="Reservando..." />
      </Form>
    </RouteModal>
  );
}

/**
 * The facility's type, then the facility. With JavaScript the second list
 * holds the chosen type's facilities and stays disabled until a type is
 * chosen; without it, it lists every facility grouped by type (the server
 * checks that both agree).
 */
function FacilityFields({
  typeField,
  facilityField,
  facilities,
}: {
  typeField: FieldMetadata<string, Record<string, unknown>, string[]>;
  facilityField: FieldMetadata<string, Record<string, unknown>, string[]>;
  facilities: FacilityJson[];
}) {
  const hydrated = useHydrated();
  const [type, setType] = useState<string>(String(typeField.initialValue ?? ""));
  const { defaultValue: facilityDefault, ...facilityProps } = getSelectProps(facilityField);
  const typeProps = getSelectProps(typeField);
  const ofType = facilities.filter((facility) => facility.type === type);
  return (
    <div className="field-row">
      <div className="field">
        <label htmlFor={typeField.id}>Tipo de instalación</label>
        <select {...typeProps} key={typeField.key} onChange={(event) => setType(event.currentTarget.value)}>
          <option value="">Selecciona un tipo</option>
          {FACILITY_TYPES.map((value) => (
            <option key={value} value={value}>
              {FACILITY_TYPE_LABELS[value]}
            </option>
          ))}
        </select>
        <ErrorList id={typeField.errorId} errors={typeField.errors} />
      </div>
      <div className="field">
        <label htmlFor={facilityField.id}>Instalación</label>
        {hydrated ? (
          <select
            {...facilityProps}
            // A new type starts a new choice.
            key={`${facilityField.key}-${type}`}
            defaultValue={ofType.some((facility) => facility._id === facilityDefault) ? facilityDefault : ""}
            disabled={!type}
          >
            <option value="">{type ? "Selecciona una instalación" : "Elige primero el tipo"}</option>
            {ofType.map((facility) => (
              <option key={facility._id} value={facility._id}>
                {facilityLabel(facility)}
              </option>
            ))}
          </select>
        ) : (
          <select {...facilityProps} defaultValue={facilityDefault}>
            <option value="">Selecciona una instalación</option>
            {FACILITY_TYPES.map((value: FacilityType) => (
              <optgroup key={value} label={FACILITY_TYPE_LABELS[value]}>
                {facilities
                  .filter((facility) => facility.type === value)
                  .map((facility) => (
                    <option key={facility._id} value={facility._id}>
                      {facilityLabel(facility)}
                    </option>
                  ))}
              </optgroup>
            ))}
          </select>
        )}
        <ErrorList id={facilityField.errorId} errors={facilityField.errors} />
      </div>
    </div>
  );
}

/** The chosen facility's free and taken slots that day, announced as they change. */
function SlotsPanel({ state }: { state: SlotsState }) {
  const range = (slot: DaySlot) => `${slot.startTime}–${slot.endTime}`;
  return (
    <div className="day-slots" aria-live="polite" data-testid="day-slots">
      {state.status === "loading" ? <p className="muted">Buscando horarios libres...</p> : null}
      {state.status === "error" ? <p className="field-error">{state.message}</p> : null}
      {state.status === "ready" ? (
        <>
          <p>
            <strong>
              Horarios libres de {state.slots.facilityName} el {formatIsoDay(state.slots.date)}:
            </strong>{" "}
            {state.slots.free.length > 0 ? state.slots.free.map(range).join(", ") : "ninguno"}
          </p>
          {state.slots.busy.length > 0 ? (
            <p className="muted">
              Ocupado: {state.slots.busy.map((slot) => (slot.kind === "guest" ? `${range(slot)} (reservada por un huésped)` : range(slot))).join(", ")}
            </p>
          ) : null}
        </>
      ) : null}
      {state.status === "idle" ? <p className="muted">Elige la instalación y el día para ver sus horarios libres.</p> : null}
    </div>
  );
}

/** The limit of active bookings, as the form says it. */
function bookingLimitText(limits: Record<FacilityType, number>) {
  const counts = FACILITY_TYPES.map((type) => limits[type]);
  const bookings = (count: number) => (count === 1 ? "1 reserva" : `${count} reservas`);
  if (counts.every((count) => count === counts[0])) {
    return `Puedes tener como máximo ${bookings(counts[0]!)} sin terminar de cada tipo de instalación.`;
  }
  return `Reservas sin terminar que puedes tener, como máximo: ${FACILITY_TYPES.map((type) => `${FACILITY_TYPE_LABELS[type]}, ${limits[type]}`).join("; ")}.`;
}

function facilityLabel(facility: FacilityJson) {
  return facility.capacity ? `${facility.name} (${facility.capacity} personas)` : facility.name;
}

export function CancelBookingModal({ booking, lastResult }: { booking: BookingJson; lastResult?: SubmissionResult<string[]> }) {
  const errors = lastResult?.error?.[""] ?? null;
  return (
    <RouteModal title="Cancelar reserva" closeTo={CLOSE_TO}>
      <FormAlert title="No se pudo cancelar la reserva" errors={errors} />
      <p>¿Seguro que quieres cancelar esta reserva?</p>
      <p>
        <strong>{booking.facilityName}</strong>, {formatTimeRange(booking.startTime, booking.endTime)}.
      </p>
      <Form method="post" className="modal-actions" preventScrollReset>
        <input type="hidden" name="id" value={booking._id} />
        <SubmitButton intent="cancel-booking" label="Sí, cancelar reserva" busyLabel="Cancelando..." className="button button-danger" />
      </Form>
    </RouteModal>
  );
}

/** The modal's booking or incident is not the resident's (or no longer exists). */
export function NotFoundModal({ title, message }: { title: string; message: string }) {
  return (
    <RouteModal title={title} closeTo={CLOSE_TO}>
      <p>{message}</p>
    </RouteModal>
  );
}
