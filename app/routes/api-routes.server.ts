// The JSON API's routes, served by the one splat route `api.$.ts` once the
// route config leaves the `api.*` files out (app/routes.ts). Remix matches
// every request against every route several times (its server, its router,
// its lazy route discovery), and each match walks the whole list: the 69
// API files were two thirds of it, about 1 ms of each page's CPU. Each file
// keeps its loader and action and its flat-routes name
// (`api.cards.$id.permissions.$doorId.ts` answers
// `/api/cards/:id/permissions/:doorId`); only API requests walk this list.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { matchRoutes } from "@remix-run/react";
import { methodNotAllowed } from "~/utils/api.server";
import { addRoutePaths } from "~/utils/http-metrics.server";
import { throwRefusal } from "~/utils/refusal.server";

type Handler = (args: LoaderFunctionArgs | ActionFunctionArgs) => unknown;
type ApiModule = { loader?: Handler; action?: Handler };

const modules = import.meta.glob<ApiModule>(["./api.*.ts", "!./api.$.ts", "!./*.server.ts", "!./*.test.ts"], { eager: true });

/** A flat-routes file name as its URL pattern: `./api.cards.$id.ts` → `/api/cards/:id` (`$` alone: a splat). */
export function pathOfRouteFile(file: string): string {
  const segments = file
    .replace(/^\.\//, "")
    .replace(/\.tsx?$/, "")
    .split(".");
  return "/" + segments.map((segment) => (segment === "$" ? "*" : segment.startsWith("$") ? `:${segment.slice(1)}` : segment)).join("/");
}

export const API_ROUTES = Object.entries(modules).map(([file, module]) => ({ id: file, path: pathOfRouteFile(file), module }));
const byId = new Map(API_ROUTES.map((route) => [route.id, route]));
const patterns = API_ROUTES.map(({ id, path }) => ({ id, path }));
addRoutePaths(API_ROUTES.map((route) => route.path));

/** The API route answering `pathname` and its params, or null. Remix's own matcher, so the same route wins. */
export function matchApiRoute(pathname: string) {
  const [match] = matchRoutes(patterns, pathname) ?? [];
  const route = match && byId.get(match.route.id!);
  return route ? { route, params: match.params } : null;
}

/** Runs the loader (GET, HEAD) or action (any other method) of the API route that answers the request. */
export async function dispatchApi(args: LoaderFunctionArgs | ActionFunctionArgs, kind: "loader" | "action") {
  const matched = matchApiRoute(new URL(args.request.url).pathname);
  // Unknown /api/* paths answer JSON, never the HTML 404 page.
  if (!matched) throwRefusal({ status: 404, message: "Recurso no encontrado" });
  const handler = matched.route.module[kind];
  if (!handler) methodNotAllowed();
  return handler({ ...args, params: matched.params });
}
