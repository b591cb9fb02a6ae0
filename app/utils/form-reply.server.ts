// What a page's form action answers when it does not redirect: the form's
// result (conform) for the fields, and for a refusal an error toast. A
// successful action redirects with a toast instead (Post/Redirect/Get), so
// every form works the same with and without JavaScript.
import type { SubmissionResult } from "@conform-to/react";
import { data } from "@remix-run/node";
import { STAY_ON_PAGE_FIELD } from "./page-url";
import { throwRefusal, type Refusal } from "./refusal.server";
import { MAX_BODY_BYTES, readBody } from "./request-body.server";
import { errorToast, type Toast } from "./toast";
import { dataWithToast, redirectWithToast } from "./toast.server";

const FORM_TYPES = ["application/x-www-form-urlencoded", "multipart/form-data"];

const INVALID_FORM = "El formulario enviado no es válido";

/**
 * The posted form. A body that is not a form (JSON, empty, broken
 * multipart) ends the action with a 400 instead of an error; one larger than
 * MAX_BODY_BYTES (a form's text, multipart or not) with a 413, read no
 * further and never echoed. Forms with photos use readPhotoForm.
 */
export async function readForm(request: Request): Promise<FormData> {
  const contentType = request.headers.get("content-type") ?? "";
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  if (!FORM_TYPES.includes(type)) throwRefusal({ status: 415, message: "El formulario debe enviarse como formulario" });
  const body = await readBody(request, MAX_BODY_BYTES);
  if (body === null) throwRefusal({ status: 400, message: INVALID_FORM });
  try {
    return await new Response(body, { headers: { "Content-Type": contentType } }).formData();
  } catch {
    throwRefusal({ status: 400, message: INVALID_FORM });
  }
}

type ReplyOptions = { formErrors?: string[]; fieldErrors?: Record<string, string[]>; hideFields?: string[] };
export type Submission = { reply(options?: ReplyOptions): SubmissionResult<string[]> };

/** The action data of a page whose forms are told apart by their `intent`. */
export type FormActionData = { intent: string; result: SubmissionResult<string[]> };

/** A submission the schema refused (conform's `parseWithZod` when its status is not "success"). */
export type RefusedSubmission = Submission & { status?: "error"; error?: Record<string, string[] | null> | null };

/** The first of a refused submission's messages (a toast's description, or a refusal's message). */
export function firstMessage(submission: RefusedSubmission): string | undefined {
  return Object.values(submission.error ?? {})
    .flatMap((messages) => messages ?? [])
    .find(Boolean);
}

type RefusedFormOptions = {
  /** Which of the page's forms this answers. */
  intent?: string;
  /** With a Refusal: the form's submission, so what was typed comes back. */
  submission?: Submission;
  /** The error toast's title (a Refusal's toast is titled 'Error' when not given). */
  toastTitle?: string;
  /** Another toast instead of the error toast (e.g. SPEC's 'Campos requeridos' warning). */
  toast?: Toast;
  /** Fields not sent back (a password). */
  hideFields?: string[];
};

/**
 * The one answer of a form that did not go through (the page stays, nothing
 * changed). `reason` is either
 * - a Refusal (a service's, or the page's own, made with `refuse`): its status,
 *   its message on its field (or the form), what was typed kept, and an error
 *   toast titled `toastTitle` saying the message; or
 * - the submission the schema refused: 400, the schema's messages beside their
 *   fields, what was typed kept; a toast only when asked for (`toastTitle`:
 *   an error toast saying the first message, or `toast`).
 * Either way `hideFields` (a password) are not sent back.
 */
export async function refusedForm(reason: Refusal | RefusedSubmission, { intent = "", submission, toastTitle, toast, hideFields }: RefusedFormOptions = {}) {
  if (!("ok" in reason)) {
    const payload: FormActionData = { intent, result: reason.reply({ hideFields }) };
    const shown = toast ?? (toastTitle ? errorToast(toastTitle, firstMessage(reason)) : null);
    return shown ? dataWithToast(payload, shown, { status: 400 }) : data(payload, { status: 400 });
  }
  const refusal = reason;
  const errors = refusal.field ? { fieldErrors: { [refusal.field]: [refusal.message] } } : { formErrors: [refusal.message] };
  const result: SubmissionResult<string[]> = submission
    ? submission.reply({ ...errors, hideFields })
    : { status: "error", error: { [refusal.field ?? ""]: [refusal.message] } };
  const headers = refusal.retryAfterSeconds ? { "Retry-After": String(refusal.retryAfterSeconds) } : undefined;
  return dataWithToast<FormActionData>({ intent, result }, toast ?? errorToast(toastTitle ?? "Error", refusal.message), {
    status: refusal.status,
    headers,
  });
}

/**
 * A form that succeeded: a redirect to `url` with the toast (Post/Redirect/Get),
 * or, for a fetcher that asked to stay (STAY_ON_PAGE_FIELD), the toast with a
 * success result; the page's loaders revalidate after it either way.
 */
export async function formDone(formData: FormData, intent: string, url: string, toast: Toast) {
  if (formData.get(STAY_ON_PAGE_FIELD) === "1") return dataWithToast<FormActionData>({ intent, result: { status: "success" } }, toast);
  return redirectWithToast(url, toast);
}
