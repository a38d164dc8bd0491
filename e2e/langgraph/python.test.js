// The Python LangGraph Agent Server (`langgraph dev` from langgraph-cli
// [inmem], pinned in e2e/python/requirements.txt) serving the graphs of
// e2e/langgraph-python/agent.py, written as CopilotKit + LangGraph apps
// write them, behind the adapter's `type: langgraph` agents; side by side
// with the reference: the official Python AG-UI endpoint (ag-ui-langgraph
// with CopilotKit's LangGraphAGUIAgent) serving the same graphs in-process.
// Driven by the official @ag-ui/client versions.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { startAdapter } from "../lib/adapter.js";
import { runClient } from "../lib/clients.js";
import { startCutProxy } from "../lib/cutproxy.js";
import { startPythonLangGraph, startReference } from "../lib/langgraph-python.js";

const versions = ["0.0.57", "0.0.59", "1.0.0", "1.0.4"];
const graphs = ["chat", "tools", "approve", "helpers", "nested", "fail", "private"];

let lg, ref, adapter, cut, once;
before(async () => {
  const started = await Promise.allSettled([startPythonLangGraph(), startReference()]);
  [lg, ref] = started.map((s) => s.value);
  for (const s of started) if (s.status === "rejected") throw s.reason;
  const agents = graphs.map((g) => `  ${g}: {type: langgraph, url: "${lg.url}", graph: ${g}}`);
  // CopilotKit's helpers need the extra stream mode (issue 47 makes it the
  // default; until then it is asked for here).
  agents.push(`  helpers-on: {type: langgraph, url: "${lg.url}", graph: helpers, copilotkitHelpers: true}`);
  agents.push(`  private-on: {type: langgraph, url: "${lg.url}", graph: private, copilotkitHelpers: true}`);
  agents.push(`  missing: {type: langgraph, url: "${lg.url}", graph: no-such-graph}`);
  // A proxy that cuts the adapter's stream from the server every 7 frames.
  cut = await startCutProxy(lg.port, 7, 40);
  agents.push(`  chat-cut: {type: langgraph, url: "http://127.0.0.1:${cut.port}", graph: chat}`);
  // One that cuts it once, when a test allows it.
  once = await startCutProxy(lg.port, 7, 40, true);
  agents.push(`  chat-once: {type: langgraph, url: "http://127.0.0.1:${once.port}", graph: chat}`);
  adapter = await startAdapter("agents:\n" + agents.join("\n") + "\n");
});
after(async () => {
  await adapter?.stop();
  await cut?.close();
  await once?.close();
  lg?.stop();
  ref?.stop();
});

const user = (content) => [{ id: "u-" + randomUUID(), role: "user", content }];
const ours = (v, agent, opts = {}) => runClient(v, `${adapter.url}/agents/${agent}/run`, { messages: user("What is the weather in Rome?"), ...opts });
const theirs = (v, graph, opts = {}) => runClient(v, `${ref.url}/agents/${graph}`, { messages: user("What is the weather in Rome?"), ...opts });

// comparable keeps what a user sees of a message list: roles, text, tool
// calls (arguments parsed: Python's json.dumps spaces them, the adapter
// re-serialises) and tool results. Ids differ by nature (each run makes
// its own); the adapter's A2UI activity messages have no counterpart.
function comparable(messages) {
  return messages
    .filter((m) => m.role !== "activity")
    .map((m) => {
      const o = { role: m.role };
      if (typeof m.content === "string" && m.content !== "") o.content = m.content;
      if (m.toolCalls?.length) o.toolCalls = m.toolCalls.map((c) => ({ id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments || "{}") }));
      if (m.toolCallId) o.toolCallId = m.toolCallId;
      return o;
    });
}
const lastSnapshot = (r) => r.events.findLast((e) => e.type === "MESSAGES_SNAPSHOT")?.messages ?? [];

for (const v of versions) {
  test(`${v}: chat streams token by token; final messages equal the reference's`, async () => {
    const [a, b] = await Promise.all([ours(v, "chat"), theirs(v, "chat")]);
    assert.deepEqual(a.runErrors, [], adapter.logs());
    assert.deepEqual(a.failed, []);
    assert.deepEqual(b.runErrors, []);
    const texts = a.events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT");
    assert.ok(texts.length > 5, `streamed in ${texts.length} deltas`);
    assert.equal(new Set(texts.map((e) => e.messageId)).size, 1);
    assert.deepEqual(comparable(a.messages), comparable(b.messages));
    assert.deepEqual(comparable(a.messages).map((m) => m.content), ["What is the weather in Rome?", "Hello from LangGraph, streamed token by token."]);
    assert.deepEqual(a.warnings, []);
  });
}

for (const v of versions) {
  test(`${v}: tools: a ToolNode's call and result arrive paired; final messages equal the reference's`, async () => {
    const [a, b] = await Promise.all([ours(v, "tools"), theirs(v, "tools")]);
    assert.deepEqual(a.runErrors, []);
    assert.deepEqual(b.runErrors, []);
    const want = [
      { role: "user", content: "What is the weather in Rome?" },
      { role: "assistant", toolCalls: [{ id: "call_weather", name: "get_weather", args: { city: "Rome" } }] },
      { role: "tool", content: '{"city": "Rome", "sky": "sunny", "celsius": 21}', toolCallId: "call_weather" },
      { role: "assistant", content: 'The tool said: {"city": "Rome", "sky": "sunny", "celsius": 21}' },
    ];
    assert.deepEqual(comparable(a.messages), want);
    // The reference's last MESSAGES_SNAPSHOT holds the same list.
    assert.deepEqual(comparable(lastSnapshot(b)), want);
    // Its client ends with the tool result after the answer (the snapshot
    // only replaces what the client holds, by id; comparison table), except
    // 1.0.4, which moves a tool result back behind its call when it applies
    // a MESSAGES_SNAPSHOT.
    const order = v === "1.0.4" ? ["user", "assistant", "tool", "assistant"] : ["user", "assistant", "assistant", "tool"];
    assert.deepEqual(comparable(b.messages).map((m) => m.role), order);
    // The tool's JSON result also becomes an A2UI surface (adapter only).
    assert.ok(a.events.some((e) => e.type === "ACTIVITY_SNAPSHOT" && e.activityType === "a2ui-surface"));
    for (const r of [a, b]) assert.ok(r.events.some((e) => e.type === "TOOL_CALL_RESULT" && e.toolCallId === "call_weather"));
  });

  test(`${v}: interrupt() pauses the run; a resume (forwardedProps.command.resume) finishes it as the reference does`, async () => {
    const threadA = `thread-${randomUUID()}`, threadB = `thread-${randomUUID()}`;
    const [a1, b1] = await Promise.all([ours(v, "approve", { threadId: threadA }), theirs(v, "approve", { threadId: threadB })]);
    for (const r of [a1, b1]) {
      assert.deepEqual(r.runErrors, []);
      const legacy = r.events.find((e) => e.type === "CUSTOM" && e.name === "on_interrupt");
      assert.ok(legacy, "the on_interrupt event CopilotKit's useLangGraphInterrupt reads");
      assert.deepEqual(typeof legacy.value === "string" ? JSON.parse(legacy.value) : legacy.value, { question: "Refund order A-1?" });
    }
    const resume = { forwardedProps: { command: { resume: JSON.stringify({ approved: true }) } } };
    const [a2, b2] = await Promise.all([
      ours(v, "approve", { threadId: threadA, messages: a1.messages, ...resume }),
      theirs(v, "approve", { threadId: threadB, messages: b1.messages, ...resume }),
    ]);
    assert.deepEqual(a2.runErrors, []);
    assert.deepEqual(b2.runErrors, []);
    assert.deepEqual(comparable(a2.messages), comparable(b2.messages));
    assert.equal(comparable(a2.messages).at(-1).content, 'Decision: {"approved":true}');
  });

  test(`${v}: a subgraph's model streams; final messages equal the reference's`, async () => {
    const [a, b] = await Promise.all([ours(v, "nested"), theirs(v, "nested")]);
    assert.deepEqual(a.runErrors, []);
    assert.deepEqual(b.runErrors, []);
    assert.deepEqual(comparable(a.messages), comparable(b.messages));
    assert.deepEqual(comparable(a.messages).slice(1).map((m) => m.content), ["Found three sources.", "Summary: three sources."]);
    const streamed = (r) => r.events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("");
    assert.match(streamed(a), /^Found three sources\./, "the subgraph's model streamed through the adapter");
    assert.match(streamed(b), /^Found three sources\./);
    // Steps: ours by node path, the reference's by node name.
    const steps = (r) => [...new Set(r.events.filter((e) => e.type === "STEP_STARTED").map((e) => e.stepName))];
    assert.deepEqual(steps(a), ["research/search", "summary"]);
    assert.deepEqual(steps(b), ["research", "search", "summary"]);
  });

  test(`${v}: a failing node is a RUN_ERROR with a stable code; the node's message goes to the log (the reference shows it)`, async () => {
    const [a, b] = await Promise.all([ours(v, "fail"), theirs(v, "fail")]);
    assert.equal(a.runErrors.length, 1);
    assert.equal(b.runErrors.length, 1);
    assert.doesNotMatch(a.runErrors[0].message, /graph exploded on purpose/);
    assert.match(adapter.logs(), /graph exploded on purpose/);
    assert.match(b.runErrors[0].message, /graph exploded on purpose/);
    assert.equal(a.runErrors[0].code, "langgraph_error");
    assert.equal(b.runErrors[0].code, undefined);
    assert.equal(a.events.at(-1).type, "RUN_ERROR");
  });
}

// withoutRaw drops what the reference adds for debugging: RAW events and
// the rawEvent field of the others.
const withoutRaw = (events) => events.filter((e) => e.type !== "RAW").map(({ rawEvent, ...e }) => e);
const noRawState = (s) => Object.fromEntries(Object.entries(s ?? {}).filter(([k]) => !["messages", "copilotkit", "tools"].includes(k)));

for (const v of versions) {
  test(`${v}: CopilotKit's Python helpers: hidden model call, predicted state, final messages and state as the reference's`, async () => {
    const [a, b] = await Promise.all([ours(v, "helpers"), theirs(v, "helpers")]);
    assert.deepEqual(a.runErrors, []);
    assert.deepEqual(b.runErrors, []);
    assert.deepEqual(comparable(a.messages), comparable(b.messages));
    assert.deepEqual(noRawState(a.state), { progress: 1, steps: ["a", "b"] });
    assert.deepEqual(noRawState(b.state), { progress: 1, steps: ["a", "b"] });
    // copilotkit_customize_config(emit_messages=False): the model call is
    // hidden by both.
    assert.ok(!JSON.stringify(a.events).includes("internal notes"), "a hidden model call streamed");
    assert.ok(!JSON.stringify(withoutRaw(b.events)).includes("internal notes"));
    // The reference's RAW events (on by default) carry it nonetheless.
    assert.ok(b.events.some((e) => e.type === "RAW" && JSON.stringify(e).includes("internal notes")));
    // emit_intermediate_state: both announce PredictState before the tool
    // call; the adapter also streams the predicted key as a STATE_DELTA
    // while the arguments arrive (the reference leaves that to the client).
    for (const r of [a, b]) {
      const predict = r.events.findIndex((e) => e.type === "CUSTOM" && e.name === "PredictState");
      const plan = r.events.findIndex((e) => e.type === "TOOL_CALL_START" && e.toolCallName === "write_plan");
      assert.ok(predict >= 0 && predict < plan, `PredictState at ${predict}, write_plan at ${plan}`);
      assert.deepEqual(r.events[predict].value, [{ state_key: "steps", tool: "write_plan", tool_argument: "steps" }]);
    }
    const delta = a.events.find((e) => e.type === "STATE_DELTA" && e.delta.some((op) => op.path === "/steps"));
    assert.deepEqual(delta?.delta.find((op) => op.path === "/steps").value, ["a", "b"]);
    assert.ok(!b.events.some((e) => e.type === "STATE_DELTA"));
  });

  test(`${v}: CopilotKit's Python helpers (copilotkitHelpers: true): emitted message, emitted state and exit reach the client`, async () => {
    const [a, b] = await Promise.all([ours(v, "helpers-on"), theirs(v, "helpers")]);
    assert.deepEqual(a.runErrors, []);
    assert.deepEqual(comparable(a.messages), comparable(b.messages));
    // copilotkit_emit_message: the adapter streams it as a text message;
    // the reference passes CopilotKit's custom event on.
    const emitted = a.events.find((e) => e.type === "TEXT_MESSAGE_CONTENT" && e.delta === "Working on it");
    assert.ok(emitted && a.events.some((e) => e.type === "TEXT_MESSAGE_START" && e.messageId === emitted.messageId), "emitted message");
    assert.ok(b.events.some((e) => e.type === "CUSTOM" && e.name === "copilotkit_manually_emit_message" && e.value.message === "Working on it"));
    // copilotkit_emit_state: a STATE_SNAPSHOT with the emitted keys, from both.
    for (const r of [a, b]) assert.ok(r.events.some((e) => e.type === "STATE_SNAPSHOT" && e.snapshot?.progress === 0.5), "emitted state");
    // copilotkit_exit: CUSTOM Exit, from both.
    for (const r of [a, b]) assert.ok(r.events.some((e) => e.type === "CUSTOM" && e.name === "Exit" && e.value === true), "exit");
    assert.ok(!JSON.stringify(a.events).includes("internal notes"));
  });

  test(`${v}: private state keys (input/output schemas) stay on the server, as with the reference`, async () => {
    const [a, on, b] = await Promise.all([ours(v, "private"), ours(v, "private-on"), theirs(v, "private")]);
    for (const [name, r, events] of [["ours", a, a.events], ["ours, copilotkitHelpers: true", on, on.events], ["reference", b, withoutRaw(b.events)]]) {
      assert.deepEqual(r.runErrors, []);
      assert.ok(!JSON.stringify(events).includes("s3cr3t"), `a private key reached the client (${name})`);
      assert.deepEqual(noRawState(r.state), { answer: "42" });
      assert.deepEqual(comparable(r.messages).at(-1), { role: "assistant", content: "The answer is 42." });
    }
    // The reference's RAW events (on by default) carry the private key.
    assert.ok(b.events.some((e) => e.type === "RAW" && JSON.stringify(e).includes("s3cr3t")));
  });
}

test("an unknown graph is a RUN_ERROR with a stable code and the server's status, at once; its complaint in the log", async () => {
  for (const v of versions) {
    const t0 = Date.now();
    const r = await ours(v, "missing");
    assert.equal(r.runErrors.length, 1, v);
    assert.equal(r.runErrors[0].code, "upstream_status");
    assert.match(r.runErrors[0].message, /LangGraph run: HTTP 422/);
    assert.ok(Date.now() - t0 < 5000, "no hang");
  }
  assert.match(adapter.logs(), /Invalid assistant: 'no-such-graph'/);
});

// AG-UI 1.0: the interrupt in RUN_FINISHED's outcome, resumed by id with
// RunAgentInput.resume[] (raw POSTs: the 0.0.5x clients have no such
// field). The reference does this when asked (emit_interrupt_outcome),
// ours always (older clients ignore the field).
test("1.0.0: an interrupt ends the run with outcome interrupt; resume[] by its id finishes it, as the reference's", async () => {
  const post = async (url, body) => {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ runId: randomUUID(), tools: [], context: [], state: {}, forwardedProps: {}, ...body }) });
    assert.equal(res.status, 200);
    return (await res.text()).split("\n").filter((l) => l.startsWith("data:")).map((l) => JSON.parse(l.slice(5)));
  };
  const finals = {};
  for (const [name, url] of [["ours", `${adapter.url}/agents/approve/run`], ["reference", `${ref.url}/agents/approve-outcome`]]) {
    const threadId = `thread-${randomUUID()}`;
    const first = await runClient("1.0.0", url, { threadId, messages: user("refund?") });
    assert.deepEqual(first.runErrors, [], name);
    const fin = first.events.find((e) => e.type === "RUN_FINISHED");
    assert.equal(fin.outcome?.type, "interrupt", name);
    assert.equal(fin.outcome.interrupts.length, 1, name);
    const it = fin.outcome.interrupts[0];
    assert.ok(it.id, name);
    // Where the interrupt's value sits differs (comparison table).
    const value = name === "ours" ? it.metadata?.value : it.metadata?.langgraph?.raw;
    assert.deepEqual(value, { question: "Refund order A-1?" }, `${name}: ${JSON.stringify(it)}`);
    if (process.env.SHOW_DIFF) console.log(name, JSON.stringify(it));
    const evs = await post(url, { threadId, messages: first.messages, resume: [{ interruptId: it.id, status: "resolved", payload: { approved: true } }] });
    assert.deepEqual(evs.filter((e) => e.type === "RUN_ERROR"), [], name);
    const end = evs.findLast((e) => e.type === "RUN_FINISHED");
    assert.ok(end && end.outcome?.type !== "interrupt", name);
    finals[name] = comparable(evs.findLast((e) => e.type === "MESSAGES_SNAPSHOT").messages);
  }
  assert.equal(finals.ours.at(-1).content, 'Decision: {"approved":true}');
  assert.deepEqual(finals.ours, finals.reference);
});

test("the adapter-to-server connection cut mid-run resumes (Last-Event-ID) with no lost or repeated text", async () => {
  for (const v of versions) {
    const before = cut.cuts();
    const r = await ours(v, "chat-cut");
    assert.deepEqual(r.runErrors, [], adapter.logs());
    assert.ok(cut.cuts() > before, "the proxy cut the stream");
    assert.deepEqual(comparable(r.messages).slice(1).map((m) => m.content), ["Hello from LangGraph, streamed token by token."], `${v}: ${JSON.stringify(r.events.map((e) => e.type))}`);
  }
});

// One cut mid-run, resumed: the streamed text (not only the final
// snapshot) arrives whole and once, though langgraph dev gives all the
// frames of one millisecond one id, replays only the frames of a greater
// id, and may repeat frames where its replay meets its live frames.
// Cut after each frame count in turn, so that some cuts fall between
// frames of one millisecond.
test("one cut of the adapter-to-server connection: every streamed token arrives once", async () => {
  for (let at = 3; at <= 24; at++) {
    const before = once.cuts();
    once.allow(1, at);
    const r = await ours("1.0.0", "chat-once");
    assert.deepEqual(r.runErrors, [], adapter.logs());
    assert.equal(once.cuts(), before + 1, `cut after ${at} frames`);
    const streamed = r.events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("");
    assert.equal(streamed, "Hello from LangGraph, streamed token by token.", `cut after ${at} frames`);
  }
});

// Every difference between the adapter's event stream and the
// reference's is one the comparison table lists: by graph, the event
// kinds whose counts may differ. A new kind of difference fails here
// until it is documented.
const documented = {
  // RAW: the reference's debugging copy of every LangGraph event.
  // STATE_SNAPSHOT: the reference's after every node, with messages;
  // ours when the state without messages changes.
  chat: ["RAW", "STATE_SNAPSHOT"],
  // + ours also streams a tool call's arguments as the server sends them
  // (two fragments; the reference one), and an A2UI surface for a JSON
  // tool result.
  tools: ["RAW", "STATE_SNAPSHOT", "TOOL_CALL_ARGS", "ACTIVITY_SNAPSHOT"],
  // + the interrupted node's step (the reference reports it; ours has no
  // message from it to place it).
  approve: ["RAW", "STATE_SNAPSHOT", "STEP_STARTED", "STEP_FINISHED"],
  // + subgraph steps (ours: the node path once, the reference: the
  // parent and the child node), MESSAGES_SNAPSHOT per subgraph switch in
  // the reference, the summary's whole AI message as text in ours.
  nested: ["RAW", "STATE_SNAPSHOT", "MESSAGES_SNAPSHOT", "STEP_STARTED", "STEP_FINISHED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END"],
  // + predicted state as STATE_DELTA (ours), the final AI message as text
  // (ours), the tool call's argument fragments, and without
  // copilotkitHelpers the helpers' events (emitted message, exit).
  helpers: ["RAW", "STATE_SNAPSHOT", "STATE_DELTA", "TOOL_CALL_ARGS", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "CUSTOM:Exit", "CUSTOM:copilotkit_manually_emit_message"],
  // + the AI message a node returns streamed as text (ours; the
  // reference sends it in the MESSAGES_SNAPSHOT only); no step for a node
  // that writes only state (ours: "reply" only, the reference: "think"
  // and "reply").
  private: ["RAW", "STATE_SNAPSHOT", "STEP_STARTED", "STEP_FINISHED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END"],
  // + the reference's STEP_STARTED before the error.
  fail: ["RAW", "STEP_STARTED"],
};
for (const graph of Object.keys(documented)) {
  test(`every event-stream difference from the reference is documented: ${graph}`, async () => {
    const [a, b] = await Promise.all([ours("1.0.0", graph), theirs("1.0.0", graph)]);
    const kind = (e) => e.type + (e.type === "CUSTOM" ? ":" + e.name : "");
    const count = (evs) => evs.reduce((m, e) => m.set(kind(e), (m.get(kind(e)) ?? 0) + 1), new Map());
    const x = count(b.events), y = count(a.events);
    const differing = [...new Set([...x.keys(), ...y.keys()])].filter((k) => x.get(k) !== y.get(k)).sort();
    const undocumented = differing.filter((k) => !documented[graph].includes(k));
    assert.deepEqual(undocumented, [], `undocumented differences: ${undocumented.map((k) => `${k} reference ${x.get(k) ?? 0}, ours ${y.get(k) ?? 0}`).join("; ")}`);
    // What must never differ: the run's frame, tool results.
    for (const k of ["RUN_STARTED", "RUN_FINISHED", "RUN_ERROR", "TOOL_CALL_START", "TOOL_CALL_END", "TOOL_CALL_RESULT"]) assert.ok(!differing.includes(k), k);
  });
}
