// Swipe-to-relay latency through the whole door chain: mock serial reader →
// bridge → embedded MQTT broker → access service → libSQL → bridge → relay
// bytes. Online, then offline (broker down: decided from the cached list).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SerialPortMock } from "serialport";

const ONLINE_SWIPES = Number(process.env.BENCH_ONLINE ?? 500);
const OFFLINE_SWIPES = Number(process.env.BENCH_OFFLINE ?? 200);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-bridge-"));
Object.assign(process.env, { DATABASE_URL: `file:${dir}/app.db`, DATA_DIR: dir, ACCESS_SERVICE: "off", NODE_ENV: "production" });

const { migrateDatabase, getDb } = await import("~/utils/db.server");
const { startAccessService } = await import("~/access/service.server");
const { useAccessNotifier } = await import("~/access/notify.server");
const { provisionDoor } = await import("~/services/doors.server");
const { setCardPermission } = await import("~/services/cards.server");
const { registerCard } = await import("~/models/card.server");
const { startBridge } = await import("../../bridge/src/controller");
const { LCUS1_OPEN } = await import("../../bridge/src/locks/lcus1");

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
function summary(latencies: number[]) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const round = (v: number) => Math.round(v * 100) / 100;
  return { swipes: sorted.length, p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted[sorted.length - 1]!) };
}
function frame(tagHex: string) {
  const bytes = Buffer.from(`01${tagHex}`, "hex");
  const checksum = bytes.reduce((x, b) => x ^ b, 0).toString(16).padStart(2, "0");
  return Buffer.concat([Buffer.from([2]), Buffer.from(`01${tagHex}${checksum}`.toUpperCase()), Buffer.from([3])]);
}

await migrateDatabase(getDb(), path.resolve("drizzle"));
let service = await startAccessService({ host: "127.0.0.1", port: 0, credentialsDebounceMs: 20 });
// This script's door and card changes reach the service it runs.
useAccessNotifier(service.notifier);
const port = service.mqttPort!;
const { door, credential } = await provisionDoor("bench-door", { name: "Bench", location: "Bench" });
const cardNumbers = Array.from({ length: Math.max(ONLINE_SWIPES, OFFLINE_SWIPES) }, (_, i) => (0x10000000 + i).toString(16).toUpperCase());
for (const cardNumber of cardNumbers) {
  const card = await registerCard({ cardNumber, status: "active" });
  await setCardPermission(card.id, door.id, true);
}

for (const p of ["/dev/bench-reader", "/dev/bench-relay", "/dev/bench-lcd"]) SerialPortMock.binding.createPort(p, { echo: false, record: true });
const ports: { reader?: SerialPortMock } = {};
let onOpen: (() => void) | null = null;
const bridge = await startBridge(
  {
    doorId: door.code,
    mqtt: { url: `mqtt://127.0.0.1:${port}`, password: credential.password, reconnectMinMs: 50, reconnectMaxMs: 200 },
    reader: { driver: "rdm6300", port: "/dev/bench-reader" },
    display: { driver: "serlcd", port: "/dev/bench-lcd" },
    lock: { driver: "lcus1", port: "/dev/bench-relay" },
    dataDir: path.join(dir, "bridge"),
    unlockMs: 100,
    displayHoldMs: 100,
  },
  {
    serialPortFactory: (options) => {
      const serial = new SerialPortMock({ path: options.path, baudRate: options.baudRate, autoOpen: false });
      if (options.path === "/dev/bench-reader") ports.reader = serial;
      if (options.path === "/dev/bench-relay") {
        const write = serial.write.bind(serial);
        serial.write = ((chunk: Buffer, ...rest: unknown[]) => {
          if (Buffer.isBuffer(chunk) && chunk.equals(LCUS1_OPEN)) onOpen?.();
          return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
        }) as typeof serial.write;
      }
      return serial;
    },
    logger: { debug() {}, info() {}, warn() {}, error() {} },
  },
);
const waitUntil = async (condition: () => boolean) => {
  while (!condition()) await new Promise((r) => setTimeout(r, 10));
};
await waitUntil(() => bridge.status().connected && (bridge.status().credentialsVersion ?? 0) > 0);

async function swipeLatency(cardNumber: string) {
  const opened = new Promise<void>((resolve) => (onOpen = resolve));
  const started = performance.now();
  ports.reader!.port!.emitData(frame(cardNumber));
  await opened;
  const latency = performance.now() - started;
  await new Promise((r) => setTimeout(r, 120)); // let the unlock close again
  return latency;
}

const online: number[] = [];
for (let i = 0; i < ONLINE_SWIPES; i++) online.push(await swipeLatency(cardNumbers[i]!));
console.log(JSON.stringify({ mode: "online", ...summary(online) }));

await service.stop();
await waitUntil(() => !bridge.status().connected);
const offline: number[] = [];
for (let i = 0; i < OFFLINE_SWIPES; i++) offline.push(await swipeLatency(cardNumbers[i]!));
console.log(JSON.stringify({ mode: "offline (broker down, cached list)", ...summary(offline), queued: bridge.status().pendingEvents }));

service = await startAccessService({ host: "127.0.0.1", port });
useAccessNotifier(service.notifier);
await waitUntil(() => bridge.status().pendingEvents === 0);
const [row] = (await getDb().$client.execute("SELECT count(*) AS n FROM access_logs")).rows;
console.log(JSON.stringify({ logRows: Number(row!.n), expected: ONLINE_SWIPES + OFFLINE_SWIPES }));
await bridge.stop();
await service.stop();
process.exit(0);
