// The route config (Remix's v3_routeConfig): the flat-routes file convention
// over app/routes/, with the ignored files named in remix.config.js.
import { flatRoutes } from "@remix-run/fs-routes";
import type { RouteConfig } from "@remix-run/route-config";
import { ignoredRouteFiles } from "../remix.config.js";

export default flatRoutes({ ignoredRouteFiles }) satisfies RouteConfig;
