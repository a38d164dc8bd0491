// The quickstart in examples/langgraph-python, run as its README says:
// `langgraph dev` on its graph, the adapter with its config (the server's
// address and the ports replaced by free ones), a run by each client.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { startAdapter } from "../lib/adapter.js";
import { runClient } from "../lib/clients.js";
import { startPythonLangGraph } from "../lib/langgraph-python.js";

const example = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "examples", "langgraph-python");

let lg, adapter;
before(async () => {
  lg = await startPythonLangGraph(example);
  const yaml = readFileSync(join(example, "genui-adapter.yaml"), "utf8");
  assert.match(yaml, /url: http:\/\/127\.0\.0\.1:2024\n/);
  adapter = await startAdapter(yaml.replace("http://127.0.0.1:2024", lg.url));
});
after(async () => {
  await adapter?.stop();
  lg?.stop();
});

for (const v of ["0.0.57", "0.0.59", "1.0.0", "1.0.4"]) {
  test(`${v}: the quickstart's weather agent calls its tool and answers`, async () => {
    const r = await runClient(v, `${adapter.url}/agents/weather/run`, { messages: [{ id: "u1", role: "user", content: "What is the weather in Rome?" }] });
    assert.deepEqual(r.runErrors, [], adapter.logs());
    assert.deepEqual(r.failed, []);
    const seen = r.messages.filter((m) => m.role !== "activity").map((m) => [m.role, m.content || m.toolCalls?.[0]?.function.name]);
    assert.deepEqual(seen, [
      ["user", "What is the weather in Rome?"],
      ["assistant", "get_weather"],
      ["tool", '{"city": "Rome", "sky": "sunny", "celsius": 21}'],
      ["assistant", "It is sunny in Rome, 21 °C."],
    ]);
    assert.equal(r.state.searches, 1);
    assert.ok(r.events.some((e) => e.type === "STATE_SNAPSHOT" && e.snapshot.searches === 1), "copilotkit_emit_state reached the client");
    assert.ok(r.events.some((e) => e.type === "ACTIVITY_SNAPSHOT" && e.activityType === "a2ui-surface"), "the tool's JSON as an A2UI card");
  });
}
