// One shape for "no": services answer a Refusal (status + Spanish message)
// instead of throwing or returning nulls. A page shows it as a form or field
// error with an error toast (app/utils/form-reply.server.ts); the JSON API
// answers it as `{success: false, error: {message}}` with its status.

export type RefusalStatus = 400 | 401 | 403 | 404 | 405 | 406 | 409 | 413 | 415 | 422 | 429;

export type Refusal = {
  ok: false;
  status: RefusalStatus;
  message: string;
  /** The form field the refusal is about, when there is one. */
  field?: string;
  /** 429 only: when the client may try again. */
  retryAfterSeconds?: number;
};

/** What a service answers: its result with ok: true, or a refusal. */
export type Result<T extends object = object> = ({ ok: true } & T) | Refusal;

export function refuse(status: RefusalStatus, message: string, extra: Pick<Refusal, "field" | "retryAfterSeconds"> = {}): Refusal {
  return { ok: false, status, message, ...extra };
}

/** The JSON API's error response (also what a page's ErrorBoundary receives when thrown). */
export function refusalResponse({ status, message, retryAfterSeconds }: Pick<Refusal, "status" | "message" | "retryAfterSeconds">) {
  const headers = retryAfterSeconds ? { "Retry-After": String(retryAfterSeconds) } : undefined;
  return Response.json({ success: false, error: { message } }, { status, headers });
}

/** Ends a loader or action with the refusal (the API's JSON error; a page's error boundary). */
export function throwRefusal(refusal: Pick<Refusal, "status" | "message" | "retryAfterSeconds">): never {
  throw refusalResponse(refusal);
}
