// GET /metrics (issue 26, part 3; docs/metrics.md) in this process: the
// bearer guard (404 while METRICS_TOKEN is unset, 401 unless it is sent),
// and the web process's own series, read from what really happened: refused
// sign-ins, a backup archive made here, this file's libSQL database. The
// scrape across both processes, with a door decision and promtool, is
// tests/e2e/metrics.spec.ts.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import * as apiLogin from "~/routes/api.auth.login";
import * as metrics from "~/routes/metrics";
import { createBackup, databaseFile } from "~/services/backups.server";
import { resetEnvForTests } from "~/utils/env.server";
import { createTestUser } from "../setup/fixtures";
import { callRoute, jsonRequest } from "../setup/route";

const TOKEN = "metrics-token-for-tests-0123";

afterEach(() => {
  delete process.env.METRICS_TOKEN;
  delete process.env.BACKUP_DIR;
  resetEnvForTests();
});

function useToken() {
  process.env.METRICS_TOKEN = TOKEN;
  resetEnvForTests();
}

function scrapeWith(headers: Record<string, string> = {}) {
  return callRoute(metrics.loader, new Request("http://localhost/metrics", { headers }));
}

async function scrape() {
  const response = await scrapeWith({ Authorization: `Bearer ${TOKEN}` });
  expect(response.status).toBe(200);
  return response.text();
}

/** The value of an unlabelled sample, or of the one with exactly these labels. */
function sample(body: string, name: string, labels = "") {
  const prefix = `${name}${labels ? `{${labels}}` : ""} `;
  const line = body.split("\n").find((text) => text.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(prefix.length));
}

describe("GET /metrics", () => {
  it("does not exist while METRICS_TOKEN is unset, and answers only its bearer token once set", async () => {
    expect((await scrapeWith()).status).toBe(404);
    expect((await scrapeWith({ Authorization: `Bearer ${TOKEN}` })).status).toBe(404);

    useToken();
    const callers: Record<string, string>[] = [{}, { Authorization: "Bearer wrong-token-0123456789" }, { Authorization: TOKEN }, { Authorization: `Basic ${TOKEN}` }];
    for (const headers of callers) {
      const refused = await scrapeWith(headers);
      expect(refused.status, JSON.stringify(headers)).toBe(401);
      expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
      expect(await refused.json()).toEqual({ success: false, error: { message: "Token inválido" } });
    }
    const response = await scrapeWith({ Authorization: `Bearer ${TOKEN}` });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
  });

  it("counts refused sign-ins by reason, from zero", async () => {
    useToken();
    const before = await scrape();
    for (const reason of ["bad_credentials", "inactive", "rate_limited"]) expect(sample(before, "sign_in_failures_total", `reason="${reason}"`)).toBeGreaterThanOrEqual(0);
    const inactive = await createTestUser({ password: "contraseña-buena-1", status: "inactive" });
    const signIn = (username: string, password: string) =>
      callRoute(apiLogin.action, jsonRequest("/api/auth/login", { method: "POST", body: { username, password }, ip: "198.51.100.77" }));
    expect((await signIn("nadie-metricas", "x")).status).toBe(401);
    expect((await signIn(inactive.username, "contraseña-buena-1")).status).toBe(401);
    const after = await scrape();
    expect(sample(after, "sign_in_failures_total", 'reason="bad_credentials"')).toBe(sample(before, "sign_in_failures_total", 'reason="bad_credentials"')! + 1);
    expect(sample(after, "sign_in_failures_total", 'reason="inactive"')).toBe(sample(before, "sign_in_failures_total", 'reason="inactive"')! + 1);
  });

  it("says when the newest backup was made and its size, and the database's size on disk", async () => {
    useToken();
    process.env.BACKUP_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "metrics-backups-"));
    resetEnvForTests();
    const none = await scrape();
    expect(sample(none, "backup_last_success_timestamp_seconds")).toBe(0);
    expect(sample(none, "backup_last_size_bytes")).toBe(0);

    const made = await createBackup("manual");
    if (!made.ok) throw new Error(made.message);
    const body = await scrape();
    expect(sample(body, "backup_last_success_timestamp_seconds")).toBe(made.backup.createdAt.getTime() / 1000);
    expect(sample(body, "backup_last_size_bytes")).toBe(made.backup.sizeBytes);
    expect(sample(body, "backup_last_size_bytes")).toBeGreaterThan(0);
    expect(sample(body, "database_size_bytes", 'file="main"')).toBe(fs.statSync(databaseFile()!).size);
    fs.rmSync(process.env.BACKUP_DIR, { recursive: true, force: true });
  });
});
