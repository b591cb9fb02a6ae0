import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useLocation } from "@remix-run/react";
import { CardAlias, CardExpiryBadge, CardNumber, CardStatusBadge, cardExpiry, holderLabel } from "~/components/admin/card-badges";
import { ApproveCardModal, CardDetailModal, CardNotFoundModal, DeleteCardModal } from "~/components/admin/card-modals";
import { CardStatusForm } from "~/components/admin/card-status-form";
import { Pagination } from "~/components/admin/pagination";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { FormAlert, resultFor } from "~/components/forms";
import { ANONYMOUS_FILTER_LABELS, ANONYMOUS_FILTERS, type CardFilters, type CardSortKey } from "~/schemas/card";
import type { CardJson } from "~/services/cards.server";
import { requireAdmin } from "~/utils/auth.server";
import { formatDateTime } from "~/utils/dates";
import type { FormActionData } from "~/utils/form-reply.server";
import { withSearchParams } from "~/utils/page-url";
import { cardsAction, loadCardsPage } from "./admin.cards.server";
import { pageMeta } from "~/utils/meta";

export const meta = pageMeta("Gestionar Tarjetas");

// Rendered once per distinct data (ADR 0008): loaders and guards still run on every request.

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return loadCardsPage(request);
}

export async function action({ request }: ActionFunctionArgs) {
  await requireAdmin(request);
  return cardsAction(request);
}

const COLUMNS: Array<{ label: string; sortBy?: CardSortKey }> = [
  { label: "Número", sortBy: "cardNumber" },
  { label: "Alias", sortBy: "alias" },
  { label: "Titular" },
  { label: "Estado", sortBy: "status" },
  { label: "Último uso", sortBy: "lastUsed" },
  { label: "Intentos", sortBy: "totalAccessAttempts" },
  { label: "Exitosos", sortBy: "successfulAccesses" },
  { label: "Registrada", sortBy: "createdAt" },
  { label: "Expiración" },
  { label: "Acciones" },
];

/** The current search with some parameters changed (null removes one). */
function withParams(search: string, changes: Record<string, string | null>) {
  return withSearchParams("/admin/cards", search, changes);
}

export default function CardsPage() {
  const { filters, cards, total, page, pages, modal, now } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>() as FormActionData | undefined;
  const { search } = useLocation();
  const nowDate = new Date(now);
  const listUrl = withParams(search, { modal: null, card: null });
  const statusFailure = actionData?.intent === "set-status" ? actionData.result.error?.[""] : undefined;
  const detail = modal.detail;
  return (
    <>
      <h1>Gestionar Tarjetas</h1>
      {statusFailure ? <FormAlert title="Error al actualizar" errors={statusFailure} /> : null}

      {/* Remounted when the filters change (e.g. "Limpiar"), so the fields show them. */}
      <Form
        method="get"
        className="admin-toolbar"
        aria-label="Filtrar tarjetas"
        key={`${filters.cardNumber}|${filters.anonymousFilter}`}
      >
        <input type="hidden" name="sortBy" value={filters.sortBy} />
        <input type="hidden" name="sortOrder" value={filters.sortOrder} />
        <div className="field">
          <label htmlFor="card-search">Buscar por número</label>
          <input id="card-search" type="search" name="cardNumber" defaultValue={filters.cardNumber} placeholder="p. ej. 04A1" />
        </div>
        <div className="field">
          <label htmlFor="card-anonymous">Tarjetas anónimas</label>
          <select id="card-anonymous" name="anonymousFilter" defaultValue={filters.anonymousFilter}>
            {ANONYMOUS_FILTERS.map((value) => (
              <option key={value} value={value}>
                {ANONYMOUS_FILTER_LABELS[value]}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="button">
          Filtrar
        </button>
        <Link to="/admin/cards" className="button button-secondary">
          Limpiar
        </Link>
      </Form>

      <p className="muted" data-testid="card-count">
        {total === 1 ? "1 tarjeta" : `${total} tarjetas`}
      </p>
      {cards.length === 0 ? (
        <p>{filters.cardNumber || filters.anonymousFilter !== "all" ? "No hay tarjetas que coincidan con los filtros." : "No hay tarjetas registradas."}</p>
      ) : (
        <div className="table-wrap">
          <table className="data cards-table stack-on-phone">
            <caption className="visually-hidden">Tarjetas de acceso</caption>
            <thead>
              <tr>
                {COLUMNS.map((column) => (
                  <SortableHeader key={column.label} column={column} filters={filters} search={search} />
                ))}
              </tr>
            </thead>
            <tbody>
              {cards.map((card) => (
                <CardRow key={card._id} card={card} now={nowDate} search={search} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pagination page={page} pages={pages} />

      {modal.name && !detail ? <CardNotFoundModal closeTo={listUrl} /> : null}
      {detail && modal.name === "detail" ? (
        <CardDetailModal
          detail={detail}
          now={nowDate}
          closeTo={listUrl}
          linkTo={(name) => withParams(search, { modal: name, card: detail.card._id })}
          results={{
            alias: resultFor(actionData, "set-alias"),
            permission: resultFor(actionData, "grant-permission"),
            revoke: resultFor(actionData, "revoke-permission"),
          }}
        />
      ) : null}
      {detail && modal.name === "delete" ? (
        <DeleteCardModal
          detail={detail}
          closeTo={withParams(search, { modal: "detail" })}
          lastResult={resultFor(actionData, "delete-card")}
        />
      ) : null}
      {detail && modal.name === "approve" ? (
        <ApproveCardModal detail={detail} closeTo={listUrl} lastResult={resultFor(actionData, "approve-card")} />
      ) : null}
    </>
  );
}

function SortableHeader({ column, filters, search }: { column: (typeof COLUMNS)[number]; filters: CardFilters; search: string }) {
  if (!column.sortBy) return <th scope="col">{column.label}</th>;
  const current = filters.sortBy === column.sortBy;
  // The sorted column's link flips the order; another column starts descending.
  const nextOrder = current && filters.sortOrder === "desc" ? "asc" : "desc";
  const href = withParams(search, { sortBy: column.sortBy, sortOrder: nextOrder, page: null, modal: null, card: null });
  return (
    <th scope="col" aria-sort={current ? (filters.sortOrder === "asc" ? "ascending" : "descending") : undefined}>
      <Link to={href} className="sort-link" preventScrollReset>
        {column.label}{" "}
        <span aria-hidden="true" className="sort-indicator">
          {current ? (filters.sortOrder === "asc" ? "▲" : "▼") : "↕"}
        </span>
      </Link>
    </th>
  );
}

/**
 * A card soon to expire or expired is a badge; a far-off date or none is
 * nothing to warn about: plain text, which may wrap between its words in a
 * narrow column (a badge stays on one line), so the ten columns fit 1280 px.
 */
function ExpiryCell({ expiresAt, now }: { expiresAt: string | null; now: Date }) {
  const { tone, label } = cardExpiry(expiresAt, now);
  return tone === "active" ? <span className="muted">{label}</span> : <CardExpiryBadge expiresAt={expiresAt} now={now} />;
}

function CardRow({ card, now, search }: { card: CardJson; now: Date; search: string }) {
  return (
    <tr data-testid="card-row" data-card-number={card.cardNumber}>
      <td data-label="Número">
        <CardNumber cardNumber={card.cardNumber} isAnonymous={card.isAnonymous} />
      </td>
      <td data-label="Alias">
        <CardAlias alias={card.alias} />
      </td>
      <td data-label="Titular">{holderLabel(card.userId)}</td>
      <td data-label="Estado">{card.status === "pending" ? <CardStatusBadge status="pending" /> : <CardStatusForm card={card} />}</td>
      <td data-label="Último uso">{card.usageStats.lastUsed ? formatDateTime(card.usageStats.lastUsed) : <span className="muted">Nunca</span>}</td>
      <td data-label="Intentos">{card.usageStats.totalAccessAttempts}</td>
      <td data-label="Exitosos">{card.usageStats.successfulAccesses}</td>
      <td data-label="Registrada">{formatDateTime(card.createdAt)}</td>
      <td data-label="Expiración">
        <ExpiryCell expiresAt={card.expiresAt} now={now} />
      </td>
      <td data-label="Acciones">
        <div className="actions">
          <Link
            to={withParams(search, { modal: "detail", card: card._id })}
            className="button button-secondary button-small"
            aria-label={`Ver tarjeta ${card.cardNumber}`}
            preventScrollReset
          >
            Ver
          </Link>
          {card.status === "pending" ? (
            <Link
              to={withParams(search, { modal: "approve", card: card._id })}
              className="button button-small"
              aria-label={`Aprobar tarjeta ${card.cardNumber}`}
              preventScrollReset
            >
              Aprobar
            </Link>
          ) : null}
        </div>
      </td>
    </tr>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
