// Reads a multipart form with photos (the incident report, from the page or
// the JSON API) without ever holding more than the limits allow: each photo
// is read up to 5 MB and at most 5 are kept; anything beyond is drained and
// reported as a Spanish refusal, so the other fields still arrive (a form
// sent without JavaScript keeps what was typed). The bytes' type is checked
// by the service.
import {
  MaxPartSizeExceededError,
  unstable_composeUploadHandlers as composeUploadHandlers,
  unstable_createMemoryUploadHandler as createMemoryUploadHandler,
  unstable_parseMultipartFormData as parseMultipartFormData,
  type UploadHandler,
} from "@remix-run/node";
import { MAX_INCIDENT_PHOTOS, MAX_PHOTO_BYTES, PHOTO_MESSAGES } from "~/schemas/resident-incident";
import { refuse, type Refusal } from "./refusal.server";
import { BODY_TOO_LARGE, BodyTooLargeError, dropUnreadBody, isMultipartType, limitedBody, MAX_UPLOAD_BODY_BYTES } from "./request-body.server";

/** A photo as it arrived: its name as the sender gave it, and its bytes. */
export type UploadedPhoto = { filename: string; bytes: Uint8Array };

const MAX_TEXT_PART_BYTES = 64 * 1024;

/**
 * `problem`: a photo that breaks a rule (its `field` is the file input; the
 * other fields were read), or a body too large to read (no `field`, no fields).
 */
export type PhotoForm = { formData: FormData; photos: UploadedPhoto[]; problem: Refusal | null };

export function isMultipart(request: Request) {
  return isMultipartType(request.headers.get("content-type"));
}

/** The form's fields, the photos of its `field` file input, and the first rule they broke (if any). */
export async function readPhotoForm(request: Request, field = "photos"): Promise<PhotoForm> {
  const tooLarge = async (): Promise<PhotoForm> => {
    await dropUnreadBody();
    return { formData: new FormData(), photos: [], problem: refuse(413, BODY_TOO_LARGE) };
  };
  if (Number(request.headers.get("content-length") ?? 0) > MAX_UPLOAD_BODY_BYTES) return tooLarge();
  // The whole body is capped too, as it streams in; text parts are kept up to 64 KB each.
  const body = limitedBody(request, MAX_UPLOAD_BODY_BYTES);

  const photos: UploadedPhoto[] = [];
  let problem: Refusal | null = null;
  const photoHandler: UploadHandler = async ({ name, filename, data }) => {
    if (name !== field || filename === undefined) return undefined;
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of data) {
      size += chunk.byteLength;
      if (size <= MAX_PHOTO_BYTES) chunks.push(chunk);
    }
    // An empty file input still sends a part, without a name or bytes.
    if (!filename && size === 0) return "";
    if (photos.length >= MAX_INCIDENT_PHOTOS) problem ??= refuse(413, PHOTO_MESSAGES.tooMany, { field });
    else if (size > MAX_PHOTO_BYTES) problem ??= refuse(413, `${filename}: ${PHOTO_MESSAGES.tooLarge}`, { field });
    else photos.push({ filename, bytes: Buffer.concat(chunks) });
    return "";
  };
  try {
    const limited = new Request(request.url, { method: request.method, headers: request.headers, body, duplex: "half" } as RequestInit);
    const formData = await parseMultipartFormData(
      limited,
      composeUploadHandlers(photoHandler, createMemoryUploadHandler({ maxPartSize: MAX_TEXT_PART_BYTES })),
    );
    formData.delete(field);
    return { formData, photos, problem };
  } catch (error) {
    if (error instanceof MaxPartSizeExceededError || error instanceof BodyTooLargeError) return tooLarge();
    // Anything else the parser throws is a body that is not multipart as it claims.
    return { formData: new FormData(), photos: [], problem: refuse(400, "El formulario enviado no es válido") };
  }
}
