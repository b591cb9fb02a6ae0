// The files of incident photos: under the data directory (never public/),
// each under a random name with its type's extension. Which incident a photo
// belongs to, and so who may see it, is in the incident's row
// (app/models/incident.server.ts).
import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { imageSize } from "image-size";
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

/** The stored photo files (names that could be photos only), with when each was last written. */
export async function listPhotoFiles(): Promise<{ name: string; modifiedAt: Date }[]> {
  let names: string[];
  try {
    names = (await fs.readdir(photoDirectory())).filter(isPhotoName);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const files = await Promise.all(
    names.map(async (name) => {
      const stat = await fs.stat(path.join(photoDirectory(), name)).catch(() => null);
      return stat ? { name, modifiedAt: stat.mtime } : null;
    }),
  );
  return files.filter((file) => file !== null);
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

const DECODED_TYPES: Record<string, PhotoType> = { jpg: "jpeg", png: "png", webp: "webp" };

/**
 * JPEG, PNG or WebP by the file's bytes, whatever its name says: its header
 * must decode (image-size walks a JPEG's segments to its frame header, reads a
 * PNG's IHDR chunk and a WebP's VP8/VP8L/VP8X chunk) to a width and height of
 * at least one pixel. A signature alone, a cut header or any other format is null.
 */
export function readPhotoHeader(bytes: Uint8Array): { type: PhotoType; width: number; height: number } | null {
  // image-size reads through DataViews on `bytes.buffer` that it does not
  // bound by `bytes.length`: a Buffer from Node's pool would let a cut header
  // be completed by whatever follows it there. A copy has a buffer of its own.
  const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
  try {
    const { type, width, height } = imageSize(own);
    const photoType = type ? DECODED_TYPES[type] : undefined;
    if (!photoType || !Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) return null;
    return { type: photoType, width, height };
  } catch {
    return null;
  }
}
