// A small MIME reader for the messages nodemailer writes (received over SMTP
// or kept in the outbox).
function decodeQuotedPrintable(text: string) {
  const bytes = text.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => `%${hex}`);
  return decodeURIComponent(bytes.replace(/%(?![0-9A-F]{2})/g, "%25"));
}

/** The decoded body of the first MIME part whose headers match `contentType`. */
export function mimePart(raw: string, contentType: string) {
  const parts = raw.split(/\r?\n--[^\r\n]+\r?\n/);
  for (const part of parts) {
    const [head = "", ...rest] = part.split(/\r?\n\r?\n/);
    if (!head.toLowerCase().includes(`content-type: ${contentType.toLowerCase()}`)) continue;
    const body = rest.join("\n\n").replace(/\r?\n--[^\r\n]*--\s*$/, "");
    if (/content-transfer-encoding: base64/i.test(head)) return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
    if (/content-transfer-encoding: quoted-printable/i.test(head)) return decodeQuotedPrintable(body);
    return body;
  }
  return null;
}

export function mailSubject(raw: string) {
  return /^Subject: (.*)$/m.exec(raw)?.[1] ?? null;
}
