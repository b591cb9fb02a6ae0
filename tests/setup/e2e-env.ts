// One place for the end-to-end server's environment: the Playwright config
// starts the server with it, the fixtures open the same database with it.
import os from "node:os";
import path from "node:path";

const port = Number(process.env.E2E_PORT ?? 4783);
const root = path.join(os.tmpdir(), "coliving-tests", `e2e-${port}`);
const mqttPort = Number(process.env.E2E_MQTT_PORT ?? 4883);

export const E2E = {
  root,
  port,
  mqttPort,
  baseURL: `http://127.0.0.1:${port}`,
  serverEnv: {
    NODE_ENV: "production",
    PORT: String(port),
    HOST: "127.0.0.1",
    DATABASE_URL: `file:${path.join(root, "app.db")}`,
    DATA_DIR: root,
    // The audit trail's key and published head: a fresh one with each fresh database.
    KEYS_DIR: `${root}-keys`,
    SESSION_SECRET: "e2e-session-secret-that-is-long-enough-123",
    ADMIN_USERNAME: "admin",
    ADMIN_PASSWORD: "admin-e2e-password",
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    // No SMTP server: guests' mail and staff notices land in the outbox.
    STAFF_EMAIL: "personal@lacasona.test",
    // Each test sends its own X-Forwarded-For, so per-IP limits stay per test.
    TRUST_PROXY: "true",
    // The whole product runs: web app, embedded broker and access service.
    ACCESS_SERVICE: "on",
    MQTT_HOST: "127.0.0.1",
    MQTT_PORT: String(mqttPort),
    // GET /metrics answers this bearer token (tests/e2e/metrics.spec.ts).
    METRICS_TOKEN: "e2e-metrics-token-0123456789",
    // Cheap password hashes (2^10 instead of 2^15) for the server and the
    // fixtures' users alike: every signed-in test creates a user.
    PASSWORD_HASH_COST: "10",
  } as Record<string, string>,
};
