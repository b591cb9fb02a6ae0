// The JSON API behind one splat route (app/routes/api-routes.server.ts):
// every api.* file answers the URL its flat-routes name gives, with the
// params Remix would give it; the method picks the loader or the action;
// unknown paths and missing handlers answer JSON refusals.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as doorsStats from "~/routes/api.doors.stats";
import { API_ROUTES, matchApiRoute, pathOfRouteFile } from "~/routes/api-routes.server";
import * as splat from "~/routes/api.$";
import { callRoute, jsonRequest } from "../setup/route";

const routeFiles = fs.readdirSync(path.resolve("app/routes")).filter((name) => /^api\..+\.ts$/.test(name) && name !== "api.$.ts" && !/\.(server|test)\.ts$/.test(name));

describe("the API's routes", () => {
  it("are every api.* file, each at its flat-routes URL", async () => {
    expect(API_ROUTES.map((route) => route.id.replace(/^\.\//, "")).sort()).toEqual([...routeFiles].sort());
    expect(pathOfRouteFile("./api.cards.$id.permissions.$doorId.ts")).toBe("/api/cards/:id/permissions/:doorId");
    expect(pathOfRouteFile("./api.doors.stats.ts")).toBe("/api/doors/stats");
    expect(pathOfRouteFile("./api.$.ts")).toBe("/api/*");
    for (const file of routeFiles) {
      const module = await import(`../../app/routes/${file.replace(/\.ts$/, "")}.ts`);
      const url = pathOfRouteFile(file).replace(/:(\w+)/g, (_, name: string) => `sample-${name}`);
      const matched = matchApiRoute(url);
      expect(matched?.route.module, url).toBe(module);
      const names = [...pathOfRouteFile(file).matchAll(/:(\w+)/g)].map((match) => match[1]!);
      expect(matched!.params, url).toEqual(Object.fromEntries(names.map((name) => [name, `sample-${name}`])));
    }
  });

  it("a static segment wins over a param, as in Remix: /api/doors/stats is not /api/doors/:id", () => {
    expect(matchApiRoute("/api/doors/stats")?.route.path).toBe("/api/doors/stats");
    expect(matchApiRoute("/api/doors/D-1")?.route.path).toBe("/api/doors/:id");
    expect(matchApiRoute("/api/anonymous-reservations/code/ABC123/cancel")?.route.path).toBe("/api/anonymous-reservations/code/:code/cancel");
    expect(matchApiRoute("/api/nope/nothing")).toBeNull();
  });

  it("the splat route runs the matched loader or action, and refuses unknown paths and missing handlers with JSON", async () => {
    const direct = await callRoute(doorsStats.loader, jsonRequest("/api/doors/stats"));
    const dispatched = await callRoute(splat.loader, jsonRequest("/api/doors/stats"));
    expect(dispatched.status).toBe(direct.status);
    expect(await dispatched.json()).toEqual(await direct.json());

    const unknown = await callRoute(splat.loader, jsonRequest("/api/nope"));
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).success).toBe(false);
    expect((await callRoute(splat.action, jsonRequest("/api/door-alarms", { method: "POST", body: {} }))).status).toBe(405);
    expect((await callRoute(splat.loader, jsonRequest("/api/holidays/1"))).status).toBe(405);
  });
});
