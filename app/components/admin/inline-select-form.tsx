import { useFetcher } from "@remix-run/react";
import { useEffect, useState } from "react";
import type { FormActionData } from "~/utils/form-reply.server";
import { STAY_ON_PAGE_FIELD } from "~/utils/page-url";
import { useHydrated } from "~/utils/use-hydrated";

/**
 * A select that saves one value of one row (e.g. a consultation's status).
 * Without JavaScript it is a small form with a "Cambiar" button; with it, a
 * change submits at once through the fetcher `fetcherKey` (one per screen, so
 * the page can show a refusal even when the row is gone) and is answered in
 * place; when the server refuses, the select goes back to the stored value.
 */
export function InlineSelectForm({
  fetcherKey,
  intent,
  id,
  name,
  value,
  options,
  label,
}: {
  fetcherKey: string;
  intent: string;
  id: string;
  name: string;
  value: string;
  /** A disabled option shows a stored value that cannot be chosen (e.g. a suspended card). */
  options: ReadonlyArray<{ value: string; label: string; disabled?: boolean }>;
  /** The select's accessible name, e.g. "Estado de la consulta de Ana". */
  label: string;
}) {
  const fetcher = useFetcher<FormActionData>({ key: fetcherKey });
  const hydrated = useHydrated();
  const [selected, setSelected] = useState(value);
  const refusal = fetcher.state === "idle" && fetcher.data?.result.status === "error" ? fetcher.data.result : undefined;

  useEffect(() => setSelected(value), [value]);
  useEffect(() => {
    if (refusal) setSelected(value);
    // Only a new refusal puts the stored value back.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [refusal]);

  return (
    <fetcher.Form method="post" className="card-status-form" preventScrollReset>
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="id" value={id} />
      {hydrated ? <input type="hidden" name={STAY_ON_PAGE_FIELD} value="1" /> : null}
      <select
        name={name}
        aria-label={label}
        value={selected}
        onChange={(event) => {
          setSelected(event.currentTarget.value);
          if (hydrated) fetcher.submit(event.currentTarget.form, { preventScrollReset: true });
        }}
      >
        {options.map((option) => (
          <option key={option.value} value={option.value} disabled={option.disabled}>
            {option.label}
          </option>
        ))}
      </select>
      {hydrated ? null : (
        <button type="submit" className="button button-secondary button-small">
          Cambiar
        </button>
      )}
    </fetcher.Form>
  );
}
