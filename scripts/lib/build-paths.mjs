// Where `npm run build` puts the product; every script that starts it reads
// the paths from here.
export const SERVER_BUILD = "build/server/index.js"; // remix vite:build (the browser's files: build/client/)
export const ACCESS_BUILD = "build/access.js"; // esbuild bundle of app/access/main.server.ts
