// Outgoing mail. With SMTP_URL set it goes to that server; without it each
// message is written as an .eml file under data/outbox/ and logged, so a
// fresh machine needs no mail server. Staff notices go to STAFF_EMAIL; with
// no staff address they are kept in the outbox whatever SMTP_URL says.
import fs from "node:fs/promises";
import nodemailer from "nodemailer";
import type { Attachment } from "nodemailer/lib/mailer";
import { dataPath } from "./data-dir.server";
import { getEnv } from "./env.server";
import { logValue } from "./log-value";

export type Mail = {
  to: string;
  subject: string;
  text: string;
  html: string;
  attachments?: Attachment[];
};

let smtpTransport: nodemailer.Transporter | undefined;
const outboxTransport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });

async function writeToOutbox(mail: Mail) {
  const info = await outboxTransport.sendMail({ from: getEnv().MAIL_FROM, ...mail });
  const dir = dataPath("outbox");
  await fs.mkdir(dir, { recursive: true });
  const file = `${dir}/${new Date().toISOString().replace(/[:.]/g, "-")}-${info.messageId.replace(/[^A-Za-z0-9]/g, "")}.eml`;
  await fs.writeFile(file, (info as unknown as { message: Buffer }).message);
  console.info(`[mail] ${logValue(mail.subject)} to ${logValue(mail.to)} written to ${file}`);
  return info;
}

export async function sendMail(mail: Mail) {
  const env = getEnv();
  if (!env.SMTP_URL) return writeToOutbox(mail);
  smtpTransport ??= nodemailer.createTransport(env.SMTP_URL);
  return smtpTransport.sendMail({ from: env.MAIL_FROM, ...mail });
}

async function attempt(what: string, send: () => Promise<unknown>) {
  try {
    await send();
    return true;
  } catch (error) {
    console.error(`[mail] could not ${what}`, error);
    return false;
  }
}

/** Mail must never undo what was stored: a failed send is logged and reported (false). */
export function trySendMail(mail: Mail) {
  return attempt(`send ${logValue(mail.subject)} to ${logValue(mail.to)}`, () => sendMail(mail));
}

/** A notice for the house's staff: to STAFF_EMAIL, or kept in the outbox when there is none. */
export function trySendStaffNotice(mail: Omit<Mail, "to">) {
  const { STAFF_EMAIL, MAIL_FROM } = getEnv();
  if (STAFF_EMAIL) return trySendMail({ ...mail, to: STAFF_EMAIL });
  return attempt(`keep staff notice ${logValue(mail.subject)} in the outbox`, () => writeToOutbox({ ...mail, to: MAIL_FROM }));
}

/** Drops the cached transport (tests point SMTP_URL at their own receiver). */
export function resetMailTransport() {
  smtpTransport = undefined;
}
