// Production build: the Remix app (build/index.js, public/build/).
import { execFileSync } from "node:child_process";

process.env.VITE_CJS_IGNORE_WARNING = "true";
execFileSync(process.execPath, ["node_modules/@remix-run/dev/dist/cli.js", "build"], { stdio: "inherit" });
