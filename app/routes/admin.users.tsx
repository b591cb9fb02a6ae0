import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Link, useActionData, useLoaderData, useLocation } from "@remix-run/react";
import { DataTable } from "~/components/admin/list-parts";
import { Pagination } from "~/components/admin/pagination";
import {
  ActionLink,
  AssignCardModal,
  DeleteUserModal,
  EditUserCardModal,
  UnassignCardModal,
  UserDetailModal,
  UserFormModal,
  UserNotFoundModal,
  UserStatusBadge,
  UserStatusModal,
} from "~/components/admin/user-modals";
import { UserSearchForm, useListLoading } from "~/components/admin/user-search";
import { EmailText } from "~/components/email-text";
import { GeneralErrorBoundary } from "~/components/error-boundary";
import { resultFor } from "~/components/forms";
import { USER_ROLE_LABELS } from "~/schemas/user";
import type { UserJson } from "~/services/users.server";
import { requireAdmin } from "~/utils/auth.server";
import { pageMeta } from "~/utils/meta";
import { withSearchParams } from "~/utils/page-url";
import { loadUsersPage, usersAction, type AssignActionData } from "./admin.users.server";

export const meta = pageMeta("Gestión de Usuarios");

// Rendered once per distinct data (ADR 0008): loaders and guards still run on every request.

export async function loader({ request }: LoaderFunctionArgs) {
  const admin = await requireAdmin(request);
  return loadUsersPage(request, admin);
}

export async function action({ request }: ActionFunctionArgs) {
  const admin = await requireAdmin(request);
  return usersAction(request, admin);
}

const COLUMNS = ["Usuario", "Nombre", "Email", "Rol", "Estado", "Tarjetas", "Acciones"];

/** The current page URL with some parameters changed (null removes one). */
function withParams(search: string, changes: Record<string, string | null>) {
  return withSearchParams("/admin/users", search, changes);
}

export default function UsersPage() {
  const { search: query, users, pagination, modal, today, now, groupChoices } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>() as AssignActionData | undefined;
  const { search } = useLocation();
  const loading = useListLoading();
  const nowDate = new Date(now);
  const listUrl = withParams(search, { modal: null, user: null, card: null });
  const detailUrl = (userId: string) => withParams(search, { modal: "detail", user: userId, card: null });
  const detail = modal.detail;
  const card = detail && modal.cardId ? detail.cards.find((c) => c._id === modal.cardId) : undefined;
  const needsCard = modal.name === "edit-card" || modal.name === "unassign";

  return (
    <>
      <h1>Gestión de Usuarios</h1>
      <div className="admin-toolbar">
        <UserSearchForm search={query} />
        <Link to={withParams(search, { modal: "new", user: null, card: null })} className="button" preventScrollReset>
          Crear Usuario
        </Link>
      </div>

      <p className="muted" role="status" data-testid="user-count">
        {loading ? "Cargando usuarios..." : pagination.total === 1 ? "1 usuario" : `${pagination.total} usuarios`}
      </p>
      {users.length === 0 ? (
        <p>No hay usuarios encontrados.</p>
      ) : (
        <DataTable caption="Usuarios" columns={COLUMNS} busy={loading}>
          {users.map((user) => (
            <UserRow key={user._id} user={user} linkTo={(name) => withParams(search, { modal: name, user: user._id, card: null })} />
          ))}
        </DataTable>
      )}
      <Pagination page={pagination.page} pages={pagination.pages} always />

      {modal.name === "new" ? <UserFormModal user={null} closeTo={listUrl} lastResult={resultFor(actionData, "create-user")} groupChoices={groupChoices} /> : null}
      {modal.name && modal.name !== "new" && (!detail || (needsCard && !card)) ? <UserNotFoundModal closeTo={listUrl} /> : null}
      {detail && modal.name === "edit" ? (
        <UserFormModal
          key={detail.user._id}
          user={detail.user}
          closeTo={listUrl}
          lastResult={resultFor(actionData, "update-user")}
          groupChoices={groupChoices}
        />
      ) : null}
      {detail && modal.name === "detail" ? (
        <UserDetailModal
          detail={detail}
          now={nowDate}
          closeTo={listUrl}
          linkTo={(name, cardId) => withParams(search, { modal: name, user: detail.user._id, card: cardId ?? null })}
        />
      ) : null}
      {detail && (modal.name === "inactivate" || modal.name === "activate") ? (
        <UserStatusModal
          user={detail.user}
          change={modal.name}
          closeTo={listUrl}
          lastResult={resultFor(actionData, modal.name === "inactivate" ? "inactivate-user" : "activate-user")}
        />
      ) : null}
      {detail && modal.deletion && modal.name === "delete" ? (
        <DeleteUserModal user={detail.user} deletion={modal.deletion} closeTo={listUrl} lastResult={resultFor(actionData, "delete-user")} />
      ) : null}
      {detail && modal.cardOptions && modal.name === "assign" ? (
        <AssignCardModal
          user={detail.user}
          groups={modal.cardOptions}
          groupDoors={modal.groupDoors}
          groupChoices={groupChoices}
          today={today}
          closeTo={detailUrl(detail.user._id)}
          lastResult={resultFor(actionData, "assign-card")}
          reassign={actionData?.intent === "assign-card" ? actionData.reassign : undefined}
        />
      ) : null}
      {detail && card && modal.name === "edit-card" ? (
        <EditUserCardModal
          key={card._id}
          user={detail.user}
          card={card}
          today={today}
          closeTo={detailUrl(detail.user._id)}
          lastResult={resultFor(actionData, "update-card")}
        />
      ) : null}
      {detail && card && modal.name === "unassign" ? (
        <UnassignCardModal user={detail.user} card={card} closeTo={detailUrl(detail.user._id)} lastResult={resultFor(actionData, "unassign-card")} />
      ) : null}
    </>
  );
}

type RowModal = "detail" | "edit" | "inactivate" | "activate" | "delete";

function UserRow({ user, linkTo }: { user: UserJson; linkTo: (modal: RowModal) => string }) {
  const name = [user.firstName, user.lastName].filter(Boolean).join(" ");
  const isAdmin = user.role === "admin";
  return (
    <tr data-testid="user-row" data-username={user.username}>
      <td data-label="Usuario">{user.username}</td>
      <td data-label="Nombre">{name || <span className="muted">No especificado</span>}</td>
      <td data-label="Email">
        <EmailText email={user.email} />
      </td>
      <td data-label="Rol">{USER_ROLE_LABELS[user.role]}</td>
      <td data-label="Estado">
        <UserStatusBadge status={user.status} />
      </td>
      <td data-label="Tarjetas">{user.activeCardCount === 1 ? "1 activa" : `${user.activeCardCount} activas`}</td>
      <td data-label="Acciones">
        <div className="actions">
          <ActionLink to={linkTo("detail")} label="Ver" target={user.username} />
          <ActionLink to={linkTo("edit")} label="Editar" target={user.username} />
          {user.status === "active" ? (
            <ActionLink
              to={linkTo("inactivate")}
              label="Inactivar"
              target={user.username}
              disabledReason={isAdmin ? "No se puede inactivar a un administrador" : undefined}
            />
          ) : (
            <ActionLink to={linkTo("activate")} label="Activar" target={user.username} tone="primary" />
          )}
          <ActionLink
            to={linkTo("delete")}
            label="Eliminar"
            target={user.username}
            tone="danger"
            disabledReason={isAdmin ? "No se puede eliminar a un administrador" : undefined}
          />
        </div>
      </td>
    </tr>
  );
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
