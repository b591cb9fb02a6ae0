// The server build as the Remix Vite plugin bundles it (entry.server.tsx reads its routes).
declare module "virtual:remix/server-build" {
  export const routes: import("@remix-run/node").ServerBuild["routes"];
  export const assetsBuildDirectory: import("@remix-run/node").ServerBuild["assetsBuildDirectory"];
}
