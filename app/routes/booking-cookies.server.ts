// The guests' booking pages' shared controller: the booking receipt /reservar
// shows after its redirect, kept in a one-shot signed cookie of its own (the
// success modal's code, name and dates), and the last booking's code and
// email, which /reserva-consulta fills in for the browser that booked (never
// in a URL).
import { createFlashCookie } from "~/utils/flash-cookie.server";

export type BookingReceipt = {
  reservationCode: string;
  guestName: string;
  type: string;
  startDate: string;
  endDate: string;
  emailSent: boolean;
  /** Issue 40: how long the booking holds its place, or that it awaits the guest's email first. */
  holdNote?: string | null;
};

export const bookingReceiptCookie = createFlashCookie<BookingReceipt>("booking_receipt");

export type LastBooking = { reservationCode: string; guestEmail: string };

export const lastBookingCookie = createFlashCookie<LastBooking>("last_booking", { maxAgeS: 24 * 3600 });
