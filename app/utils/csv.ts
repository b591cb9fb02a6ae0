// CSV text for the downloads (the access log's and the audit trail's exports).

// A text a spreadsheet would run as a formula starts with one of these.
const FORMULA_STARTS = new Set(["=", "+", "-", "@", "\t", "\r"]);

/** RFC 4180 cell, always quoted; a would-be formula gets a leading apostrophe. */
export function csvCell(value: string) {
  const safe = FORMULA_STARTS.has(value.charAt(0)) ? `'${value}` : value;
  return `"${safe.includes('"') ? safe.replaceAll('"', '""') : safe}"`;
}

export function csvLine(values: string[]) {
  return `${values.map(csvCell).join(",")}\r\n`;
}
