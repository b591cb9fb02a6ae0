// The server's route matching (patches/@remix-run+router+*.patch, ADR 0007):
// Node's build of @remix-run/router flattens and ranks a route tree once and
// compiles each pattern once, instead of on every request. Matching must
// give the same answers as before, whatever order the paths come in.
import fs from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const routerFile = require.resolve("@remix-run/router");
const { matchRoutes } = require(routerFile) as typeof import("@remix-run/router");

const tree = [
  {
    id: "root",
    path: "",
    children: [
      { id: "routes/_index", index: true },
      { id: "routes/reservar", path: "reservar" },
      { id: "routes/admin", path: "admin", children: [{ id: "routes/admin._index", index: true }, { id: "routes/admin.users", path: "users" }] },
      { id: "routes/api.cards.$id", path: "api/cards/:id" },
      { id: "routes/api.cards.$id.approve", path: "api/cards/:id/approve" },
      { id: "routes/$", path: "*" },
    ],
  },
];

const leaf = (path: string) => {
  const matches = matchRoutes(tree, path);
  const last = matches?.at(-1);
  return last ? { id: last.route.id, params: last.params } : null;
};

describe("route matching on the server", () => {
  it("is Node's patched build", () => {
    expect(routerFile).toMatch(/router\.cjs\.js$/);
    const source = fs.readFileSync(routerFile, "utf8");
    expect(source).toContain("rankedBranchesCache");
    expect(source).toContain("compiledPaths");
    expect(source).toContain("matchAnswersCache");
  });

  it("answers each path with its own route and params when one tree is matched again and again", () => {
    for (let round = 0; round < 3; round++) {
      expect(leaf("/")).toEqual({ id: "routes/_index", params: {} });
      expect(leaf("/reservar")).toEqual({ id: "routes/reservar", params: {} });
      expect(leaf("/RESERVAR/")).toEqual({ id: "routes/reservar", params: {} });
      expect(leaf("/admin")).toEqual({ id: "routes/admin._index", params: {} });
      expect(leaf("/admin/users")).toEqual({ id: "routes/admin.users", params: {} });
      expect(leaf("/api/cards/abc")).toEqual({ id: "routes/api.cards.$id", params: { id: "abc" } });
      expect(leaf("/api/cards/x%20y/approve")).toEqual({ id: "routes/api.cards.$id.approve", params: { id: "x y" } });
      expect(leaf("/no/such/page")).toEqual({ id: "routes/$", params: { "*": "no/such/page" } });
    }
  });

  it("matches a new tree by its own routes, not a cached one", () => {
    const other = [{ id: "only", path: "/solo" }];
    expect(matchRoutes(other, "/solo")?.[0]?.route.id).toBe("only");
    expect(matchRoutes(other, "/reservar")).toBeNull();
    expect(leaf("/reservar")).toEqual({ id: "routes/reservar", params: {} });
  });

  it("hands out copies of a remembered answer, so a caller that changes one changes nothing for the next", () => {
    const first = matchRoutes(tree, "/api/cards/abc")!;
    (first.at(-1)!.params as Record<string, string>).id = "changed";
    first.pop();
    const again = matchRoutes(tree, "/api/cards/abc")!;
    expect(again.map((match) => match.route.id)).toEqual(["root", "routes/api.cards.$id"]);
    expect(again.at(-1)!.params).toEqual({ id: "abc" });
  });

  it("still answers right after more pathnames than it remembers", () => {
    for (let i = 0; i < 2500; i++) expect(leaf(`/api/cards/card-${i}`)).toEqual({ id: "routes/api.cards.$id", params: { id: `card-${i}` } });
    expect(leaf("/reservar")).toEqual({ id: "routes/reservar", params: {} });
  });
});
