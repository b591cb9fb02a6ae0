// Issue 40, point 13: behind a reverse proxy with TRUST_PROXY off (the
// default), every client shares the proxy's address. The first request that
// carries X-Forwarded-For says so once in the log, and the admin dashboard
// warns from then on. Requests go through the real HTTP edge on a real socket.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as dashboard from "~/routes/admin._index";
import { resetEnvForTests } from "~/utils/env.server";
import { installHttpEdge } from "~/utils/http-edge.server";
import { resetUntrustedProxyForTests, UNTRUSTED_PROXY_LOG } from "~/utils/untrusted-proxy.server";
import { createTestUser, sessionCookie } from "../setup/fixtures";
import { callRoute, pageRequest } from "../setup/route";

let server: http.Server;
let url: string;
beforeAll(async () => {
  installHttpEdge();
  server = http.createServer((_req, res) => res.end("ok"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => {
  vi.restoreAllMocks();
  delete process.env.TRUST_PROXY;
  resetEnvForTests();
  resetUntrustedProxyForTests();
});

async function dashboardWarns() {
  const admin = await createTestUser({ role: "admin" });
  const response = await callRoute(dashboard.loader, pageRequest("/admin", await sessionCookie(admin.id)));
  return ((await response.json()) as { untrustedProxy: boolean }).untrustedProxy;
}

const proxyWarnings = (warn: { mock: { calls: unknown[][] } }) => warn.mock.calls.filter(([line]) => line === UNTRUSTED_PROXY_LOG).length;

describe("X-Forwarded-For with TRUST_PROXY off", () => {
  it("is said once in the log and on the dashboard", async () => {
    const warn = vi.spyOn(console, "warn");
    await fetch(url);
    expect(proxyWarnings(warn)).toBe(0);
    expect(await dashboardWarns()).toBe(false);
    for (const address of ["198.51.100.7", "198.51.100.8"]) await fetch(url, { headers: { "X-Forwarded-For": address } });
    expect(proxyWarnings(warn)).toBe(1);
    expect(await dashboardWarns()).toBe(true);
  });

  it("is not a warning with TRUST_PROXY on", async () => {
    process.env.TRUST_PROXY = "1";
    resetEnvForTests();
    const warn = vi.spyOn(console, "warn");
    await fetch(url, { headers: { "X-Forwarded-For": "198.51.100.9" } });
    expect(proxyWarnings(warn)).toBe(0);
    expect(await dashboardWarns()).toBe(false);
  });
});
