import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { UserCreateSchema, UserListQuerySchema } from "~/schemas/user";
import { createUser, listUsers } from "~/services/users.server";
import { apiSuccess, apiSuccessWithMessage, methodNotAllowed, parseJsonBody, parseQuery, refuseApi } from "~/utils/api.server";
import { requireApiAdmin } from "~/utils/auth.server";

// GET /api/users?page&limit&search: {users, pagination: {page, limit, total, pages}}.
export async function loader({ request }: LoaderFunctionArgs) {
  await requireApiAdmin(request);
  return apiSuccess(await listUsers(parseQuery(request, UserListQuerySchema)));
}

// POST /api/users {username, email, password, firstName, lastName, department, phone, role, status, notes, unitNumber}.
export async function action({ request }: ActionFunctionArgs) {
  await requireApiAdmin(request);
  if (request.method !== "POST") methodNotAllowed();
  const created = await createUser(await parseJsonBody(request, UserCreateSchema));
  if (!created.ok) refuseApi(created);
  return apiSuccessWithMessage("Usuario creado exitosamente", created.user, 201);
}
