// Headless Debian Chromium driven by playwright-core, and esbuild bundles of
// third-party renderers built into e2e/.build (never committed).
import { chromium } from "playwright-core";
import { build } from "esbuild";
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import http from "node:http";
import { readFile } from "node:fs/promises";

const here = dirname(fileURLToPath(import.meta.url));
export const e2eDir = resolve(here, "..");
export const artifacts = join(e2eDir, "artifacts");
mkdirSync(artifacts, { recursive: true });

export function chromiumPath() {
  for (const p of [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"]) {
    if (p && existsSync(p)) return p;
  }
  throw new Error("Debian chromium is not installed: apt-get install chromium (.ci/run does it)");
}

export async function launch() {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

// bundle builds entry (relative to e2e/) into e2e/.build/<out>.
export async function bundle(entry, out) {
  const outfile = join(e2eDir, ".build", out);
  await build({ entryPoints: [join(e2eDir, entry)], bundle: true, format: "esm", outfile, logLevel: "error" });
  return outfile;
}

// serveFiles serves a map of url path -> file path on loopback.
export async function serveFiles(files) {
  const server = http.createServer(async (req, res) => {
    const f = files[req.url.split("?")[0]];
    if (!f) return res.writeHead(404).end();
    const type = f.endsWith(".js") ? "text/javascript" : "text/html";
    res.writeHead(200, { "Content-Type": type }).end(await readFile(f));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}
