import { useFetcher } from "@remix-run/react";
import { CARD_STATUS_LABELS, SETTABLE_CARD_STATUSES } from "~/schemas/card";
import type { CardJson } from "~/services/cards.server";
import type { FormActionData } from "~/utils/form-reply.server";
import { InlineSelectForm } from "./inline-select-form";

/**
 * Every row's select submits through this one fetcher, so the page can show a
 * refusal even when the refused card's row is gone (e.g. deleted meanwhile).
 */
export const CARD_STATUS_FETCHER_KEY = "card-status";

export function useCardStatusFetcher() {
  return useFetcher<FormActionData>({ key: CARD_STATUS_FETCHER_KEY });
}

/**
 * The status select of a table row: Activa or Inactiva (a suspended card
 * shows its status, which cannot be chosen). Without JavaScript it has a
 * "Cambiar" button; with it, a change submits at once and a refusal puts
 * the stored status back (the page shows it as an error toast).
 */
export function CardStatusForm({ card }: { card: CardJson }) {
  const options = [
    ...(card.status === "suspended" ? [{ value: "suspended", label: CARD_STATUS_LABELS.suspended, disabled: true }] : []),
    ...SETTABLE_CARD_STATUSES.map((status) => ({ value: status, label: CARD_STATUS_LABELS[status] })),
  ];
  return (
    <InlineSelectForm
      fetcherKey={CARD_STATUS_FETCHER_KEY}
      intent="set-status"
      id={card._id}
      name="status"
      value={card.status}
      options={options}
      label={`Estado de la tarjeta ${card.cardNumber}`}
    />
  );
}
