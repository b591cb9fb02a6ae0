// The build (`remix vite:build` → build/client and build/server/index.js,
// served by remix-serve) and `npm run dev` (`remix vite:dev`). The Remix
// options live in remix.config.js.
import { vitePlugin as remix } from "@remix-run/dev";
import { defineConfig } from "vite";
import tsconfigPaths from "vite-tsconfig-paths";
import remixOptions from "./remix.config.js";

export default defineConfig({
  plugins: [remix(remixOptions), tsconfigPaths()],
  // The server build starts the app with a top-level await (app/entry.server.tsx).
  build: { target: "es2022" },
});
