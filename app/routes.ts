// The route config (Remix's v3_routeConfig): the flat-routes file convention
// over app/routes/, with the ignored files named in remix.config.js. The JSON
// API's files (`api.*`) are served by the one splat route `api.$.ts`
// (app/routes/api-routes.server.ts, ADR 0010): Remix walks its whole route
// list several times per request, and those 69 files were two thirds of it.
import { flatRoutes } from "@remix-run/fs-routes";
import type { RouteConfig } from "@remix-run/route-config";
import { ignoredRouteFiles } from "../remix.config.js";

export default flatRoutes({ ignoredRouteFiles: [...ignoredRouteFiles, "**/api.[a-z]*"] }) satisfies RouteConfig;
