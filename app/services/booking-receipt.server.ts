// What the booking page shows after its redirect (a one-shot signed cookie).
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
