// The build (`remix vite:build` → build/client and build/server/index.js,
// served by remix-serve) and `npm run dev` (`remix vite:dev`). The Remix
// options live in remix.config.js.
import { vitePlugin as remix } from "@remix-run/dev";
import { defineConfig, type Rollup } from "vite";
import tsconfigPaths from "vite-tsconfig-paths";
import remixOptions from "./remix.config.js";

/** The packages every page loads (see `manualChunks` below). */
const FRAMEWORK = /\/node_modules\/(react|react-dom|scheduler|react-router|react-router-dom|@remix-run\/[^/]+|turbo-stream)\//;

/**
 * Rollup warnings that say nothing to act on, left out of the build log (every
 * other warning still shows):
 * - EMPTY_BUNDLE: each resource route (`api.*`, `healthz`, `theme`, …) has no
 *   browser code, so Remix's client build makes an empty chunk for it.
 * - INVALID_ANNOTATION in node_modules: a dependency's comment near a
 *   `@__PURE__` annotation (zod's), which Rollup drops.
 */
function onwarn(warning: Rollup.RollupLog, warn: (warning: Rollup.RollupLog) => void) {
  if (warning.code === "EMPTY_BUNDLE") return;
  if (warning.code === "INVALID_ANNOTATION" && warning.id?.includes("/node_modules/")) return;
  warn(warning);
}

export default defineConfig(({ isSsrBuild }) => ({
  plugins: [remix(remixOptions), tsconfigPaths()],
  // The browser gets zod/mini only. Our schemas (app/schemas) are written with
  // zod/mini, but @conform-to/zod/v4's coercion wraps every schema with
  // `lazy`, `optional`, `pipe` and `transform` imported from "zod/v4", which
  // is classic zod: that one import would pull all of classic (its methods,
  // JSON Schema conversion) into each form page. zod/mini exports the same
  // four functions over the same core, so the client build resolves that
  // exact specifier ("zod/v4", not "zod/v4/core") to "zod/v4/mini". The
  // server keeps classic: the SSR build leaves node_modules external.
  resolve: isSsrBuild ? undefined : { alias: [{ find: /^zod\/v4$/, replacement: "zod/v4/mini" }] },
  build: {
    // The server build starts the app with a top-level await (app/entry.server.tsx).
    target: "es2022",
    // Every page runs React, React DOM and Remix: in the browser they ship as one
    // chunk, which gzips about 3 KB smaller than the three Rollup splits them into.
    rollupOptions: isSsrBuild ? { onwarn } : { onwarn, output: { manualChunks: (id) => (FRAMEWORK.test(id) ? "framework" : undefined) } },
  },
}));
