// The flooding sensor of `bench:access --scenario flood`, in a worker thread
// so that its publishing does not delay the main thread, which times the
// swipes' decisions. A real MQTT.js client logged in as a provisioned sensor
// (its own client id and topic) publishes `rate` readings a second, QoS 1,
// open loop (each tick sends what is due, whatever the acknowledgements do).
//
// workerData: { url, prefix, sensor: { id, username, password }, rate }
// Messages: → "ready" once connected; ← "start"; ← "stop"; → { done: { sent, acked, seconds } }.
import { parentPort, workerData } from "node:worker_threads";
import mqtt from "mqtt";

const { url, prefix, sensor, rate } = workerData;
const client = await mqtt.connectAsync(url, {
  clientId: `coliving-sensor-${sensor.id}`,
  username: sensor.username,
  password: sensor.password,
  protocolVersion: 4,
  reconnectPeriod: 0,
});
client.stream.setNoDelay?.(true);
const topic = `${prefix}/building/${sensor.id}/conditions`;
let running = true;
parentPort.on("message", (message) => {
  if (message === "stop") running = false;
});
parentPort.postMessage("ready");
await new Promise((resolve) => parentPort.once("message", resolve)); // "start"

let sent = 0;
let acked = 0;
const started = performance.now();
while (running) {
  const due = Math.floor(((performance.now() - started) / 1000) * rate);
  while (sent < due) {
    const reading = { temperature: 15 + Math.random() * 10, humidity: 30 + Math.random() * 40, wifiStatus: "connected", at: new Date().toISOString() };
    client.publish(topic, JSON.stringify(reading), { qos: 1 }, (error) => {
      if (!error) acked += 1;
    });
    sent += 1;
  }
  await new Promise((resolve) => setTimeout(resolve, 2));
}
const seconds = (performance.now() - started) / 1000;
await client.endAsync().catch(() => {});
parentPort.postMessage({ done: { sent, acked, seconds } });
