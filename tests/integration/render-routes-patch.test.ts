// patches/@remix-run+react and patches/react-router-dom (ADR 0008): a page's
// render reuses its build's route tree instead of making a new one each time
// (Remix hands each render a new object of the same route modules), so the
// route matching's cache (ADR 0007) answers a render's matches.
import { createRequire } from "node:module";
import type { ReactElement } from "react";
import { describe, expect, it } from "vitest";

// As Node loads them for the server build: their CommonJS files.
const require = createRequire(import.meta.url);
const { createStaticRouter } = require("react-router-dom/server") as typeof import("react-router-dom/server");
const { RemixServer } = require(require.resolve("@remix-run/react")) as { RemixServer: (props: { context: unknown; url: string }) => ReactElement };

const location = { pathname: "/admin", search: "", hash: "", state: null, key: "default" };
const handlerContext = () => ({ basename: "/", location, matches: [], loaderData: {}, actionData: null, errors: null, statusCode: 200, loaderHeaders: {}, actionHeaders: {}, activeDeferreds: null });

describe("the route tree of a render", () => {
  it("is converted to data routes once per tree", () => {
    const routes = [{ id: "root", path: "/", children: [{ id: "admin", path: "admin" }] }];
    const first = createStaticRouter(routes, handlerContext() as never);
    const second = createStaticRouter(routes, handlerContext() as never);
    expect(second.routes).toBe(first.routes);
    expect(createStaticRouter([{ id: "other", path: "/" }], handlerContext() as never).routes).not.toBe(first.routes);
  });

  it("is made once per build by RemixServer, though each render brings a new object of the same route modules", () => {
    const modules = { root: { default: () => null }, "routes/admin": { default: () => null } };
    const manifest = {
      routes: {
        root: { id: "root", path: "", hasLoader: false, hasClientLoader: false, hasAction: false, hasClientAction: false, hasErrorBoundary: false, module: "/root.js" },
        "routes/admin": { id: "routes/admin", parentId: "root", path: "admin", hasLoader: false, hasClientLoader: false, hasAction: false, hasClientAction: false, hasErrorBoundary: false, module: "/admin.js" },
      },
    };
    const future = {};
    const render = (routeModules: Record<string, unknown>) =>
      RemixServer({ context: { manifest, routeModules, future, isSpaMode: false, staticHandlerContext: handlerContext(), serverHandoffString: "" }, url: "http://localhost/admin" });
    /** The routes of the static router the render hands to React Router. */
    const routesOf = (element: ReactElement): unknown => {
      const props = element.props as { router?: { routes: unknown }; children?: ReactElement | ReactElement[] };
      if (props.router) return props.router.routes;
      for (const child of [props.children].flat()) if (child && typeof child === "object") return routesOf(child);
      return undefined;
    };
    const first = routesOf(render({ ...modules }));
    expect(first).toBeDefined();
    expect(routesOf(render({ ...modules }))).toBe(first);
    // A changed module (a new build in development) makes a new tree.
    expect(routesOf(render({ ...modules, "routes/admin": { default: () => null } }))).not.toBe(first);
  });
});
