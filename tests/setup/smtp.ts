// A real SMTP receiver for tests (the smtp-server package), plus a small
// MIME reader for the messages nodemailer writes.
import { SMTPServer } from "smtp-server";
import type { AddressInfo } from "node:net";

export type ReceivedMail = { to: string[]; raw: string };

export async function startSmtpReceiver() {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        messages.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString("utf8") });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

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
