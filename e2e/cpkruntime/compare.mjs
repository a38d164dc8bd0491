// The same requests to the real CopilotRuntime 1.75.0 (its free
// in-memory runner) and to the adapter, both in front of one scripted
// AG-UI agent; compare.test.js diffs the answers.
import http from "node:http";
import { HttpAgent } from "@ag-ui/client";
import { CopilotRuntime } from "@copilotkit/runtime/v2";
import { createCopilotNodeListener } from "@copilotkit/runtime/v2/node";
import { startAdapter } from "../lib/adapter.js";

// startScript serves a scripted AG-UI agent: a forced copilotkitSuggest
// gets two suggestions; any other run says hello and sets a state.
export async function startScript() {
  const server = http.createServer(async (req, res) => {
    let body = "";
    for await (const c of req) body += c;
    const input = JSON.parse(body || "{}");
    const { threadId, runId } = input;
    res.writeHead(200, { "Content-Type": "text/event-stream" });
    const send = (ev) => res.write(`data: ${JSON.stringify(ev)}\n\n`);
    send({ type: "RUN_STARTED", threadId, runId });
    if (input.forwardedProps?.toolChoice?.function?.name === "copilotkitSuggest") {
      send({ type: "TOOL_CALL_START", toolCallId: "s1", toolCallName: "copilotkitSuggest", parentMessageId: "sm1" });
      send({ type: "TOOL_CALL_ARGS", toolCallId: "s1", delta: JSON.stringify({ suggestions: [{ title: "Say hi", message: "hi" }, { title: "Ask", message: "what?" }] }) });
      send({ type: "TOOL_CALL_END", toolCallId: "s1" });
    } else {
      send({ type: "TEXT_MESSAGE_START", messageId: `a-${runId}`, role: "assistant" });
      send({ type: "TEXT_MESSAGE_CONTENT", messageId: `a-${runId}`, delta: "Hello from the script." });
      send({ type: "TEXT_MESSAGE_END", messageId: `a-${runId}` });
      send({ type: "STATE_SNAPSHOT", snapshot: { turns: 1 } });
    }
    send({ type: "RUN_FINISHED", threadId, runId });
    res.end();
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((r) => server.close(r)) };
}

// startRuntime serves CopilotRuntime 1.75 (SSE mode, InMemoryAgentRunner).
export async function startRuntime(agentURL) {
  const runtime = new CopilotRuntime({ agents: { default: new HttpAgent({ url: agentURL, description: "scripted" }) } });
  const listener = createCopilotNodeListener({ runtime, basePath: "/api/copilotkit", activateChannels: false });
  const server = http.createServer(listener);
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}/api/copilotkit`, close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(r); }) };
}

export async function startOurs(agentURL) {
  const a = await startAdapter(`agents:\n  default: {type: agui, url: "${agentURL}", description: "scripted", a2ui: {disabled: true}}\n`);
  return { url: a.url + "/api/copilotkit", close: () => a.stop() };
}

const runBody = (threadId, runId, text) => ({ threadId, runId, messages: [{ id: `u-${runId}`, role: "user", content: text }], tools: [], context: [], state: {}, forwardedProps: {} });
const suggestBody = {
  threadId: "sg", runId: "sg-r", state: {}, context: [],
  messages: [{ id: "u-s", role: "user", content: "hi" }],
  tools: [{ name: "copilotkitSuggest", description: "suggest", parameters: { type: "object", properties: { suggestions: { type: "array" } } } }],
  forwardedProps: { toolChoice: { type: "function", function: { name: "copilotkitSuggest" } } },
};

// script is the requests, in order, each named.
export const script = [
  ["info", "GET", "/info"],
  ["run t1", "POST", "/agent/default/run", runBody("t1", "r1", "hi")],
  ["run t2", "POST", "/agent/default/run", runBody("t2", "r2", "hello")],
  ["list", "GET", "/threads?agentId=default"],
  ["list limit 1", "GET", "/threads?agentId=default&limit=1"],
  ["messages", "GET", "/threads/t1/messages"],
  ["events", "GET", "/threads/t1/events"],
  ["state", "GET", "/threads/t1/state"],
  ["messages of an unknown thread", "GET", "/threads/nope/messages"],
  ["suggest", "POST", "/agent/default/suggest", suggestBody],
  ["list after suggest", "GET", "/threads?agentId=default"],
  ["rename", "PATCH", "/threads/t1", { agentId: "default", name: "Plans" }],
  ["archive", "POST", "/threads/t1/archive", { agentId: "default" }],
  ["delete", "DELETE", "/threads/t2", { agentId: "default" }],
  ["clear", "POST", "/threads/clear"],
  ["list after clear", "GET", "/threads?agentId=default"],
];

// play sends the script to base and returns {name: {status, body}}, the
// body parsed (JSON), or the SSE event types in order.
export async function play(base) {
  const out = {};
  for (const [name, method, path, body] of script) {
    const res = await fetch(base + path, {
      method,
      headers: body ? { "Content-Type": "application/json", Accept: "text/event-stream" } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let parsed = text;
    if ((res.headers.get("content-type") || "").includes("event-stream")) {
      parsed = text.split("\n").filter((l) => l.startsWith("data:")).map((l) => JSON.parse(l.slice(5)).type);
    } else {
      try { parsed = text ? JSON.parse(text) : null; } catch {}
    }
    out[name] = { status: res.status, body: parsed };
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const agent = await startScript();
  const rt = await startRuntime(agent.url);
  const ours = await startOurs(agent.url);
  const a = await play(rt.url);
  const b = await play(ours.url);
  for (const [name] of script) console.log(`## ${name}\nruntime: ${JSON.stringify(a[name]).slice(0, 1500)}\nadapter: ${JSON.stringify(b[name]).slice(0, 1500)}\n`);
  await rt.close(); await ours.close(); await agent.close();
  process.exit(0);
}
