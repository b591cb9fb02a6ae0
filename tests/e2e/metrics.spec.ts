// GET /metrics (issue 26, part 3; docs/metrics.md) from the production build:
// one scrape carries the web process's series and the access service's (its
// forked child), after a real swipe decided by that child, and passes
// `promtool check metrics`. Runs once (in the JavaScript project): it speaks
// HTTP and MQTT, not through a page.
import { spawnSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { FakeBridge } from "../setup/access";
import { E2E } from "../setup/e2e-env";
import { expect, test } from "./fixtures";

const { createTestDoor } = await import("../setup/fixtures");
const { rotateBridgeCredential } = await import("~/services/doors.server");

const TOKEN = E2E.serverEnv.METRICS_TOKEN!;
const metricsUrl = `${E2E.baseURL}/metrics`;

async function scrape() {
  const response = await fetch(metricsUrl, { headers: { Authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/plain");
  return response.text();
}

/** The value of the sample `name` whose labels include `labels` (0 when there is none). */
function sample(body: string, name: string, labels: Record<string, string>) {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const line = body.split("\n").find((text) => {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(text);
    return match?.[1] === name && wanted.every((pair) => (match[2] ?? "").split(",").includes(pair));
  });
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

test("a scraper without the token gets 401", async ({ javaScriptEnabled }) => {
  expect(javaScriptEnabled).toBe(true);
  const none = await fetch(metricsUrl);
  expect(none.status).toBe(401);
  expect(none.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
  expect((await fetch(metricsUrl, { headers: { Authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
  expect((await fetch(metricsUrl, { headers: { Authorization: TOKEN } })).status).toBe(401);
});

test("one scrape holds both processes' series, a door decision among them, and promtool accepts it", async () => {
  const door = await createTestDoor({ name: `Metricas ${randomUUID().slice(0, 6)}` });
  const rotated = await rotateBridgeCredential(door.id);
  if (!rotated.ok) throw new Error(rotated.message);
  const card = randomBytes(4).toString("hex").toUpperCase();
  const before = await scrape();
  const denied = { result: "denied", reason: "unknown_card", process: "access" };

  const bridge = await FakeBridge.connect(`mqtt://127.0.0.1:${E2E.mqttPort}`, rotated.credential.username, rotated.credential.password);
  try {
    await bridge.publishJson("state", { online: true, version: "1.0.0" }, { retain: true });
    expect(await bridge.swipe(card)).toMatchObject({ granted: false, reason: "unknown_card" });
    const event = randomUUID();
    await bridge.publishJson("events", { id: event, card, at: new Date().toISOString(), granted: false, reason: "offline_deny", offline: true });
    await bridge.waitForReceipt(event, { as: "event" });
    // A route with a parameter: its series names the route's pattern, not the URL.
    const cardPath = `/api/cards/${randomUUID()}`;
    expect((await fetch(`${E2E.baseURL}${cardPath}`)).status).toBe(401);

    // The door's state is recorded after its database write: poll for it.
    await expect.poll(async () => sample(await scrape(), "doors_online", { process: "access" })).toBeGreaterThanOrEqual(1);
    const body = await scrape();

    // The access service's series, from its own process.
    expect(sample(body, "door_decisions_total", denied)).toBeGreaterThanOrEqual(sample(before, "door_decisions_total", denied) + 1);
    const decisions = (text: string) => sample(text, "door_decision_duration_seconds_count", { process: "access" });
    expect(decisions(body)).toBeGreaterThanOrEqual(decisions(before) + 1);
    expect(sample(body, "door_decision_duration_seconds_bucket", { le: "+Inf", process: "access" })).toBe(decisions(body));
    const offline = { kind: "offline_decision", process: "access" };
    expect(sample(body, "door_queued_events_received_total", offline)).toBeGreaterThanOrEqual(sample(before, "door_queued_events_received_total", offline) + 1);
    expect(sample(body, "nodejs_heap_size_used_bytes", { process: "access" })).toBeGreaterThan(0);

    // The web process's series, and the child answered this scrape.
    expect(sample(body, "metrics_source_up", { source: "access", process: "web" })).toBe(1);
    expect(sample(body, "http_request_duration_seconds_count", { route: "/api/cards/:id", method: "GET", status: "401", process: "web" })).toBeGreaterThanOrEqual(1);
    expect(sample(body, "http_request_duration_seconds_count", { route: "/healthz", method: "GET", status: "200", process: "web" })).toBeGreaterThanOrEqual(1);
    expect(sample(body, "database_size_bytes", { file: "main", process: "web" })).toBeGreaterThan(0);
    expect(body).toMatch(/^sign_in_failures_total\{reason="bad_credentials",process="web"\} \d+$/m);
    expect(body).toMatch(/^backup_last_success_timestamp_seconds\{process="web"\} \S+$/m);
    expect(body).toMatch(/^backup_last_size_bytes\{process="web"\} \S+$/m);
    // No URL, card or door in any label.
    expect(body).not.toContain(cardPath);
    expect(body).not.toContain(card);
    expect(body).not.toContain(door.code);

    const promtool = spawnSync("promtool", ["check", "metrics"], { input: body, encoding: "utf8" });
    expect(promtool.stdout + promtool.stderr).toBe("");
    expect(promtool.status).toBe(0);
  } finally {
    await bridge.publishJson("state", { online: false }, { retain: true });
    await bridge.end();
  }
});
