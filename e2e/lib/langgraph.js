// Starts a real LangGraph Agent Server (`langgraphjs dev` from a pinned
// @langchain/langgraph-cli) serving e2e/langgraph/graph.mjs.
import { spawn } from "node:child_process";
import { mkdtempSync, copyFileSync, symlinkSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "./ports.js";

const e2eDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const graphs = join(e2eDir, "langgraph");

// The JavaScript servers the suite runs against, by name: the pinned
// @langchain/langgraph-cli and the newest published one (an npm alias in
// package.json). Each brings its own @langchain/langgraph-api.
export const servers = {
  pinned: "@langchain/langgraph-cli",
  newest: "langgraph-cli-2",
};

// serverVersion is the version of a server's CLI and API packages.
export function serverVersion(name = "pinned") {
  const cli = join(e2eDir, "node_modules", servers[name]);
  const v = (p) => JSON.parse(readFileSync(join(p, "package.json"), "utf8")).version;
  let api;
  try { api = v(join(cli, "node_modules", "@langchain", "langgraph-api")); } catch { api = v(join(e2eDir, "node_modules", "@langchain", "langgraph-api")); }
  return { cli: v(cli), api };
}

// startLangGraph runs `langgraphjs dev` of the named server (see servers)
// on the graphs in a scratch directory (it writes .langgraph_api state
// where it runs).
export async function startLangGraph({ server = "pinned" } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "genui-lg-"));
  copyFileSync(join(graphs, "graph.mjs"), join(dir, "graph.mjs"));
  copyFileSync(join(graphs, "langgraph.json"), join(dir, "langgraph.json"));
  symlinkSync(join(e2eDir, "node_modules"), join(dir, "node_modules"));
  const port = await freePort();
  const child = spawn(process.execPath, [join(e2eDir, "node_modules", servers[server], "dist", "cli", "cli.mjs"), "dev", "--port", String(port), "--host", "127.0.0.1", "--no-browser", "--no-reload"], {
    cwd: dir,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, LANGSMITH_TRACING: "false", LANGCHAIN_TRACING_V2: "false" },
  });
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    try {
      const r = await fetch(url + "/ok");
      if (r.ok) break;
    } catch {}
    if (child.exitCode !== null || Date.now() > deadline) throw new Error("langgraphjs dev did not start:\n" + log);
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    port,
    version: serverVersion(server),
    logs: () => log,
    stop: () => {
      try { process.kill(-child.pid, "SIGTERM"); } catch {}
    },
  };
}

