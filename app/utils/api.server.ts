// The JSON API's conventions: `{success: true, data}` or
// `{success: false, error: {message}}`, and zod-parsed bodies.
import type { z } from "zod";
import { apiError } from "./auth.server";

export function apiSuccess<T>(data: T, status = 200, headers?: HeadersInit) {
  return Response.json({ success: true, data }, { status, headers });
}

export async function readJsonBody(request: Request): Promise<unknown> {
  try {
    return await request.json();
  } catch {
    apiError(400, "El cuerpo de la solicitud debe ser JSON válido");
  }
}

/** Parses a JSON body; bad input answers 400 with the schema's Spanish messages. */
export async function parseJsonBody<S extends z.ZodType>(request: Request, schema: S): Promise<z.infer<S>> {
  return parseOrFail(schema, await readJsonBody(request));
}

export function parseOrFail<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) apiError(400, zodErrorMessage(result.error));
  return result.data;
}

/** The schema's distinct Spanish messages, joined with commas. */
export function zodErrorMessage(error: z.ZodError) {
  return [...new Set(error.issues.map((issue) => issue.message))].join(", ");
}

export function methodNotAllowed(): never {
  apiError(405, "Método no permitido");
}
