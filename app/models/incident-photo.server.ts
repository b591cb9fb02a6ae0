// The files of incident photos: under the data directory (never public/),
// each under a random name with its type's extension. Which incident a photo
// belongs to, and so who may see it, is in the incident's row
// (app/models/incident.server.ts).
import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { dataPath } from "~/utils/data-dir.server";

export const PHOTO_TYPES = {
  jpeg: { extension: "jpg", contentType: "image/jpeg" },
  png: { extension: "png", contentType: "image/png" },
  webp: { extension: "webp", contentType: "image/webp" },
} as const;
export type PhotoType = keyof typeof PHOTO_TYPES;

/** Stored names: 32 hex characters and a known extension; nothing else is ever read. */
const PHOTO_NAME = /^[0-9a-f]{32}\.(jpg|png|webp)$/;

function photoDirectory() {
  return dataPath("uploads", "incidents");
}

/** Writes the photos; answers their names. If one fails, those already written are removed. */
export async function savePhotoFiles(photos: { bytes: Uint8Array; type: PhotoType }[]) {
  const directory = photoDirectory();
  await fs.mkdir(directory, { recursive: true });
  const names: string[] = [];
  try {
    for (const photo of photos) {
      const name = `${crypto.randomBytes(16).toString("hex")}.${PHOTO_TYPES[photo.type].extension}`;
      await fs.writeFile(path.join(directory, name), photo.bytes, { flag: "wx", mode: 0o600 });
      names.push(name);
    }
  } catch (error) {
    await deletePhotoFiles(names);
    throw error;
  }
  return names;
}

export async function deletePhotoFiles(names: string[]) {
  await Promise.all(names.filter(isPhotoName).map((name) => fs.rm(path.join(photoDirectory(), name), { force: true })));
}

export function isPhotoName(name: string) {
  return PHOTO_NAME.test(name);
}

/** The photo's bytes and content type, or null when there is no such file. */
export async function readPhotoFile(name: string): Promise<{ bytes: Buffer; contentType: string } | null> {
  if (!isPhotoName(name)) return null;
  const extension = name.slice(name.lastIndexOf(".") + 1);
  const type = Object.values(PHOTO_TYPES).find((candidate) => candidate.extension === extension)!;
  try {
    return { bytes: await fs.readFile(path.join(photoDirectory(), name)), contentType: type.contentType };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** JPEG, PNG or WebP by the file's first bytes (its signature), whatever its name says; null otherwise. */
export function detectPhotoType(bytes: Uint8Array): PhotoType | null {
  const starts = (signature: number[], offset = 0) => signature.every((byte, i) => bytes[offset + i] === byte);
  if (bytes.length >= 3 && starts([0xff, 0xd8, 0xff])) return "jpeg";
  if (bytes.length >= 8 && starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "png";
  // "RIFF" <size> "WEBP"
  if (bytes.length >= 12 && starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return "webp";
  return null;
}
