import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ServerBuild } from "@remix-run/node";
import { describe, expect, it } from "vitest";
import { routeTemplate, useRouteTable } from "./http-metrics.server";

// The shape of the build's manifest (build/server/index.js exports `routes`): flat, each route naming its parent.
const route = (id: string, parentId: string | undefined, fields: { path?: string; index?: boolean }) => ({ id, parentId, ...fields, module: {} });
const manifest = Object.fromEntries(
  [
    route("root", undefined, { path: "" }),
    route("routes/_index", "root", { index: true }),
    route("routes/admin", "root", { path: "admin" }),
    route("routes/admin._index", "routes/admin", { index: true }),
    route("routes/admin.cards", "routes/admin", { path: "cards" }),
    route("routes/api.cards.$id", "root", { path: "api/cards/:id" }),
    route("routes/api.cards.$id.permissions.$doorId", "root", { path: "api/cards/:id/permissions/:doorId" }),
    route("routes/$", "root", { path: "*" }),
  ].map((entry) => [entry.id, entry]),
) as unknown as ServerBuild["routes"];

describe("routeTemplate", () => {
  it("names the route's pattern, never the URL; the browser build's files are `static`", () => {
    expect(routeTemplate("/api/cards/1")).toBe("unknown");
    const assets = fs.mkdtempSync(path.join(os.tmpdir(), "assets-"));
    fs.mkdirSync(path.join(assets, "assets"));
    fs.writeFileSync(path.join(assets, "assets", "entry.client-abc.js"), "");
    fs.writeFileSync(path.join(assets, "favicon.ico"), "");
    useRouteTable(manifest, assets);
    expect(routeTemplate("/")).toBe("/");
    expect(routeTemplate("/admin")).toBe("/admin");
    expect(routeTemplate("/admin/cards")).toBe("/admin/cards");
    expect(routeTemplate("/api/cards/0A1B2C3D")).toBe("/api/cards/:id");
    expect(routeTemplate("/api/cards/0A1B2C3D/permissions/puerta-1")).toBe("/api/cards/:id/permissions/:doorId");
    expect(routeTemplate("/no/such/page")).toBe("/*");
    expect(routeTemplate("/admin/cards.data")).toBe("/admin/cards.data");
    expect(routeTemplate("/_root.data")).toBe("/_root.data");
    expect(routeTemplate("/assets/entry.client-abc.js")).toBe("static");
    expect(routeTemplate("/favicon.ico")).toBe("static");
    expect(routeTemplate("/assets/missing.js")).toBe("/*");
    fs.rmSync(assets, { recursive: true, force: true });
  });

  it("keeps each path's template, and forgets them all when the build's routes change", () => {
    const assets = fs.mkdtempSync(path.join(os.tmpdir(), "assets-"));
    useRouteTable(manifest, assets);
    for (let i = 0; i < 2_100; i++) expect(routeTemplate(`/api/cards/${i}`)).toBe("/api/cards/:id");
    expect(routeTemplate("/admin/cards")).toBe("/admin/cards");
    const renamed = { ...manifest, "routes/admin.cards": { ...manifest["routes/admin.cards"]!, path: "tarjetas" } } as ServerBuild["routes"];
    useRouteTable(renamed, assets);
    expect(routeTemplate("/admin/cards")).toBe("/*");
    expect(routeTemplate("/admin/tarjetas")).toBe("/admin/tarjetas");
    fs.rmSync(assets, { recursive: true, force: true });
  });
});
