// A minimal iCalendar (RFC 5545) all-day event for a stay, one UID per
// reservation through its life: the booking mail publishes it TENTATIVE
// (SEQUENCE 0: the house has not confirmed it yet), the house's confirmation
// publishes it CONFIRMED (SEQUENCE 1), and a cancellation sends METHOD:CANCEL
// (SEQUENCE 2), each higher than the last so calendar clients take the update.

/** Each state of the stay as the calendar says it; SEQUENCE grows with each. */
const STATES = {
  tentative: { method: "PUBLISH", status: "TENTATIVE", sequence: 0 },
  confirmed: { method: "PUBLISH", status: "CONFIRMED", sequence: 1 },
  cancelled: { method: "CANCEL", status: "CANCELLED", sequence: 2 },
} as const;
export type StayState = keyof typeof STATES;

export function calendarMethod(state: StayState) {
  return STATES[state].method;
}
function escapeText(value: string) {
  return value.replace(/\\/g, "\\\\").replace(/;/g, "\\;").replace(/,/g, "\\,").replace(/\r?\n/g, "\\n");
}

function foldLine(line: string) {
  const parts: string[] = [];
  let rest = line;
  while (rest.length > 74) {
    parts.push(rest.slice(0, 74));
    rest = ` ${rest.slice(74)}`;
  }
  parts.push(rest);
  return parts.join("\r\n");
}

export function allDayEvent({
  uid,
  startDate,
  endDate,
  summary,
  description,
  location,
  state,
  now = new Date(),
}: {
  uid: string;
  startDate: string;
  endDate: string;
  summary: string;
  description: string;
  location: string;
  state: StayState;
  now?: Date;
}) {
  const { method, status, sequence } = STATES[state];
  const stamp = now.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
  return [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//La Casona Coliving//Reservas//ES",
    "CALSCALE:GREGORIAN",
    `METHOD:${method}`,
    "BEGIN:VEVENT",
    `UID:${uid}`,
    `SEQUENCE:${sequence}`,
    `STATUS:${status}`,
    `DTSTAMP:${stamp}`,
    // All-day events: DTEND is the exclusive end day, i.e. the departure day.
    `DTSTART;VALUE=DATE:${startDate.replace(/-/g, "")}`,
    `DTEND;VALUE=DATE:${endDate.replace(/-/g, "")}`,
    `SUMMARY:${escapeText(summary)}`,
    `DESCRIPTION:${escapeText(description)}`,
    `LOCATION:${escapeText(location)}`,
    "END:VEVENT",
    "END:VCALENDAR",
    "",
  ]
    .map(foldLine)
    .join("\r\n");
}
