// /reservar: the booking receipt the page shows after its redirect, kept in a
// one-shot signed cookie of its own (the success modal's code, name and dates).
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
