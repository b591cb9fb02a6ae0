import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { dispatchApi } from "./api-routes.server";

// Every /api/* path no other route answers: the API's own routes (api-routes.server.ts), or a JSON 404.
export async function loader(args: LoaderFunctionArgs) {
  return dispatchApi(args, "loader");
}

export async function action(args: ActionFunctionArgs) {
  return dispatchApi(args, "action");
}
