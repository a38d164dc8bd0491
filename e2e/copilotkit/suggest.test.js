// CopilotKit's suggestions through the adapter, driven by the real
// @copilotkit/core 1.74.0 (its SuggestionEngine) in Node: /info says
// suggestions: true, so the engine posts the consumer's messages with
// its forced copilotkitSuggest tool to /agent/:id/suggest (a stock
// HttpAgent), and the chips come from the streamed tool call. The run
// leaves no thread and no run behind.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
// @copilotkit/core connects to its runtime only where there is a window.
globalThis.window ??= globalThis;
const { CopilotKitCore, CopilotKitCoreRuntimeConnectionStatus } = await import("@copilotkit/core");
import { startAdapter } from "../lib/adapter.js";

let adapter;
before(async () => {
  adapter = await startAdapter(`agents:
  default: {type: demo, description: "demo"}
`);
});
after(async () => { await adapter?.stop(); });

test("suggestions: @copilotkit/core calls /agent/:id/suggest and gets chips; nothing is stored", async () => {
  const requests = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (url, init) => {
    requests.push({ url: String(url), body: init?.body });
    return realFetch(url, init);
  };
  try {
    const core = new CopilotKitCore({ runtimeUrl: `${adapter.url}/api/copilotkit` });
    for (let i = 0; i < 150 && core.runtimeConnectionStatus !== CopilotKitCoreRuntimeConnectionStatus.Connected; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(core.runtimeConnectionStatus, CopilotKitCoreRuntimeConnectionStatus.Connected, `not connected: ${requests.map((r) => r.url).join(", ")}`);
    assert.equal(core.suggestions, true, "/info did not advertise suggestions");
    const agent = core.getAgent("default");
    assert.ok(agent, "no default agent");
    agent.addMessage({ id: "u1", role: "user", content: "hello" });

    const done = new Promise((resolve) => core.subscribe({ onSuggestionsFinishedLoading: () => resolve() }));
    core.addSuggestionsConfig({ instructions: "Suggest next steps", available: "always", providerAgentId: "default", consumerAgentId: "default" });
    core.reloadSuggestions("default");
    await Promise.race([done, new Promise((_, rej) => setTimeout(() => rej(new Error("suggestions never finished")), 15000))]);

    const { suggestions } = core.getSuggestions("default");
    assert.deepEqual(suggestions.map((s) => [s.title, s.message]), [["Show a table", "table"], ["Open the refund app", "app"], ["Fill in a form", "form"]]);
    const sent = requests.find((r) => r.url.endsWith("/api/copilotkit/agent/default/suggest"));
    assert.ok(sent, `no suggest request: ${requests.map((r) => r.url).join(", ")}`);
    assert.ok(!requests.some((r) => r.url.endsWith("/agent/default/run")), "suggestions went through /run");
    const body = JSON.parse(sent.body);
    assert.equal(body.forwardedProps.toolChoice.function.name, "copilotkitSuggest");
    assert.ok(body.tools.some((t) => t.name === "copilotkitSuggest"));

    // No thread and no run were stored.
    const res = await realFetch(`${adapter.url}/runs/${encodeURIComponent(body.runId)}/events`);
    assert.equal(res.status, 404);
    await res.body?.cancel();
    const th = await (await realFetch(`${adapter.url}/threads/${encodeURIComponent(body.threadId)}/messages`)).json();
    assert.deepEqual(th.messages, []);
  } finally {
    globalThis.fetch = realFetch;
  }
});

test("suggest on an unknown agent: the runtime's 404", async () => {
  const res = await fetch(`${adapter.url}/api/copilotkit/agent/nope/suggest`, {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ threadId: "t", runId: "r", messages: [], tools: [], context: [], state: {}, forwardedProps: {} }),
  });
  assert.equal(res.status, 404);
  assert.equal((await res.json()).error, "Agent not found");
});
