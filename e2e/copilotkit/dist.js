// serveDist serves the built CopilotKit page (web/dist, built by `npm run
// build`) on loopback, for the browser tests of this folder.
import http from "node:http";
import { readFile } from "node:fs/promises";
import { join, extname, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const dist = join(dirname(fileURLToPath(import.meta.url)), "web", "dist");

export async function serveDist() {
  const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css" };
  const server = http.createServer(async (req, res) => {
    const path = req.url.split("?")[0];
    try {
      const body = await readFile(join(dist, path === "/" ? "index.html" : path));
      res.writeHead(200, { "Content-Type": types[extname(path)] || "text/html" }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}
