// `npm run start:access`: the access service alone, against MQTT_URL.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { ACCESS_BUILD } from "./lib/build-paths.mjs";

if (!fs.existsSync(ACCESS_BUILD)) execFileSync(process.execPath, ["scripts/build.mjs", "--access-only"], { stdio: "inherit" });
await import(new URL(`../${ACCESS_BUILD}`, import.meta.url).href);
