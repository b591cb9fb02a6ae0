// patches/@remix-run+server-runtime (ADR 0008): a loader or action gets the
// request Remix got when there is nothing to strip from it (no body, no
// `index`, `_data` or `_routes` parameter in its URL): each strip made a new
// undici Request, two per loader. What must not change: a parameter Remix
// strips is still stripped, and a request with a body still reaches its
// action whole.
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

// As Node loads it for the server build: its CommonJS file.
const require = createRequire(import.meta.url);
type RouteCall = (args: {
  loadContext: unknown;
  loader?: (args: { request: Request }) => unknown;
  action?: (args: { request: Request }) => unknown;
  params: Record<string, string>;
  request: Request;
  routeId: string;
  singleFetch: boolean;
}) => Promise<unknown>;
const { callRouteLoader, callRouteAction } = require("@remix-run/server-runtime/dist/data.js") as { callRouteLoader: RouteCall; callRouteAction: RouteCall };

async function requestSeenByLoader(request: Request, singleFetch = true) {
  let seen: Request | undefined;
  await callRouteLoader({ loadContext: {}, params: {}, routeId: "routes/page", singleFetch, request, loader: ({ request }) => ((seen = request), null) });
  return seen!;
}

describe("the request a loader or action gets", () => {
  it("is Remix's own request when there is nothing to strip", async () => {
    const request = new Request("http://localhost/admin/logs?page=2&door=D1", { headers: { Cookie: "session=x" } });
    expect(await requestSeenByLoader(request)).toBe(request);
    expect(await requestSeenByLoader(request, false)).toBe(request);
  });

  it("has the parameters Remix strips taken out, the others kept", async () => {
    const index = await requestSeenByLoader(new Request("http://localhost/?index&page=2"));
    expect(index.url).toBe("http://localhost/?page=2");
    const routes = await requestSeenByLoader(new Request("http://localhost/admin.data?_routes=routes%2Fadmin&page=3"));
    expect(routes.url).toBe("http://localhost/admin.data?page=3");
    const data = await requestSeenByLoader(new Request("http://localhost/admin?_data=routes%2Fadmin&page=4"), false);
    expect(data.url).toBe("http://localhost/admin?page=4");
    expect(index.signal.aborted).toBe(false);
  });

  it("carries a posted body to the action", async () => {
    const request = new Request("http://localhost/admin/cards", { method: "POST", body: new URLSearchParams({ intent: "set-alias", alias: "Portal" }) });
    let form: FormData | undefined;
    await callRouteAction({
      loadContext: {},
      params: {},
      routeId: "routes/admin.cards",
      singleFetch: true,
      request,
      action: async ({ request }) => ((form = await request.formData()), null),
    });
    expect(form?.get("alias")).toBe("Portal");
  });
});
