// The Remix options, in one place. vite.config.ts hands them to the Remix
// Vite plugin, and app/routes.ts (the v3_routeConfig route config) reads the
// route conventions from here: flat routes under app/routes/, minus the
// files below, which live beside the routes but are not routes.

/** Files under app/routes/ that are not routes: a route's controller (`*.server.ts`), tests, dotfiles. */
export const ignoredRouteFiles = ["**/.*", "**/*.test.{ts,tsx}", "**/*.server.{ts,tsx}"];

/** @type {import('@remix-run/dev').VitePluginConfig} */
export default {
  serverModuleFormat: "esm",
  // Every v3 flag Remix 2.17 has (the `unstable_*` options are experiments, not future flags).
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
    v3_lazyRouteDiscovery: true,
    v3_singleFetch: true,
    v3_routeConfig: true,
  },
};
