// Spanish transactional mail: every message has a plain-text and an HTML part.
import { getEnv } from "~/utils/env.server";

export function escapeHtml(value: string) {
  return value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** Builds both parts from paragraphs and label/value rows. */
export function composeMail({
  greeting,
  paragraphs,
  rows = [],
  link,
  image,
}: {
  greeting: string;
  paragraphs: string[];
  rows?: Array<[string, string]>;
  link?: { label: string; url: string };
  /** An image attached inline (`cid`), shown after the rows in the HTML part. */
  image?: { cid: string; alt: string; size: number };
}) {
  const { BUILDING_NAME } = getEnv();
  const text = [
    greeting,
    "",
    ...paragraphs.flatMap((p) => [p, ""]),
    ...rows.map(([label, value]) => `${label}: ${value}`),
    ...(link ? ["", `${link.label}: ${link.url}`] : []),
    "",
    `Un saludo,`,
    BUILDING_NAME,
  ].join("\n");
  const html = `<!doctype html><html lang="es"><body style="font-family:system-ui,sans-serif;color:#1f2328">
<p>${escapeHtml(greeting)}</p>
${paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join("\n")}
${rows.length ? `<table cellpadding="4">${rows.map(([l, v]) => `<tr><th align="left">${escapeHtml(l)}</th><td>${escapeHtml(v)}</td></tr>`).join("")}</table>` : ""}
${image ? `<p><img src="cid:${escapeHtml(image.cid)}" alt="${escapeHtml(image.alt)}" width="${image.size}" height="${image.size}"></p>` : ""}
${link ? `<p><a href="${escapeHtml(link.url)}">${escapeHtml(link.label)}</a></p>` : ""}
<p>Un saludo,<br>${escapeHtml(BUILDING_NAME)}</p>
</body></html>`;
  return { text, html };
}
