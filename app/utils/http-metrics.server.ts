// HTTP request durations for GET /metrics, by route template, method and
// status. The patch of http.Server (http-server-patch.server.ts) times every
// request; the route is the pattern of the Remix route that answers the URL
// (`/api/cards/:id`, never the URL itself, which would give every card its own
// series), found as Remix finds it: matchRoutes over the build's route
// manifest, which entry.server.tsx hands over with useRouteTable. A file
// remix-serve serves from the browser build (its assets, favicon) is
// `static`; Remix's data requests are their route's pattern plus `.data`.
import fs from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import type { ServerBuild } from "@remix-run/node";
import { matchRoutes } from "@remix-run/react";
import { Histogram } from "prom-client";
import { metricsRegistry } from "./metrics.server";

const requestDuration = new Histogram({
  name: "http_request_duration_seconds",
  help: "Time from a request's arrival to the end of its response, by route template, method and status.",
  labelNames: ["route", "method", "status"],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

/** Methods outside this list are counted as `other` (a client may send any word). */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

type RouteNode = Parameters<typeof matchRoutes>[0][number];
type RouteTable = { routes: RouteNode[]; staticFiles: Set<string> };

let table: RouteTable | null = null;

/** Nests the build's flat manifest (each route names its parent) as matchRoutes wants it. */
function nest(manifest: ServerBuild["routes"], parentId: string | undefined): RouteNode[] {
  return Object.values(manifest)
    .filter((route) => route.parentId === parentId)
    .map((route) =>
      route.index
        ? { id: route.id, index: true, caseSensitive: route.caseSensitive }
        : { id: route.id, path: route.path, caseSensitive: route.caseSensitive, children: nest(manifest, route.id) },
    );
}

function filesUnder(root: string, relative = ""): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(path.join(root, relative), { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const name = `${relative}/${entry.name}`;
    return entry.isDirectory() ? filesUnder(root, name) : [name];
  });
}

/** URL patterns answered inside a splat route (the API's, app/routes/api-routes.server.ts): their own templates. */
let extraPaths: string[] = [];
let buildRoutes: RouteNode[] = [];

/** The routes of the running build and the browser build's folder (remix-serve serves its files before Remix). */
export function useRouteTable(manifest: ServerBuild["routes"], assetsBuildDirectory: string) {
  buildRoutes = nest(manifest, undefined);
  table = { routes: withExtraPaths(), staticFiles: new Set(filesUnder(path.resolve(assetsBuildDirectory))) };
  templates.clear();
}

export function addRoutePaths(paths: string[]) {
  extraPaths = [...new Set([...extraPaths, ...paths])];
  if (table) table = { ...table, routes: withExtraPaths() };
  templates.clear();
}

function withExtraPaths(): RouteNode[] {
  return [...buildRoutes, ...extraPaths.map((routePath) => ({ id: `path:${routePath}`, path: routePath }))];
}

// Matching a path against the ~120 routes costs about a tenth of a cached
// public page's CPU (docs/performance.md): each path's template is kept,
// keyed by the exact pathname, the oldest forgotten past MAX_TEMPLATES.
const MAX_TEMPLATES = 2_000;
const templates = new Map<string, string>();

/** The route template answering `pathname`: its routes' paths joined (`/admin/cards`, `/api/cards/:id`, `/*`). */
export function routeTemplate(pathname: string): string {
  if (!table) return "unknown";
  let template = templates.get(pathname);
  if (template === undefined) {
    template = matchTemplate(table, pathname);
    if (templates.size >= MAX_TEMPLATES) templates.delete(templates.keys().next().value!);
    templates.set(pathname, template);
  }
  return template;
}

function matchTemplate(table: RouteTable, pathname: string): string {
  if (table.staticFiles.has(pathname)) return "static";
  const data = pathname.endsWith(".data");
  const routePath = data ? pathname.slice(0, -".data".length).replace(/^\/_root$/, "/") : pathname;
  const matches = matchRoutes(table.routes, routePath);
  if (!matches) return "unmatched";
  const template = "/" + matches.map((match) => match.route.path?.replace(/^\/+|\/+$/g, "")).filter(Boolean).join("/");
  return data ? `${template === "/" ? "/_root" : template}.data` : template;
}

/** Times the request until its response has been handed to the socket (the HTTP edge calls it for every request). */
export function timeRequest(req: IncomingMessage, res: ServerResponse, pathname: string) {
  const started = performance.now();
  res.once("finish", () => {
    const method = req.method && METHODS.has(req.method) ? req.method : "other";
    requestDuration.observe({ route: routeTemplate(pathname), method, status: String(res.statusCode) }, (performance.now() - started) / 1000);
  });
}
