// A minimal iCalendar (RFC 5545) all-day event for a stay. The booking mail
// publishes it (SEQUENCE 0); a cancellation sends the same UID with
// METHOD:CANCEL and a higher SEQUENCE, so calendar clients remove the stay.
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
  method = "PUBLISH",
  now = new Date(),
}: {
  uid: string;
  startDate: string;
  endDate: string;
  summary: string;
  description: string;
  location: string;
  method?: "PUBLISH" | "CANCEL";
  now?: Date;
}) {
  const cancelled = method === "CANCEL";
  const stamp = now.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
  return [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//La Casona Coliving//Reservas//ES",
    "CALSCALE:GREGORIAN",
    `METHOD:${method}`,
    "BEGIN:VEVENT",
    `UID:${uid}`,
    `SEQUENCE:${cancelled ? 1 : 0}`,
    `STATUS:${cancelled ? "CANCELLED" : "CONFIRMED"}`,
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
