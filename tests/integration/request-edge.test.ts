// What is refused where a request arrives (issue 25, points 2, 7 and 9): the
// node:http server with the app's edge (http-edge.server.ts) in front of real route actions, as remix-serve
// runs them (the body streamed from the socket). Bodies over their cap answer
// 413, declared (before the app sees them) or streamed (the app stops
// reading), and nothing oversized is echoed; a page's cross-site post is a
// 403 with the app's Spanish refusal, logged once; private answers are not
// stored by caches.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createReadableStreamFromReadable } from "@remix-run/node";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as reservationsRoute from "~/routes/api.anonymous-reservations";
import * as reservarPage from "~/routes/reservar";
import * as loginRoute from "~/routes/api.auth.login";
import * as profileRoute from "~/routes/api.user-portal.profile";
import { markPrivate } from "~/utils/headers";
import { installHttpEdge } from "~/utils/http-edge.server";
import { BODY_TOO_LARGE, MAX_BODY_BYTES } from "~/utils/request-body.server";
import { CROSS_ORIGIN } from "~/utils/same-origin.server";
import { postSlowly } from "../setup/http-client";
import { callRoute } from "../setup/route";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Action = (args: any) => unknown;
const ACTIONS: Record<string, Action> = {
  "/api/anonymous-reservations": reservationsRoute.action,
  "/reservar": reservarPage.action,
};

let server: http.Server;
let port: number;
/** Requests that reached the app (past the patch), by path. */
const reached: string[] = [];

beforeAll(async () => {
  installHttpEdge();
  server = http.createServer(async (req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    reached.push(path);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers,
      ...(hasBody ? { body: createReadableStreamFromReadable(req), duplex: "half" } : {}),
    } as RequestInit);
    const action = ACTIONS[path];
    const response = action ? await callRoute(action, request) : new Response("ok");
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

const send = (path: string, options: Parameters<typeof postSlowly>[1]) =>
  postSlowly(`http://127.0.0.1:${port}${path}`, { ...options, headers: { Origin: `http://127.0.0.1:${port}`, ...options.headers } });

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const JSON_TYPE = { "Content-Type": "application/json" };
const FORM_TYPE = { "Content-Type": "application/x-www-form-urlencoded" };

describe("a body over its cap", () => {
  it("declared by Content-Length is a 413 before the app sees it (JSON API)", async () => {
    reached.length = 0;
    const answer = await send("/api/anonymous-reservations", { headers: JSON_TYPE, contentLength: 300 * 1024 * 1024, prefix: '{"guestName":"', fill: 256 * 1024 });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({ success: false, error: { message: BODY_TOO_LARGE } });
    expect(answer.headers.connection).toBe("close");
    expect(reached).toEqual([]);
  });

  it("streamed (chunked) is a 413 once the cap has come in, and the connection closes", async () => {
    const answer = await send("/api/anonymous-reservations", { headers: JSON_TYPE, prefix: '{"guestName":"', fill: 8 * 1024 * 1024 });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({ success: false, error: { message: BODY_TOO_LARGE } });
    expect(answer.headers.connection).toBe("close");
  });

  it("on a page form is a 413 that never echoes the value, declared or streamed", async () => {
    const declared = await send("/reservar", { headers: FORM_TYPE, contentLength: 20 * 1024 * 1024, prefix: "guestName=Ana&specialRequests=", fill: 128 * 1024 });
    expect(declared.status).toBe(413);
    expect(declared.headers["content-type"]).toContain("text/html");
    expect(declared.body).toContain(BODY_TOO_LARGE);
    expect(declared.body.length).toBeLessThan(2048);

    const streamed = await send("/reservar", { headers: FORM_TYPE, prefix: "guestName=Ana&specialRequests=", fill: 2 * 1024 * 1024 });
    expect(streamed.status).toBe(413);
    expect(streamed.body).not.toContain("aaaaaaaa");
    expect(streamed.body.length).toBeLessThan(2048);
  });

  it("is read when within the cap (a 400 for its content, not a 413)", async () => {
    const body = JSON.stringify({ guestName: "a".repeat(MAX_BODY_BYTES - 1024) });
    const answer = await send("/api/anonymous-reservations", { headers: JSON_TYPE, prefix: body, contentLength: Buffer.byteLength(body) });
    expect(answer.status).toBe(400);
    expect(answer.headers.connection).not.toBe("close");
  });
});

describe("a page's cross-site post", () => {
  it.each(["/reservar", "/consulta", "/portal", "/admin/users", "/login", "/reservar.data"])("to %s is a 403 with the Spanish refusal, logged once", async (path) => {
    reached.length = 0;
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const error = vi.spyOn(console, "error");
    try {
      const answer = await send(path, { headers: { ...FORM_TYPE, Origin: "https://evil.example" }, prefix: "a=1", contentLength: 3 });
      expect(answer.status).toBe(403);
      expect(answer.body).toContain(CROSS_ORIGIN);
      expect(reached).toEqual([]);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]![0])).toContain(`refused POST ${path}: 403 cross-site`);
      expect(error).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  });

  it("without Origin but marked cross-site, or from an opaque origin, is a 403 too", async () => {
    const cases: Record<string, string>[] = [{ Origin: "null" }, { Origin: "no es una url" }, { Origin: "", "Sec-Fetch-Site": "cross-site" }];
    for (const headers of cases) {
      const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
      const answer = await send("/reservar", { headers: { ...FORM_TYPE, ...headers }, prefix: "a=1", contentLength: 3 });
      warn.mockRestore();
      expect(answer.status).toBe(403);
    }
  });

  it("from our own origin reaches the app", async () => {
    reached.length = 0;
    const answer = await send("/consulta", { headers: FORM_TYPE, prefix: "a=1", contentLength: 3 });
    expect(answer.status).toBe(200);
    expect(reached).toEqual(["/consulta"]);
  });
});

describe("private answers", () => {
  it("are sent with Cache-Control: no-store; public pages are not", async () => {
    const cacheControl = (path: string) => {
      const headers = new Headers();
      markPrivate(headers, path);
      return headers.get("cache-control");
    };
    for (const path of ["/admin", "/admin/users", "/admin/cards.data", "/portal", "/portal.data", "/api/user-portal/profile", "/api/auth/login"]) {
      expect(cacheControl(path), path).toBe("no-store");
    }
    for (const path of ["/", "/reservar", "/administracion", "/portales", "/api/user-portal/bookings"]) {
      expect(cacheControl(path), path).toBeNull();
    }
  });

  it("say so from the private API routes, refusals included", async () => {
    const profile = await callRoute(profileRoute.loader, new Request("http://localhost/api/user-portal/profile"));
    expect(profile.status).toBe(401);
    expect(profile.headers.get("cache-control")).toBe("no-store");
    const login = await callRoute(loginRoute.loader, new Request("http://localhost/api/auth/login"));
    expect(login.status).toBe(405);
    expect(login.headers.get("cache-control")).toBe("no-store");
  });
});
