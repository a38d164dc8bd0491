// The adapter beside the real CopilotRuntime 1.75.0 (@copilotkit/runtime,
// SSE mode, its free InMemoryAgentRunner), both in front of the same
// scripted AG-UI agent: the same requests to both (compare.mjs: info,
// runs, the thread list, a thread's messages, events and state, an
// unknown thread, suggest, the mutations, clear), and every difference
// in their answers is one of those listed here and in docs/http-api.md
// ("Compared with CopilotRuntime 1.75"). A new difference fails the test.
process.env.COPILOTKIT_TELEMETRY_DISABLED = "true"; // no telemetry from the runtime under test
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync, mkdirSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const { startScript, startRuntime, startOurs, play, script } = await import("./compare.mjs");

// normalize replaces what differs run to run (times, versions, cursors).
function normalize(v, key) {
  if (Array.isArray(v)) return v.map((x) => normalize(x));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalize(x, k)]));
  if (typeof v === "string" && /^\d{4}-\d\d-\d\dT/.test(v)) return "<time>";
  if (key === "version") return "<version>";
  if (key === "nextCursor" && v !== null) return "<cursor>";
  return v;
}

// diff lists the paths where a (the runtime's) and b (the adapter's)
// differ: "path: only in the runtime", "path: only in the adapter", or
// "path: runtime X, adapter Y".
function diff(a, b, path = "") {
  const out = [];
  const obj = (x) => x && typeof x === "object" && !Array.isArray(x);
  if (obj(a) && obj(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const p = path ? `${path}.${k}` : k;
      if (!(k in b)) out.push(`${p}: only in the runtime`);
      else if (!(k in a)) out.push(`${p}: only in the adapter`);
      else out.push(...diff(a[k], b[k], p));
    }
    return out;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    a.forEach((x, i) => out.push(...diff(x, b[i], `${path}[${i}]`)));
    return out;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push(`${path}: runtime ${JSON.stringify(a)}, adapter ${JSON.stringify(b)}`);
  return out;
}

// expected is every difference, per request (docs/http-api.md explains each).
const lastRunAt = (i) => `body.threads[${i}].lastRunAt: only in the adapter`;
const expected = {
  info: [
    "body.agents.default.className: runtime \"qe\", adapter \"GenUIAdapter\"",
    "body.agents.default.capabilities: only in the adapter",
    "body.mode: only in the runtime",
    "body.threadEndpoints.mutations: runtime false, adapter true",
    "body.a2ui: only in the adapter",
    "body.telemetryDisabled: only in the runtime",
  ],
  "run t1": [],
  "run t2": [],
  list: [lastRunAt(0), lastRunAt(1)],
  "list limit 1": [
    "body.threads: runtime [{\"id\":\"t2\",\"name\":null,\"agentId\":\"default\",\"organizationId\":\"\",\"createdById\":\"\",\"archived\":false,\"createdAt\":\"<time>\",\"updatedAt\":\"<time>\"},{\"id\":\"t1\",\"name\":null,\"agentId\":\"default\",\"organizationId\":\"\",\"createdById\":\"\",\"archived\":false,\"createdAt\":\"<time>\",\"updatedAt\":\"<time>\"}], adapter [{\"id\":\"t2\",\"name\":null,\"agentId\":\"default\",\"organizationId\":\"\",\"createdById\":\"\",\"archived\":false,\"createdAt\":\"<time>\",\"updatedAt\":\"<time>\",\"lastRunAt\":\"<time>\"}]",
    "body.nextCursor: runtime null, adapter \"<cursor>\"",
  ],
  messages: [],
  events: ["body.events[0].input: only in the runtime"],
  state: [],
  "messages of an unknown thread": [
    "status: runtime 200, adapter 404",
    "body.messages: only in the runtime",
    "body.error: only in the adapter",
    "body.message: only in the adapter",
  ],
  suggest: [],
  "list after suggest": [lastRunAt(0), lastRunAt(1)],
  rename: [
    "status: runtime 422, adapter 200",
    "body.error: only in the runtime",
    ...["id", "name", "agentId", "organizationId", "createdById", "archived", "createdAt", "updatedAt", "lastRunAt"].map((k) => `body.${k}: only in the adapter`),
  ],
  archive: ["status: runtime 422, adapter 200", "body.error: only in the runtime", "body.archived: only in the adapter", "body.threadId: only in the adapter"],
  delete: ["status: runtime 422, adapter 200", "body.error: only in the runtime", "body.deleted: only in the adapter", "body.threadId: only in the adapter"],
  clear: [],
  "list after clear": [],
};

let agent, runtime, ours;
before(async () => {
  agent = await startScript();
  runtime = await startRuntime(agent.url);
  ours = await startOurs(agent.url);
});
after(async () => {
  await runtime?.close();
  await ours?.close();
  await agent?.close();
});

test("the same requests to CopilotRuntime 1.75 and the adapter: only the documented differences", async () => {
  const a = normalize(await play(runtime.url));
  const b = normalize(await play(ours.url));
  const got = Object.fromEntries(script.map(([name]) => [name, diff(a[name], b[name])]));
  const dir = join(dirname(fileURLToPath(import.meta.url)), "..", "artifacts");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "cpkruntime-compare.json"), JSON.stringify({ runtime: a, adapter: b, differences: got }, null, 2));
  // The runtime's 422 names what it lacks.
  assert.match(a.rename.body.error, /CopilotKitIntelligence/);
  for (const [name] of script) assert.deepEqual([...got[name]].sort(), [...expected[name]].sort(), `differences for "${name}"`);
});
