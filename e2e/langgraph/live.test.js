// The chain's hand-over and checkpoints against the real Python LangGraph
// Agent Server (`langgraph dev`, pinned in e2e/python/requirements.txt):
// the Go tests TestChainHandoverLive (a drain stops the run after any
// event and another chain rejoins it) and TestChainCheckpointLive (a
// run rejoined from every checkpoint it kept, as a take-over after an
// instance died does) run on the tools graph of
// e2e/langgraph-python/agent.py, whose frame ids are the server's own.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { startPythonLangGraph } from "../lib/langgraph-python.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
let lg;
before(async () => {
  lg = await startPythonLangGraph();
});
after(() => lg?.stop());

test("a LangGraph run on the Python server is rejoined after a drain stop at any event, and from every checkpoint", () => {
  const r = spawnSync("go", ["test", "./adapter", "-run", "^(TestChainHandoverLive|TestChainCheckpointLive)$", "-count=1", "-v"], {
    cwd: root,
    env: { ...process.env, GENUI_LANGGRAPH_URL: lg.url, GENUI_LANGGRAPH_GRAPH: "tools" },
    encoding: "utf8",
    timeout: 600_000,
  });
  const out = r.stdout + r.stderr;
  assert.equal(r.status, 0, out.slice(-20000));
  assert.match(out, /--- PASS: TestChainHandoverLive/, out.slice(-5000));
  assert.match(out, /--- PASS: TestChainCheckpointLive/, out.slice(-5000));
});
