// The real @ag-ui/client 0.0.57, 0.0.59, 1.0.0 and 1.0.4 run HttpAgent.runAgent
// against the adapter in front of scripted upstreams. For every scenario the
// client must resolve, never fire onRunFailed, print no [ag-ui] warning, and
// end with the same messages and state as the same client fed the clean
// equivalent stream directly.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startAdapter } from "../lib/adapter.js";
import { startUpstream } from "../lib/upstream.js";
import { clients, runClient, project } from "../lib/clients.js";
import { scenarios, sse } from "./scenarios.js";

let up, adapter;
const routes = {};
for (const [name, s] of Object.entries(scenarios)) {
  routes[`/raw/${name}`] = s.raw;
  routes[`/clean/${name}`] = (i) => sse(s.clean(i));
}

before(async () => {
  up = await startUpstream(routes);
  // The relay scenarios run with A2UI off: they compare pure relaying.
  const agents = Object.keys(scenarios).map((n) => `  ${n}: {type: agui, url: ${up.url}/raw/${n}, a2ui: {disabled: true}}`).join("\n");
  // This suite starts about 80 runs back to back from one address: the
  // per-principal run-start limit (10/s, bursts of 40) is off here; the Go
  // tests hold the limit itself.
  adapter = await startAdapter(`limits: {runStartsPerSecond: -1}\nagents:\n${agents}\n  a2ui_on: {type: agui, url: ${up.url}/raw/full_run}\n  dead: {type: agui, url: http://127.0.0.1:9/nothing-listens-here}\n  demo: {type: demo}\n`);
});
after(async () => {
  await adapter?.stop();
  await up?.close();
});

function assertClean(run, v) {
  assert.equal(run.rejected, undefined, `${v}: runAgent rejected: ${run.rejected}`);
  assert.deepEqual(run.failed, [], `${v}: onRunFailed fired`);
  assert.deepEqual(run.warnings, [], `${v}: the client printed warnings`);
}

for (const v of Object.keys(clients)) {
  for (const [name, s] of Object.entries(scenarios)) {
    test(`${v} ${name}`, async () => {
      const ids = { threadId: `th-${name}`, runId: `run-${name}-${v}` };
      const got = await runClient(v, `${adapter.url}/agents/${name}/run`, ids);
      assertClean(got, v);
      const want = await runClient(v, `${up.url}/clean/${name}`, ids);
      assertClean(want, v + " (reference)");
      assert.ok(want.messages.length >= 1, "the reference run produced no messages");
      assert.deepEqual(project(got.messages), project(want.messages));
      assert.deepEqual(got.state, want.state);
      const codes = got.runErrors.map((e) => e.code);
      assert.deepEqual(codes, s.error ? [s.error] : []);
      const terminals = got.events.filter((e) => e.type === "RUN_FINISHED" || e.type === "RUN_ERROR");
      assert.equal(terminals.length, 1, "exactly one terminal event");
      assert.equal(got.events[0].type, "RUN_STARTED");
      assert.equal(got.events[0].runId, ids.runId);
    });
  }

  test(`${v} a structured tool result arrives as a validated A2UI surface`, async () => {
    const got = await runClient(v, `${adapter.url}/agents/a2ui_on/run`, { threadId: "t-a2ui", runId: `a2ui-${v}` });
    assertClean(got, v);
    const act = got.messages.filter((m) => m.role === "activity" && m.activityType === "a2ui-surface");
    assert.equal(act.length, 1);
    assert.equal(act[0].id, "a2ui-surface-c1");
    const ops = act[0].content.a2ui_operations;
    assert.deepEqual(ops.map((o) => Object.keys(o).find((k) => k !== "version")), ["createSurface", "updateComponents", "updateDataModel"]);
    assert.equal(ops[0].createSurface.catalogId, "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json");
    assert.equal(ops[2].updateDataModel.value.title, "List orders");
    // The surface comes right after the tool message.
    const i = got.messages.findIndex((m) => m.role === "tool");
    assert.equal(got.messages[i + 1].activityType, "a2ui-surface");
  });

  test(`${v} dead upstream`, async () => {
    const got = await runClient(v, `${adapter.url}/agents/dead/run`);
    assertClean(got, v);
    assert.deepEqual(got.runErrors.map((e) => e.code), ["upstream_unreachable"]);
  });

  test(`${v} demo agent`, async () => {
    const got = await runClient(v, `${adapter.url}/agents/demo/run`);
    assertClean(got, v);
    const p = project(got.messages);
    const tool = p.find((m) => m.role === "tool");
    assert.ok(tool, "a tool result message");
    assert.equal(JSON.parse(tool.content).length, 3);
    assert.ok(p.some((m) => m.toolCalls?.[0]?.name === "list_shipments"));
    assert.equal(got.state.scenario, "greeting");
    assert.equal(got.runErrors.length, 0);
  });

  test(`${v} error before the stream rejects with the JSON body`, async () => {
    const got = await runClient(v, `${adapter.url}/agents/nope/run`);
    assert.ok(got.rejected, "runAgent should reject on HTTP 404");
    assert.match(String(got.rejected.message ?? got.rejected), /404/);
    assert.match(String(got.rejected.message ?? got.rejected), /agent_not_found/);
  });
}

test("the upstream received each client's RunAgentInput", () => {
  const seen = up.requests.filter((r) => r.url === "/raw/full_run" && r.input.runId.startsWith("run-"));
  assert.equal(seen.length, Object.keys(clients).length);
  for (const r of seen) {
    assert.equal(r.headers.accept, "text/event-stream");
    assert.ok(Array.isArray(r.input.tools) && Array.isArray(r.input.context));
    assert.equal(r.input.messages[0].content, "hello");
  }
});

// Negative controls: the same clients fed the raw upstream directly fail or
// warn, so the assertions above can tell a broken adapter from a working one.
const controls = [
  ["0.0.57", "crlf", (r) => r.failed.length > 0],
  ["1.0.0", "crlf", (r) => r.failed.length > 0],
  ["1.0.4", "crlf", (r) => r.failed.length > 0],
  ["0.0.59", "nulls", (r) => r.failed.length > 0],
  ["0.0.57", "unknown_types", (r) => r.failed.length > 0],
  ["1.0.0", "unknown_types", (r) => r.warnings.some((w) => w.includes("[ag-ui][enforce]"))],
  ["1.0.4", "unknown_types", (r) => r.warnings.some((w) => w.includes("[ag-ui][enforce]"))],
  ["1.0.0", "thinking_events", (r) => r.warnings.some((w) => w.includes("[ag-ui][compat]"))],
  ["1.0.4", "thinking_events", (r) => r.warnings.some((w) => w.includes("[ag-ui][compat]"))],
  ["0.0.57", "subagents_and_cancelled", (r) => r.failed.length > 0],
  ["0.0.59", "open_text_at_finish", (r) => r.failed.length > 0],
  ["0.0.57", "missing_terminal", (r) => r.failed.length === 0 && r.runErrors.length === 0],
];
for (const [v, name, broken] of controls) {
  test(`control: ${v} fed raw ${name} directly misbehaves`, async () => {
    const r = await runClient(v, `${up.url}/raw/${name}`, { threadId: "t", runId: `ctl-${name}` });
    assert.ok(broken(r), `expected the raw stream to break ${v}: ${JSON.stringify({ failed: r.failed, warnings: r.warnings, errors: r.runErrors })}`);
  });
}
