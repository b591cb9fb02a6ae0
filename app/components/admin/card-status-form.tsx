import { useFetcher } from "@remix-run/react";
import { useEffect, useState } from "react";
import { CARD_STATUS_LABELS, SETTABLE_CARD_STATUSES } from "~/schemas/card";
import type { CardJson } from "~/services/cards.server";
import type { FormActionData } from "~/utils/form-reply.server";
import { useHydrated } from "~/utils/use-hydrated";

/**
 * Every row's select submits through this one fetcher, so the page can show a
 * refusal even when the refused card's row is gone (e.g. deleted meanwhile).
 */
export const CARD_STATUS_FETCHER_KEY = "card-status";

export function useCardStatusFetcher() {
  return useFetcher<FormActionData>({ key: CARD_STATUS_FETCHER_KEY });
}

/**
 * The status select of a table row. Without JavaScript it is a small form with
 * a "Cambiar" button; with it, a change submits at once, and when the server
 * refuses, the select goes back to the stored status (the page shows the
 * refusal as an error toast).
 */
export function CardStatusForm({ card }: { card: CardJson }) {
  const fetcher = useCardStatusFetcher();
  const hydrated = useHydrated();
  const [selected, setSelected] = useState<string>(card.status);
  const refusal = fetcher.state === "idle" && fetcher.data?.result.status === "error" ? fetcher.data.result : undefined;

  useEffect(() => setSelected(card.status), [card.status]);
  useEffect(() => {
    if (refusal) setSelected(card.status);
    // Only a new refusal puts the stored status back.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [refusal]);

  return (
    <fetcher.Form method="post" className="card-status-form" preventScrollReset>
      <input type="hidden" name="intent" value="set-status" />
      <input type="hidden" name="id" value={card._id} />
      <select
        name="status"
        aria-label={`Estado de la tarjeta ${card.cardNumber}`}
        value={selected}
        onChange={(event) => {
          setSelected(event.currentTarget.value);
          if (hydrated) fetcher.submit(event.currentTarget.form, { preventScrollReset: true });
        }}
      >
        {card.status === "suspended" ? (
          <option value="suspended" disabled>
            {CARD_STATUS_LABELS.suspended}
          </option>
        ) : null}
        {SETTABLE_CARD_STATUSES.map((status) => (
          <option key={status} value={status}>
            {CARD_STATUS_LABELS[status]}
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
