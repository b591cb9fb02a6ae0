// The floor for `bench:web`: a bare node:http server, in its own process as
// the app is, that answers each captured path with the app's own bytes and
// Content-Type and does nothing else. What the app takes beyond this is the
// cost of rendering the page.
//
//   node scripts/bench/bare-server.mjs <pages.json> <port>
// pages.json: { "/path": { "contentType": "...", "body": "<base64>" } }
import fs from "node:fs";
import http from "node:http";

const [file, port] = process.argv.slice(2);
const pages = new Map(
  Object.entries(JSON.parse(fs.readFileSync(file, "utf8"))).map(([path, page]) => [path, { contentType: page.contentType, body: Buffer.from(page.body, "base64") }]),
);
const server = http.createServer((request, response) => {
  const page = pages.get(request.url);
  if (!page) {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(200, { "Content-Type": page.contentType, "Content-Length": page.body.length });
  response.end(page.body);
});
server.listen(Number(port), "127.0.0.1", () => console.info("listening"));
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
