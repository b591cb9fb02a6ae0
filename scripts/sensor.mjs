// `npm run sensor`: building sensors (docs/mqtt.md, "Building sensors").
//
//   npm run sensor -- --provision <sensorId>
//       issues the sensor a fresh credential in the database (DATABASE_URL)
//       and prints it once: {"username": "sensor.<sensorId>", "password": …}.
//       On Mosquitto, regenerate its files afterwards (scripts/mosquitto-passwords.mjs).
//   npm run sensor -- --simulate [--sensor entrada] [--password <secret>] [--url mqtt://…] [--interval 10]
//       a simulated sensor for development: publishes a reading (temperature,
//       humidity, WiFi status, drifting a little) every --interval seconds.
//       Without --password (or SENSOR_PASSWORD) it provisions the sensor first;
//       without --url it connects where the app's broker is (MQTT_URL, else
//       MQTT_HOST and MQTT_PORT). SIGINT/SIGTERM stop it.
import { spawn } from "node:child_process";
import { parseArgs } from "node:util";
import mqtt from "mqtt";

const { values } = parseArgs({
  options: {
    provision: { type: "string" },
    simulate: { type: "boolean" },
    sensor: { type: "string", default: "entrada" },
    password: { type: "string" },
    url: { type: "string" },
    interval: { type: "string", default: "10" },
    prefix: { type: "string" },
  },
});

function provision(sensorId) {
  return new Promise((resolve, reject) => {
    let output = "";
    const child = spawn(
      process.execPath,
      ["--input-type=module", "-e", 'import("./scripts/lib/run-ts.mjs").then((m) => m.runTs("scripts/provision-sensor.ts"))'],
      { env: { ...process.env, PROVISION_SENSOR: sensorId }, stdio: ["ignore", "pipe", "inherit"] },
    );
    child.stdout.setEncoding("utf8").on("data", (chunk) => (output += chunk));
    child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(output.trim().split("\n").pop())) : reject(new Error(`provisioning failed (${code})`))));
  });
}

function appBrokerUrl(env) {
  if (env.MQTT_URL) return env.MQTT_URL;
  const host = env.MQTT_HOST || "127.0.0.1";
  const reachable = ["0.0.0.0", "::"].includes(host) ? "127.0.0.1" : host;
  return `mqtt://${reachable.includes(":") ? `[${reachable}]` : reachable}:${env.MQTT_PORT || 1883}`;
}

if (values.provision) {
  console.info(JSON.stringify(await provision(values.provision)));
  process.exit(0);
}
if (!values.simulate) {
  console.error("usage: npm run sensor -- --provision <sensorId> | --simulate [--sensor id] [--password s] [--url u] [--interval 10]");
  process.exit(2);
}

const sensorId = values.sensor;
let password = values.password ?? process.env.SENSOR_PASSWORD;
if (!password) {
  ({ password } = await provision(sensorId));
  console.info(`[sensor] sensor "${sensorId}" ready in the local database with a fresh credential`);
}
const url = values.url ?? appBrokerUrl(process.env);
const topic = `${values.prefix ?? process.env.MQTT_TOPIC_PREFIX ?? "coliving"}/building/${sensorId}/conditions`;
// The sensor's own client id (docs/mqtt.md): on the embedded broker no other account may take it.
const client = mqtt.connect(url, {
  clientId: `coliving-sensor-${sensorId}`,
  username: `sensor.${sensorId}`,
  password,
  protocolVersion: 4,
  reconnectPeriod: 2000,
});
client.on("connect", () => console.info(`[sensor] connected to ${url}, publishing on ${topic}`));
client.on("error", (error) => console.warn(`[sensor] ${error.message}`));

let temperature = 21;
let humidity = 50;
function publish() {
  temperature = Math.round((temperature + (Math.random() - 0.5) * 0.4) * 10) / 10;
  humidity = Math.round(Math.min(90, Math.max(20, humidity + (Math.random() - 0.5) * 2)));
  const wifiStatus = Math.random() < 0.9 ? "connected" : "weak";
  const reading = { temperature, humidity, wifiStatus, at: new Date().toISOString() };
  client.publish(topic, JSON.stringify(reading), { qos: 1 }, (error) => {
    if (error) console.warn(`[sensor] not sent: ${error.message}`);
    else console.info(`[sensor] ${temperature} °C, ${humidity} %, wifi ${wifiStatus}`);
  });
}
const timer = setInterval(publish, Number(values.interval) * 1000);
client.once("connect", publish);
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    clearInterval(timer);
    client.end(false, () => process.exit(0));
  });
}
