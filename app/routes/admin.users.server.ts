// /admin/users: the list's data, the open modal's user and cards, and the
// forms' intents, through app/services/users.server.ts. Every answer keeps
// the page's query (search, page); a successful form redirects with the
// SPEC's toast (Post/Redirect/Get), a refused one answers its messages.
import { parseWithZod } from "@conform-to/zod/v4";
import {
  ASSIGNABLE_CARDS_LIMIT,
  createCardAssignmentSchema,
  createUserCardUpdateSchema,
  USER_PAGE_SIZE,
  UserCreateSchema,
  UserFiltersSchema,
  UserUpdateSchema,
  validationNotice,
} from "~/schemas/user";
import type { CardOptionGroups } from "~/components/admin/user-modals";
import type { CardJson } from "~/services/cards.server";
import * as accessGroups from "~/services/access-groups.server";
import * as users from "~/services/users.server";
import type { User } from "~/services/users.server";
import { filtersFromQuery } from "~/utils/api.server";
import { getSessionId } from "~/utils/auth.server";
import { todayInMadrid, renderedNow } from "~/utils/dates";
import { readForm, refusedForm, type FormActionData, type RefusedSubmission } from "~/utils/form-reply.server";
import { modalOf, pageUrl } from "~/utils/page-url";
import { requestedPage } from "~/utils/paging";
import { throwRefusal } from "~/utils/refusal.server";
import { makeToast, successToast } from "~/utils/toast";
import { dataWithToast, redirectWithToast } from "~/utils/toast.server";

export const USER_MODALS = ["new", "edit", "detail", "inactivate", "activate", "delete", "assign", "edit-card", "unassign"] as const;
export type UserModal = (typeof USER_MODALS)[number];

function holderName(holder: CardJson["userId"]) {
  return holder ? users.displayName(holder) : null;
}

function groupCardOptions(cards: CardJson[]): CardOptionGroups {
  const groups: CardOptionGroups = { unassigned: [], pending: [], assigned: [] };
  for (const card of cards) {
    const number = `${card.cardNumber}${card.isAnonymous ? " 🤖" : ""}`;
    const holder = card.userId ? { id: card.userId._id, name: holderName(card.userId)! } : null;
    if (card.status === "pending") {
      groups.pending.push({ cardNumber: card.cardNumber, label: `${number} · ${holder?.name ?? "Usuario desconocido"}`, holder });
    } else if (holder) {
      groups.assigned.push({ cardNumber: card.cardNumber, label: `${number} · ${holder.name}`, holder });
    } else {
      const state = card.status === "active" ? "" : " (inactiva)";
      groups.unassigned.push({ cardNumber: card.cardNumber, label: `${number} · ${card.alias ?? "Sin alias"}${state}`, holder: null });
    }
  }
  return groups;
}

const NO_GROUP_CHOICES: { groups: { id: string; name: string }[]; defaultGroupId: string | null } = { groups: [], defaultGroupId: null };

async function groupChoices(): Promise<typeof NO_GROUP_CHOICES> {
  const [groups, settings] = await Promise.all([accessGroups.listAccessGroups(), accessGroups.getAccessSettings()]);
  return { groups: groups.map((group) => ({ id: group._id, name: group.name })), defaultGroupId: settings.defaultAccessGroupId };
}

export async function loadUsersPage(request: Request, admin: User) {
  const url = new URL(request.url);
  const { search } = filtersFromQuery(UserFiltersSchema, url.searchParams);
  const list = await users.listUsers({ search, page: requestedPage(url.searchParams), limit: USER_PAGE_SIZE }, { clamp: true });
  const modalName = modalOf(url.searchParams, USER_MODALS);
  const userId = url.searchParams.get("user");
  const cardId = url.searchParams.get("card");
  const detail = modalName && modalName !== "new" && userId ? await users.getUserDetail(userId) : null;
  const found = detail?.ok ? detail : null;
  return {
    search,
    users: list.users,
    pagination: list.pagination,
    modal: {
      name: modalName,
      userId,
      cardId,
      detail: found,
      cardOptions: found && modalName === "assign" ? groupCardOptions(await users.listAssignableCards(found.user._id, ASSIGNABLE_CARDS_LIMIT)) : null,
      deletion: found && modalName === "delete" ? await users.describeUserDeletion(found.user._id) : null,
      groupDoors: found && modalName === "assign" ? await accessGroups.doorsOpenedByGroupsOf(found.user._id) : [],
    },
    // Only the forms that pick groups (new, edit, assign) read them: the list alone does not.
    groupChoices: modalName === "new" || modalName === "edit" || modalName === "assign" ? await groupChoices() : NO_GROUP_CHOICES,
    currentUserId: admin.id,
    // One "today" and "now" for the forms' limits and the expiry badges, on the server and in the browser.
    today: todayInMadrid(),
    now: renderedNow(),
  };
}

/** How a form the schema refused is announced: SPEC's 'Campos requeridos' warning, or an error titled `failureTitle`. */
function noticeOf(submission: RefusedSubmission, failureTitle: string) {
  const notice = validationNotice(submission.error, failureTitle);
  return makeToast(notice.type, notice.title, notice.description);
}

/** What a refused assignment needs to ask before taking the card from its holder. */
export type AssignActionData = FormActionData & { reassign?: { holderId: string; holderName: string } };

export async function usersAction(request: Request, admin: User) {
  const formData = await readForm(request);
  const intent = String(formData.get("intent") ?? "");
  const userId = String(formData.get("id") ?? "");
  const cardId = String(formData.get("cardId") ?? "");
  const list = pageUrl(request, { modal: null, user: null, card: null });
  const detailOf = (id: string) => pageUrl(request, { modal: "detail", user: id, card: null });

  switch (intent) {
    case "create-user": {
      const submission = parseWithZod(formData, { schema: UserCreateSchema });
      if (submission.status !== "success") return refusedForm(submission, { intent, toast: noticeOf(submission, "Error al crear"), hideFields: ["password"] });
      // A form with no group ticked means none (the API's missing field means the default).
      const created = await users.createUser({ ...submission.value, accessGroups: submission.value.accessGroups ?? [] });
      if (!created.ok) return refusedForm(created, { intent, submission, toastTitle: "Error al crear", hideFields: ["password"] });
      return redirectWithToast(list, successToast("Usuario creado exitosamente", created.user.username));
    }
    case "update-user": {
      const submission = parseWithZod(formData, { schema: UserUpdateSchema });
      if (submission.status !== "success") return refusedForm(submission, { intent, toast: noticeOf(submission, "Error al actualizar"), hideFields: ["password"] });
      const updated = await users.updateUser(
        userId,
        { ...submission.value, accessGroups: submission.value.accessGroups ?? [] },
        { id: admin.id, sessionId: await getSessionId(request) },
      );
      if (!updated.ok) return refusedForm(updated, { intent, submission, toastTitle: "Error al actualizar", hideFields: ["password"] });
      return redirectWithToast(list, successToast("Usuario actualizado exitosamente", updated.user.username));
    }
    case "inactivate-user":
    case "activate-user": {
      const inactivating = intent === "inactivate-user";
      const changed = await users.changeUserStatus(userId, inactivating ? "inactive" : "active", admin);
      if (!changed.ok) return refusedForm(changed, { intent, toastTitle: inactivating ? "Error al inactivar" : "Error al activar" });
      const toast = inactivating
        ? successToast("Usuario inactivado", "El usuario ha sido inactivado exitosamente")
        : successToast("Usuario activado", `${changed.user.username} puede volver a acceder`);
      return redirectWithToast(list, toast);
    }
    case "delete-user": {
      const deleted = await users.deleteUser(userId, admin);
      if (!deleted.ok) return refusedForm(deleted, { intent, toastTitle: "Error al eliminar" });
      return redirectWithToast(list, successToast("Usuario eliminado", deleted.user.username));
    }
    case "assign-card": {
      const submission = parseWithZod(formData, { schema: createCardAssignmentSchema({ today: todayInMadrid() }) });
      if (submission.status !== "success") return refusedForm(submission, { intent, toast: noticeOf(submission, "Error al asignar") });
      const { reassignFrom, joinGroup, ...assignment } = submission.value;
      if (joinGroup) {
        const joined = await accessGroups.addUserToGroup(userId, joinGroup);
        if (!joined.ok) return refusedForm(joined, { intent, submission, toastTitle: "Error al asignar" });
      }
      const assigned = await users.assignCard(userId, assignment, { confirmedFrom: reassignFrom ?? "" });
      if (!assigned.ok) {
        if ("holder" in assigned) {
          // Warn first: the same form comes back with the question and the holder to confirm.
          const payload: AssignActionData = {
            intent,
            result: submission.reply(),
            reassign: { holderId: assigned.holder.id, holderName: assigned.holder.name },
          };
          return dataWithToast(payload, makeToast("warning", "Tarjeta asignada a otro usuario", assigned.message), { status: 409 });
        }
        return refusedForm(assigned, { intent, submission, toastTitle: "Error al asignar" });
      }
      const toast = assigned.previousUser
        ? successToast("Tarjeta reasignada", `Tarjeta reasignada exitosamente desde ${users.displayName(assigned.previousUser)}`)
        : successToast("Tarjeta asignada", "Tarjeta asignada exitosamente");
      return redirectWithToast(detailOf(userId), toast);
    }
    case "update-card": {
      const submission = parseWithZod(formData, { schema: createUserCardUpdateSchema({ today: todayInMadrid() }) });
      if (submission.status !== "success") return refusedForm(submission, { intent, toast: noticeOf(submission, "Error al actualizar") });
      const edited = await users.editUserCard(userId, cardId, submission.value);
      if (!edited.ok) return refusedForm(edited, { intent, submission, toastTitle: "Error al actualizar" });
      return redirectWithToast(detailOf(userId), successToast("Tarjeta actualizada", edited.card.cardNumber));
    }
    case "unassign-card": {
      const unassigned = await users.unassignUserCard(userId, cardId);
      if (!unassigned.ok) return refusedForm(unassigned, { intent, toastTitle: "Error al eliminar" });
      return redirectWithToast(detailOf(userId), successToast("Tarjeta desasignada", unassigned.cardNumber));
    }
    default:
      throwRefusal({ status: 400, message: "Acción no válida" });
  }
}
