// The admin cards screen's data and actions, and the card JSON of /api/cards.
// Both go through the card model, whose rules (alias, status, delete, approve,
// permissions) answer with reasons; CARD_REFUSALS turns them into HTTP
// statuses and Spanish messages for both.
import type { SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data } from "@remix-run/node";
import {
  approveCard,
  countCards,
  deleteCard,
  editCard,
  getCardById,
  listCards,
  removeCardPermission,
  setCardPermission,
  type CardWithRelations,
} from "~/models/card.server";
import { getDoorById, listDoors, type Door } from "~/models/door.server";
import {
  CARD_STATUS_LABELS,
  CardAliasSchema,
  CardApproveSchema,
  CardFiltersSchema,
  CardPermissionSchema,
  CardStatusSchema,
  type CardFilters,
} from "~/schemas/card";
import { apiError } from "~/utils/auth.server";
import type { Toast } from "~/utils/session.server";
import { redirectWithToast } from "~/utils/toast.server";

export const CARDS_PAGE_SIZE = 50;
export const CARD_MODALS = ["detail", "delete", "approve"] as const;
export type CardModal = (typeof CARD_MODALS)[number];

export const CARD_ASSIGNED_MESSAGE =
  "No se puede eliminar una tarjeta asignada a un usuario. Por favor, desasigna la tarjeta primero.";

/** Why a card change was refused, for the screen and the API alike. */
export const CARD_REFUSALS = {
  not_found: { status: 404, message: "Tarjeta no encontrada" },
  door_not_found: { status: 404, message: "Puerta no encontrada" },
  permission_not_found: { status: 404, message: "La tarjeta no tiene permiso en esa puerta" },
  assigned: { status: 409, message: CARD_ASSIGNED_MESSAGE },
  pending: { status: 409, message: "La tarjeta está pendiente de aprobación: apruébala para activarla" },
  expired: { status: 409, message: "La tarjeta ha expirado: cambia su fecha de expiración antes de activarla" },
  not_pending: { status: 409, message: "La tarjeta no está pendiente de aprobación" },
} as const;
export type CardRefusal = keyof typeof CARD_REFUSALS;

/** SPEC §3 card, as the API and the admin screen see it. */
export function toCardJson(card: CardWithRelations) {
  return {
    _id: card.id,
    cardNumber: card.cardNumber,
    alias: card.alias,
    description: card.description,
    type: card.cardType,
    status: card.status,
    isAnonymous: card.isAnonymous,
    userId: card.holder
      ? { _id: card.holder.id, firstName: card.holder.firstName, lastName: card.holder.lastName, username: card.holder.username }
      : null,
    permissions: card.permissions.map(({ doorId, granted }) => ({ doorId, granted })),
    usageStats: {
      lastUsed: card.lastUsedAt?.toISOString() ?? null,
      totalAccessAttempts: card.totalAccessAttempts,
      successfulAccesses: card.successfulAccesses,
    },
    createdAt: card.createdAt.toISOString(),
    expiresAt: card.expiresAt?.toISOString() ?? null,
  };
}
export type CardJson = ReturnType<typeof toCardJson>;

export function toDoorOption(door: Door) {
  return { _id: door.id, doorId: door.doorId, name: door.name, location: door.location, status: door.status };
}
export type DoorOption = ReturnType<typeof toDoorOption>;

/**
 * The card, every door, and the doors it has no permission on yet (granted
 * or denied), which are the ones a new permission can name.
 */
export async function loadCardDetail(cardId: string) {
  const [card, doors] = await Promise.all([getCardById(cardId), listDoors()]);
  if (!card) return null;
  const withPermission = new Set(card.permissions.map((permission) => permission.doorId));
  const doorOptions = doors.map(toDoorOption);
  return {
    card: toCardJson(card),
    doors: doorOptions,
    availableDoors: doorOptions.filter((door) => !withPermission.has(door._id)),
  };
}

/** The API's view of one card; 404 JSON when it does not exist. */
export async function requireCardJson(cardId: string) {
  const card = await getCardById(cardId);
  if (!card) refuseApi("not_found");
  return toCardJson(card);
}

export function refuseApi(reason: CardRefusal): never {
  apiError(CARD_REFUSALS[reason].status, CARD_REFUSALS[reason].message);
}

/** A query string as an object, without empty values (an empty field means "not given"). */
export function queryObject(params: URLSearchParams) {
  return Object.fromEntries([...params].filter(([, value]) => value.trim() !== ""));
}

/** The page's filters; values a person could not have picked fall back to the defaults. */
function parseFilters(params: URLSearchParams): CardFilters {
  const parsed = CardFiltersSchema.safeParse(queryObject(params));
  return parsed.success ? parsed.data : CardFiltersSchema.parse({});
}

export async function loadCardsPage(request: Request) {
  const url = new URL(request.url);
  const filters = parseFilters(url.searchParams);
  const total = await countCards(filters);
  const pages = Math.max(1, Math.ceil(total / CARDS_PAGE_SIZE));
  const page = Math.min(pages, Math.max(1, Math.floor(Number(url.searchParams.get("page")) || 1)));
  const cards = await listCards({ ...filters, limit: CARDS_PAGE_SIZE, offset: (page - 1) * CARDS_PAGE_SIZE });
  const modalParam = url.searchParams.get("modal");
  const modalName = (CARD_MODALS as readonly string[]).includes(modalParam ?? "") ? (modalParam as CardModal) : null;
  const cardId = url.searchParams.get("card");
  return {
    filters,
    cards: cards.map(toCardJson),
    total,
    page,
    pages,
    modal: { name: modalName, cardId, detail: modalName && cardId ? await loadCardDetail(cardId) : null },
    // One "now" for the expiry badges of the server and the browser render.
    now: new Date().toISOString(),
  };
}

/** This page's URL as the request had it, with the open modal closed or another one opened. */
function pageUrl(request: Request, modal: "keep" | "close" | { detail: string } = "keep") {
  const params = new URL(request.url).searchParams;
  params.delete("index");
  if (modal === "close") {
    params.delete("modal");
    params.delete("card");
  } else if (modal !== "keep") {
    params.set("modal", "detail");
    params.set("card", modal.detail);
  }
  const search = params.toString();
  return `/admin/cards${search ? `?${search}` : ""}`;
}

/** What a refused action answers (a successful one redirects with a toast). */
export type CardActionData = { intent: string; result: SubmissionResult<string[]>; toast?: Toast };

type Refusal = { status: number; message: string };
type Submission = { reply: (options: { formErrors: string[] }) => SubmissionResult<string[]> };

/**
 * A refused action: the message as the form's error (with what was typed,
 * when there was a form to parse) and as an error toast.
 */
function failure(intent: string, title: string, { status, message }: Refusal, submission?: Submission) {
  const result = submission?.reply({ formErrors: [message] }) ?? { status: "error" as const, error: { "": [message] } };
  const toast: Toast = { id: crypto.randomUUID(), type: "error", title, description: message };
  return data<CardActionData>({ intent, result, toast }, { status });
}

const UPDATE_FAILED = "Error al actualizar";
const DELETE_FAILED = "Error al eliminar";

function firstError(error: Record<string, string[] | null> | null | undefined) {
  return Object.values(error ?? {}).flat().find(Boolean) ?? "Datos no válidos";
}

export async function cardsAction(request: Request) {
  const formData = await request.formData();
  const intent = String(formData.get("intent") ?? "");
  const cardId = String(formData.get("id") ?? "");
  const toast = (url: string, type: Toast["type"], title: string, description?: string) =>
    redirectWithToast(request, url, { type, title, description });

  if (intent === "set-status") {
    const submission = parseWithZod(formData, { schema: CardStatusSchema });
    if (submission.status !== "success") {
      return failure(intent, UPDATE_FAILED, { status: 400, message: firstError(submission.error) }, submission);
    }
    const result = await editCard(cardId, { status: submission.value.status });
    if (!result.ok) return failure(intent, UPDATE_FAILED, CARD_REFUSALS[result.reason], submission);
    const label = CARD_STATUS_LABELS[result.card.status];
    if (!result.changed) return toast(pageUrl(request), "info", "Sin cambios", `La tarjeta ya estaba ${label.toLowerCase()}.`);
    return toast(pageUrl(request), "success", "Estado actualizado", `Tarjeta ${result.card.cardNumber}: ${label}`);
  }

  if (intent === "set-alias") {
    const submission = parseWithZod(formData, { schema: CardAliasSchema });
    if (submission.status !== "success") return data<CardActionData>({ intent, result: submission.reply() }, { status: 400 });
    const result = await editCard(cardId, { alias: submission.value.alias ?? null });
    if (!result.ok) return failure(intent, UPDATE_FAILED, CARD_REFUSALS[result.reason], submission);
    if (!result.changed) return toast(pageUrl(request), "info", "Sin cambios", "El alias no ha cambiado.");
    return result.card.alias
      ? toast(pageUrl(request), "success", "Alias actualizado", result.card.alias)
      : toast(pageUrl(request), "success", "Alias eliminado");
  }

  if (intent === "grant-permission") {
    const submission = parseWithZod(formData, { schema: CardPermissionSchema });
    if (submission.status !== "success") return data<CardActionData>({ intent, result: submission.reply() }, { status: 400 });
    const { doorId, granted } = submission.value;
    const result = await setCardPermission(cardId, doorId, granted);
    if (!result.ok) return failure(intent, UPDATE_FAILED, CARD_REFUSALS[result.reason], submission);
    const door = await getDoorById(doorId);
    return toast(pageUrl(request), "success", granted ? "Permiso concedido" : "Acceso denegado", door?.name);
  }

  if (intent === "revoke-permission") {
    const doorId = String(formData.get("doorId") ?? "");
    const result = await removeCardPermission(cardId, doorId);
    if (!result.ok) return failure(intent, UPDATE_FAILED, CARD_REFUSALS[result.reason]);
    const door = await getDoorById(doorId);
    return toast(pageUrl(request), "success", "Permiso revocado", door?.name);
  }

  if (intent === "delete-card") {
    const result = await deleteCard(cardId);
    if (!result.ok) return failure(intent, DELETE_FAILED, CARD_REFUSALS[result.reason]);
    return toast(pageUrl(request, "close"), "success", "Tarjeta eliminada", result.cardNumber);
  }

  if (intent === "approve-card") {
    const submission = parseWithZod(formData, { schema: CardApproveSchema });
    if (submission.status !== "success") return data<CardActionData>({ intent, result: submission.reply() }, { status: 400 });
    const result = await approveCard(cardId, submission.value.doorId || null);
    if (!result.ok) {
      const { status, message } = CARD_REFUSALS[result.reason];
      return failure(intent, "Error", { status, message: `Error al aprobar tarjeta: ${message}` }, submission);
    }
    return toast(pageUrl(request, { detail: cardId }), "success", "Tarjeta aprobada", result.card.cardNumber);
  }

  throw new Response("Acción no válida", { status: 400 });
}
