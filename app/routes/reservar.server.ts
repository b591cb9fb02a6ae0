// /reservar's own controller: what is free for the stay the form describes,
// which the page shows beside a refused or checked form (without JavaScript
// too). The booking cookies it shares with /reserva-consulta are in
// booking-cookies.server.ts.
import { data } from "@remix-run/node";
import { safeParse } from "zod/v4/core";
import { createAvailabilitySchema, type Availability } from "~/schemas/availability";
import { checkAvailability } from "~/services/availability.server";

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
