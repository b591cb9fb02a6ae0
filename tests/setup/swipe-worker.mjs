// A door's bridge in a worker thread (its own event loop): connects, and on
// the main thread's signal sends one swipe; when the decision arrives it
// notes what the main thread was doing at that moment (shared memory).
//
// workerData: { url, doorCode, password, card, state: SharedArrayBuffer(Int32 × 3) }
//   state[0]  written by the main thread: 0 not started, 1 its long work runs, 2 done
//   state[1]  written here: state[0] as it was when the decision arrived
//   state[2]  written here: 1 once the decision arrived
import { randomUUID } from "node:crypto";
import { parentPort, workerData } from "node:worker_threads";
import mqtt from "mqtt";

const { url, doorCode, password, card, state: buffer } = workerData;
const state = new Int32Array(buffer);
const client = await mqtt.connectAsync(url, { username: doorCode, password, protocolVersion: 4, reconnectPeriod: 0 });
client.stream.setNoDelay?.(true);
await client.subscribeAsync(`coliving/doors/${doorCode}/decision`, { qos: 1 });
const id = randomUUID();
client.on("message", (_topic, payload) => {
  const decision = JSON.parse(payload.toString());
  if (decision.id !== id) return;
  Atomics.store(state, 1, Atomics.load(state, 0));
  Atomics.store(state, 2, 1);
  parentPort.postMessage({ decision });
  void client.endAsync();
});
parentPort.postMessage("connected");
// Blocks this thread's loop until the main thread has started its long work.
Atomics.wait(state, 0, 0);
client.publish(`coliving/doors/${doorCode}/swipe`, JSON.stringify({ id, card, at: new Date().toISOString(), source: "reader" }), { qos: 1 });
