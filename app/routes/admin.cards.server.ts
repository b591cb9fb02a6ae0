// /admin/cards: the list's data, the open modal's card, and the forms'
// intents, through app/services/cards.server.ts. Every answer keeps the
// page's query (filters, sort, page, open modal).
import { parseWithZod } from "@conform-to/zod/v4";
import {
  CARD_STATUS_LABELS,
  CardAliasSchema,
  CardApproveSchema,
  CardFiltersSchema,
  CardPermissionSchema,
  CardStatusSchema,
  type CardFilters,
} from "~/schemas/card";
import * as cards from "~/services/cards.server";
import { filtersFromQuery } from "~/utils/api.server";
import { firstMessage, readForm, refusedForm } from "~/utils/form-reply.server";
import { modalOf, pageUrl } from "~/utils/page-url";
import { pageWindow, requestedPage } from "~/utils/paging";
import { refuse, throwRefusal } from "~/utils/refusal.server";
import { infoToast, successToast, type Toast } from "~/utils/toast";
import { redirectWithToast } from "~/utils/toast.server";
import { renderedNow } from "~/utils/dates";

export const CARDS_PAGE_SIZE = 50;
export const CARD_MODALS = ["detail", "delete", "approve"] as const;
export type CardModal = (typeof CARD_MODALS)[number];

export async function loadCardsPage(request: Request) {
  const url = new URL(request.url);
  const filters: CardFilters = filtersFromQuery(CardFiltersSchema, url.searchParams);
  const total = await cards.countCards(filters);
  const { page, pages, limit, offset } = pageWindow(total, { page: requestedPage(url.searchParams), limit: CARDS_PAGE_SIZE, clamp: true });
  const list = await cards.listCardsJson({ ...filters, limit, offset });
  const modalName = modalOf(url.searchParams, CARD_MODALS);
  const cardId = url.searchParams.get("card");
  const detail = modalName && cardId ? await cards.getCardDetail(cardId) : null;
  return {
    filters,
    cards: list,
    total,
    page,
    pages,
    modal: { name: modalName, cardId, detail: detail?.ok ? detail : null },
    // One "now" for the expiry badges of the server and the browser render.
    now: renderedNow(),
  };
}

const UPDATE_FAILED = "Error al actualizar";
const DELETE_FAILED = "Error al eliminar";

export async function cardsAction(request: Request) {
  const formData = await readForm(request);
  const intent = String(formData.get("intent") ?? "");
  const cardId = String(formData.get("id") ?? "");
  const toast = (url: string, toast: Toast) => redirectWithToast(url, toast);
  const samePage = pageUrl(request);

  switch (intent) {
    case "set-status": {
      const submission = parseWithZod(formData, { schema: CardStatusSchema });
      // A row's select: the schema's message goes on the form, as a refusal's would.
      if (submission.status !== "success") {
        return refusedForm(refuse(400, firstMessage(submission) ?? "Datos no válidos"), { intent, submission, toastTitle: UPDATE_FAILED });
      }
      const result = await cards.editCard(cardId, { status: submission.value.status });
      if (!result.ok) return refusedForm(result, { intent, submission, toastTitle: UPDATE_FAILED });
      const label = CARD_STATUS_LABELS[result.card.status];
      if (!result.changed) return toast(samePage, infoToast("Sin cambios", `La tarjeta ya estaba ${label.toLowerCase()}.`));
      return toast(samePage, successToast("Estado actualizado", `Tarjeta ${result.card.cardNumber}: ${label}`));
    }
    case "set-alias": {
      const submission = parseWithZod(formData, { schema: CardAliasSchema });
      if (submission.status !== "success") return refusedForm(submission, { intent });
      const result = await cards.editCard(cardId, { alias: submission.value.alias ?? null });
      if (!result.ok) return refusedForm(result, { intent, submission, toastTitle: UPDATE_FAILED });
      if (!result.changed) return toast(samePage, infoToast("Sin cambios", "El alias no ha cambiado."));
      return toast(samePage, result.card.alias ? successToast("Alias actualizado", result.card.alias) : successToast("Alias eliminado"));
    }
    case "grant-permission": {
      const submission = parseWithZod(formData, { schema: CardPermissionSchema });
      if (submission.status !== "success") return refusedForm(submission, { intent });
      const { doorId, granted, schedule } = submission.value;
      const result = await cards.setCardPermission(cardId, doorId, granted, schedule);
      if (!result.ok) return refusedForm(result, { intent, submission, toastTitle: UPDATE_FAILED });
      const doorName = result.door.name;
      return toast(samePage, granted ? successToast("Permiso concedido", doorName) : successToast("Acceso denegado", doorName));
    }
    case "revoke-permission": {
      const doorId = String(formData.get("doorId") ?? "");
      const result = await cards.removeCardPermission(cardId, doorId);
      if (!result.ok) return refusedForm(result, { intent, toastTitle: UPDATE_FAILED });
      return toast(samePage, successToast("Permiso revocado", result.door.name));
    }
    case "delete-card": {
      const result = await cards.deleteCard(cardId);
      if (!result.ok) return refusedForm(result, { intent, toastTitle: DELETE_FAILED });
      return toast(pageUrl(request, { modal: null, card: null }), successToast("Tarjeta eliminada", result.cardNumber));
    }
    case "approve-card": {
      const submission = parseWithZod(formData, { schema: CardApproveSchema });
      if (submission.status !== "success") return refusedForm(submission, { intent });
      const { doorId, schedule, groupId } = submission.value;
      const result = await cards.approveCard(cardId, { door: doorId || null, schedule, groupId: groupId || null });
      if (!result.ok) return refusedForm({ ...result, message: `Error al aprobar tarjeta: ${result.message}` }, { intent, submission });
      return toast(pageUrl(request, { modal: "detail", card: cardId }), successToast("Tarjeta aprobada", result.card.cardNumber));
    }
    default:
      throwRefusal({ status: 400, message: "Acción no válida" });
  }
}
