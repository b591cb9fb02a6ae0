import {
  getInputProps,
  getSelectProps,
  getTextareaProps,
  useForm,
  type DefaultValue,
  type FieldMetadata,
  type Submission,
  type SubmissionResult,
} from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import type { $ZodType, output } from "zod/v4/core";
import { useActionData, useLocation, useNavigation } from "@remix-run/react";
import { createContext, useContext, useId, useRef, type ReactNode } from "react";

// Field components accept any field of any form; conform types the values.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyField = FieldMetadata<any, any, string[]>;

/** Messages a form shows once, above its fields (see SharedFieldMessage). */
const MessagesShownAbove = createContext<readonly string[]>([]);

/** Select options from values and their Spanish labels. */
export function labelledOptions<V extends string>(values: readonly V[], labels: Record<V, string>) {
  return values.map((value) => ({ value, label: labels[value] }));
}

export function ErrorList({ id, errors }: { id?: string; errors?: string[] | null }) {
  const shownAbove = useContext(MessagesShownAbove);
  const own = errors?.filter((error) => !shownAbove.includes(error));
  if (!own?.length) return null;
  return (
    <div id={id}>
      {own.map((error) => (
        <p key={error} className="field-error">
          {error}
        </p>
      ))}
    </div>
  );
}

/** Errors of the whole form (server refusals, rate limits), announced. */
export function FormAlert({ title, errors, id }: { title?: string; errors?: string[] | null; id?: string }) {
  if (!errors?.length) return null;
  return (
    <div className="alert alert-error" role="alert" id={id}>
      {title ? <strong>{title}: </strong> : null}
      {errors.join(", ")}
    </div>
  );
}

type InputType = Exclude<Parameters<typeof getInputProps>[1]["type"], "checkbox" | "radio">;

export function InputField({
  label,
  meta,
  type = "text",
  hint,
  ...rest
}: {
  label: ReactNode;
  meta: AnyField;
  type?: InputType;
  hint?: ReactNode;
} & Omit<React.InputHTMLAttributes<HTMLInputElement>, "type">) {
  const hintId = useId();
  const { defaultValue, ...inputProps } = getInputProps(meta, { type, ariaDescribedBy: hint ? hintId : undefined });
  return (
    <div className="field">
      <label htmlFor={meta.id}>{label}</label>
      <input
        {...inputProps}
        // A controlled input (value given) must not also get a default value.
        defaultValue={rest.value === undefined ? defaultValue : undefined}
        {...rest}
        key={meta.key}
      />
      {hint ? (
        <small id={hintId} className="muted">
          {hint}
        </small>
      ) : null}
      <ErrorList id={meta.errorId} errors={meta.errors} />
    </div>
  );
}

export function SelectField({
  label,
  meta,
  options,
  placeholder,
  ...rest
}: {
  label: ReactNode;
  meta: AnyField;
  options: ReadonlyArray<{ value: string; label: string }>;
  placeholder?: string;
} & React.SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <div className="field">
      <label htmlFor={meta.id}>{label}</label>
      <select {...getSelectProps(meta)} {...rest} key={meta.key}>
        {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      <ErrorList id={meta.errorId} errors={meta.errors} />
    </div>
  );
}

export function TextareaField({
  label,
  meta,
  ...rest
}: { label: ReactNode; meta: AnyField } & React.TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return (
    <div className="field">
      <label htmlFor={meta.id}>{label}</label>
      <textarea {...getTextareaProps(meta)} {...rest} key={meta.key} />
      <ErrorList id={meta.errorId} errors={meta.errors} />
    </div>
  );
}

/** Hidden from people (and assistive tech); bots that fill every field fill this one. */
export function HoneypotField({ formId }: { formId: string }) {
  const id = `${formId}-website`;
  return (
    <div className="honeypot" aria-hidden="true">
      <label htmlFor={id}>No rellenes este campo</label>
      <input id={id} name="website" tabIndex={-1} autoComplete="off" />
    </div>
  );
}

/** A submit button carrying its `intent`; shows `busyLabel` while that intent is being sent. */
export function SubmitButton({ label, busyLabel, intent, className = "button" }: { label: string; busyLabel: string; intent: string; className?: string }) {
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === intent;
  return (
    <button type="submit" name="intent" value={intent} className={className} disabled={busy}>
      {busy ? busyLabel : label}
    </button>
  );
}

/**
 * The result of the form that was posted, for pages with several forms told
 * apart by `intent` (app/utils/form-reply.server.ts answers `{intent, result}`).
 */
export function resultFor(actionData: unknown, intent: string): SubmissionResult<string[]> | undefined {
  const value = actionData as { intent?: string; result?: SubmissionResult<string[]> } | undefined;
  return value?.intent === intent ? value.result : undefined;
}

/**
 * SPEC §5 gives some forms one message for every missing field ("Por favor
 * completa todos los campos"): it shows once, above the fields, when any field
 * has it (`errors` is conform's `form.allErrors`); the fields still say they
 * are invalid (aria-invalid) but leave the message out of their own lists.
 */
export function SharedFieldMessage({ message, errors, children }: { message: string; errors: Record<string, string[]>; children: ReactNode }) {
  const shown = Object.values(errors).some((list) => list.includes(message));
  return (
    <MessagesShownAbove.Provider value={[message]}>
      {shown ? (
        <div className="alert alert-error" role="alert">
          {message}
        </div>
      ) : null}
      {children}
    </MessagesShownAbove.Provider>
  );
}

/**
 * A key for a page's form: a fresh page (the first load, or the redirect
 * after a successful send) mounts an empty form; a refused submission keeps
 * the form mounted, so what was typed stays while the server's answer (its
 * errors, a new anti-spam question) comes in.
 */
export function useFreshFormKey() {
  const location = useLocation();
  const actionData = useActionData();
  const key = useRef(location.key);
  if (actionData === undefined) key.current = location.key;
  return key.current;
}

/**
 * Every form's conform setup: checked in the browser by the same zod schema
 * the server uses, first when it is submitted, then as each field is
 * corrected; the server's answer (`lastResult`) shows the same way.
 * `onValidated` sees each check's result (e.g. to toast a refused submit).
 */
export function useSchemaForm<Schema extends $ZodType<Record<string, unknown>>>(
  schema: Schema,
  {
    id,
    lastResult,
    defaultValue,
    onValidated = (submission) => submission,
  }: {
    id?: string;
    lastResult?: SubmissionResult<string[]> | null;
    defaultValue?: DefaultValue<output<Schema>>;
    onValidated?: (submission: Submission<output<Schema>>) => Submission<output<Schema>>;
  },
) {
  return useForm<output<Schema>>({
    id,
    lastResult,
    defaultValue,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => onValidated(parseWithZod(formData, { schema }) as Submission<output<Schema>>),
  });
}
