// Starts the Python peers of the LangGraph tests from the virtualenv .ci/run
// makes from e2e/python/requirements.txt (GENUI_PYTHON_VENV, default
// e2e/.venv): the LangGraph Agent Server (`langgraph dev`) serving
// e2e/langgraph-python/agent.py, and the official Python AG-UI endpoint
// (ag-ui-langgraph) serving the same graphs as the reference; and the
// scripted A2UI agent of e2e/python/a2ui_agent.py.
import { spawn } from "node:child_process";
import { mkdtempSync, copyFileSync, existsSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "./ports.js";

const e2eDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const graphs = join(e2eDir, "langgraph-python");
const venv = process.env.GENUI_PYTHON_VENV || join(e2eDir, ".venv");

function bin(name) {
  const p = join(venv, "bin", name);
  if (!existsSync(p)) throw new Error(`${p} is missing: make the virtualenv with .ci/run (python3 -m venv ${venv} && ${venv}/bin/pip install -r e2e/python/requirements.txt)`);
  return p;
}

// The servers must need nothing beyond loopback: no tracing, no CLI
// analytics, no browser.
const offline = { LANGSMITH_TRACING: "false", LANGCHAIN_TRACING_V2: "false", LANGGRAPH_CLI_NO_ANALYTICS: "1", PYTHONUNBUFFERED: "1" };

async function start(what, cmd, args, healthPath, from = graphs) {
  const dir = mkdtempSync(join(tmpdir(), "genui-lgpy-"));
  for (const f of readdirSync(from)) if (/\.(py|json)$/.test(f)) copyFileSync(join(from, f), join(dir, f));
  const port = await freePort();
  const child = spawn(cmd, args(port), {
    cwd: dir,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...offline },
  });
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      const r = await fetch(url + healthPath);
      if (r.ok) break;
    } catch {}
    if (child.exitCode !== null || Date.now() > deadline) {
      try { process.kill(-child.pid, "SIGTERM"); } catch {}
      throw new Error(`${what} did not start:\n` + log);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    port,
    logs: () => log,
    stop: () => {
      try { process.kill(-child.pid, "SIGTERM"); } catch {}
    },
  };
}

// startPythonLangGraph runs `langgraph dev` (langgraph-cli[inmem]) on the
// graphs of dir (default e2e/langgraph-python) in a scratch directory (it
// writes .langgraph_api state there).
export function startPythonLangGraph(dir = graphs) {
  return start("langgraph dev", bin("langgraph"), (port) => ["dev", "--no-browser", "--no-reload", "--host", "127.0.0.1", "--port", String(port)], "/ok", dir);
}

// startReference runs reference.py: ag-ui-langgraph's FastAPI endpoint with
// CopilotKit's LangGraphAGUIAgent, one agent per graph at /agents/{graph}.
export function startReference() {
  return start("reference.py", bin("python"), (port) => ["reference.py", String(port)], "/ok");
}

// startA2UIAgent runs e2e/python/a2ui_agent.py: a scripted AG-UI endpoint
// (ag-ui-protocol) whose A2UI v0.8, v0.9 and v1.0 messages the A2UI agent
// SDK (a2ui-agent-sdk) builds and validates, at /{version}/{activity|tool}.
export function startA2UIAgent() {
  return start("a2ui_agent.py", bin("python"), (port) => ["a2ui_agent.py", String(port)], "/ok", join(e2eDir, "python"));
}
