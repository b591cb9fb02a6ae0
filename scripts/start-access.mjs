// `npm run start:access`: the access service alone, against MQTT_URL.
import { execFileSync } from "node:child_process";
import fs from "node:fs";

if (!fs.existsSync("build/access.js")) execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
await import(new URL("../build/access.js", import.meta.url).href);
