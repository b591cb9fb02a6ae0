// The JSON API's conventions: `{success: true, data}` or (thrown refusals)
// `{success: false, error: {message}}`, zod-parsed bodies and queries.
// The schemas are zod/mini's (app/schemas) or classic zod's (server-only
// parsing): both are zod/v4/core schemas, parsed with core's safeParse.
import { safeParse, type $ZodError, type $ZodObject, type $ZodType, type output } from "zod/v4/core";
import { refusalResponse, throwRefusal, type Refusal } from "./refusal.server";
import { MAX_BODY_BYTES, readBody } from "./request-body.server";

export function apiSuccess<T>(data: T, status = 200, headers?: HeadersInit) {
  return Response.json({ success: true, data }, { status, headers });
}

/** A success that also says what was done (SPEC §7 Users reads `message`). */
export function apiSuccessWithMessage<T>(message: string, data: T, status = 200) {
  return Response.json({ success: true, message, data }, { status });
}

/** Ends the call with the service's refusal. */
export function refuseApi(refusal: Refusal): never {
  throw refusalResponse(refusal);
}

const INVALID_JSON = "El cuerpo de la solicitud debe ser JSON válido";

/** The body's text, at most MAX_BODY_BYTES (more answers 413 and is read no further). */
async function readBodyText(request: Request) {
  const body = await readBody(request, MAX_BODY_BYTES);
  if (body === null) throwRefusal({ status: 400, message: INVALID_JSON });
  return new TextDecoder().decode(body);
}

function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throwRefusal({ status: 400, message: INVALID_JSON });
  }
}

export async function readJsonBody(request: Request): Promise<unknown> {
  return parseJsonText(await readBodyText(request));
}

/** A body some calls may leave out (e.g. approving a card without a door): {} when empty. */
export async function readOptionalJsonBody(request: Request): Promise<unknown> {
  const text = await readBodyText(request);
  return text.trim() === "" ? {} : parseJsonText(text);
}

/** Parses a JSON body; bad input answers 400 with the schema's Spanish messages. */
export async function parseJsonBody<S extends $ZodType>(request: Request, schema: S): Promise<output<S>> {
  return parseOrFail(schema, await readJsonBody(request));
}

export function parseOrFail<S extends $ZodType>(schema: S, value: unknown): output<S> {
  const result = safeParse(schema, value);
  if (!result.success) throwRefusal({ status: 400, message: zodErrorMessage(result.error) });
  return result.data;
}

/** A query string as an object, without empty values (an empty field means "not given"). */
export function queryObject(params: URLSearchParams) {
  return Object.fromEntries([...params].filter(([, value]) => value.trim() !== ""));
}

/**
 * A screen's filters from its query: each value the schema accepts. A value
 * nobody could have picked drops only itself: that filter falls back to its
 * default (or to none), the others stay. (The JSON API answers a bad value
 * with a 400 instead: `parseQuery`.) Every field of a filters schema is
 * optional or has a default.
 */
export function filtersFromQuery<S extends $ZodObject>(schema: S, params: URLSearchParams): output<S> {
  const query = queryObject(params);
  const accepted: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(schema._zod.def.shape)) {
    if (Object.hasOwn(query, key) && safeParse(field, query[key]).success) accepted[key] = query[key];
  }
  return parseOrFail(schema, accepted);
}

/** The request's query parsed by the schema; bad values answer 400. */
export function parseQuery<S extends $ZodType>(request: Request, schema: S): output<S> {
  return parseOrFail(schema, queryObject(new URL(request.url).searchParams));
}

/** The schema's distinct Spanish messages, joined with commas. */
export function zodErrorMessage(error: $ZodError) {
  return [...new Set(error.issues.map((issue) => issue.message))].join(", ");
}

export function methodNotAllowed(): never {
  throwRefusal({ status: 405, message: "Método no permitido" });
}
