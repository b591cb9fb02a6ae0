// Calls a route module's loader or action the way Remix does, with a real
// Request, inside a request context as the server gives every request (the
// guards note the caller on it for the audit trail), and always hands back
// the Response (returned or thrown).
import { PEER_IP_HEADER, withRequestContext } from "~/utils/request-context.server";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type RouteFunction = (args: any) => unknown;

export async function callRoute(fn: RouteFunction, request: Request, params: Record<string, string> = {}) {
  try {
    const context = { rendersDocument: false, toasts: [], forwardedProto: null };
    const result = await withRequestContext(context, () => fn({ request, params, context: {} }));
    if (result instanceof Response) return result;
    if (isDataWithInit(result)) return Response.json(result.data, result.init ?? undefined);
    return Response.json(result);
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}

/** What `data(value, init)` from @remix-run/node returns. */
function isDataWithInit(value: unknown): value is { data: unknown; init: ResponseInit | null } {
  return typeof value === "object" && value !== null && (value as { type?: string }).type === "DataWithResponseInit";
}

let ipCounter = 0;
/** A distinct client address per call unless one is given. */
export function jsonRequest(
  path: string,
  {
    method = "GET",
    body,
    rawBody,
    ip,
    headers = {},
  }: { method?: string; body?: unknown; rawBody?: string; ip?: string; headers?: Record<string, string> } = {},
) {
  return new Request(`http://localhost${path}`, {
    method,
    headers: {
      "Content-Type": "application/json",
      [PEER_IP_HEADER]: ip ?? `192.0.2.${++ipCounter % 250}-${ipCounter}`,
      ...headers,
    },
    body: rawBody ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
}

export type ApiCall = { method?: string; body?: unknown; token?: string | null; params?: Record<string, string>; headers?: Record<string, string> };

/** A route module's loader or action, whatever its arguments' type. */
export type ApiRoute = (args: never) => unknown;

/** Calls an API route function as a client with a bearer `token` (none when null or absent); answers its status and JSON body. */
export async function callApi(fn: ApiRoute, path: string, { method = "GET", body, token = null, params = {}, headers = {} }: ApiCall = {}) {
  const auth: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  const response = await callRoute(fn as RouteFunction, jsonRequest(path, { method, body, headers: { ...auth, ...headers } }), params);
  return { status: response.status, body: await response.json() };
}

/** A page's GET as a signed-in browser sends it (the cookie from fixtures' sessionCookie). */
export function pageRequest(path: string, cookie: string) {
  return new Request(`http://localhost${path}`, { headers: { Cookie: cookie } });
}

/** A page's form POST as a signed-in browser sends it from our own origin. */
export function formPost(path: string, cookie: string, fields: Record<string, string>) {
  return new Request(`http://localhost${path}`, {
    method: "POST",
    headers: { Cookie: cookie, Origin: "http://localhost", "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
  });
}
