// /reservar: the booking receipt the page shows after its redirect, kept in a
// one-shot signed cookie of its own (the success modal's code, name and dates),
// and the last booking's code and email, which /reserva-consulta fills in for
// the browser that booked (never in a URL). And what is free for the stay the
// form describes, which the page shows beside a refused or checked form.
import { data } from "@remix-run/node";
import { safeParse } from "zod/v4/core";
import { createAvailabilitySchema, type Availability } from "~/schemas/availability";
import { checkAvailability } from "~/services/availability.server";
import { createFlashCookie } from "~/utils/flash-cookie.server";

export type BookingReceipt = {
  reservationCode: string;
  guestName: string;
  type: string;
  startDate: string;
  endDate: string;
  emailSent: boolean;
};

export const bookingReceiptCookie = createFlashCookie<BookingReceipt>("booking_receipt");

export type LastBooking = { reservationCode: string; guestEmail: string };

export const lastBookingCookie = createFlashCookie<LastBooking>("last_booking", { maxAgeS: 24 * 3600 });

/**
 * What is free for the stay a posted booking form describes, when its days
 * and type are readable (null otherwise); limited like GET /api/availability.
 */
export async function availabilityOfForm(formData: FormData, { ip, today }: { ip: string; today: string }): Promise<Availability | null> {
  const parsed = safeParse(createAvailabilitySchema({ today }), Object.fromEntries(formData));
  if (!parsed.success) return null;
  const checked = await checkAvailability(parsed.data, { ip });
  return checked.ok ? checked.availability : null;
}

/** A form's answer with what is free for its stay beside it, so the page says it without JavaScript too. */
export async function withAvailability<T extends object>(answer: Promise<{ data: T; init: ResponseInit | null }>, availability: Availability | null) {
  const { data: payload, init } = await answer;
  return data({ ...payload, availability }, init ?? undefined);
}
