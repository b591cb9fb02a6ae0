// Outgoing mail. With SMTP_URL set it goes to that server; without it each
// message is written as an .eml file under data/outbox/ and logged, so a
// fresh machine needs no mail server.
import fs from "node:fs/promises";
import nodemailer from "nodemailer";
import type { Attachment } from "nodemailer/lib/mailer";
import { dataPath } from "./data-dir.server";
import { getEnv } from "./env.server";

export type Mail = {
  to: string;
  subject: string;
  text: string;
  html: string;
  attachments?: Attachment[];
};

let transport: nodemailer.Transporter | undefined;

function getTransport() {
  const { SMTP_URL } = getEnv();
  transport ??= SMTP_URL
    ? nodemailer.createTransport(SMTP_URL)
    : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  return transport;
}

export async function sendMail(mail: Mail) {
  const env = getEnv();
  const info = await getTransport().sendMail({ from: env.MAIL_FROM, ...mail });
  if (!env.SMTP_URL) {
    const dir = dataPath("outbox");
    await fs.mkdir(dir, { recursive: true });
    const file = `${dir}/${new Date().toISOString().replace(/[:.]/g, "-")}-${info.messageId.replace(/[^A-Za-z0-9]/g, "")}.eml`;
    await fs.writeFile(file, (info as unknown as { message: Buffer }).message);
    console.info(`[mail] "${mail.subject}" to ${mail.to} written to ${file}`);
  }
  return info;
}

/** Mail must never undo what was stored: a failed send is logged and reported (false). */
export async function trySendMail(mail: Mail) {
  try {
    await sendMail(mail);
    return true;
  } catch (error) {
    console.error(`[mail] could not send "${mail.subject}" to ${mail.to}`, error);
    return false;
  }
}

/** Drops the cached transport (tests point SMTP_URL at their own receiver). */
export function resetMailTransport() {
  transport = undefined;
}
