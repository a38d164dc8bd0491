// MCP Apps through the adapter with real third-party MCP App servers from
// npm (server-basic-vanillajs over stdio, server-system-monitor over HTTP)
// and the Go example refund server: tools are injected, called mid-run,
// cards have the official middleware's shape, the follow-up run's text
// arrives in the same client run, and the card back channel enforces
// visibility.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { startAdapter } from "../lib/adapter.js";
import { startUpstream } from "../lib/upstream.js";
import { clients, runClient } from "../lib/clients.js";
import { goBinary } from "../lib/gobin.js";
import { sse } from "../agui/scenarios.js";
import { freePort, waitPort } from "../lib/ports.js";

const nm = fileURLToPath(new URL("../node_modules/@modelcontextprotocol/", import.meta.url));
let adapter, up, monitor;
const seenTools = [];

before(async () => {
  const port = await freePort();
  monitor = spawn(process.execPath, [nm + "server-system-monitor/dist/index.js"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "inherit"] });
  await waitPort(port);
  // The scripted agent: round 0 calls the UI tools, the follow-up (which
  // carries the tool results) answers in text.
  up = await startUpstream({
    "/agent": (i) => {
      const results = i.messages.filter((m) => m.role === "tool");
      if (results.length === 0) {
        seenTools.push(i.tools.map((t) => t.name));
        return sse([
          { type: "RUN_STARTED", threadId: i.threadId, runId: i.runId },
          { type: "TOOL_CALL_START", toolCallId: "call-time", toolCallName: "get-time" },
          { type: "TOOL_CALL_ARGS", toolCallId: "call-time", delta: "{}" },
          { type: "TOOL_CALL_END", toolCallId: "call-time" },
          { type: "TOOL_CALL_START", toolCallId: "call-sys", toolCallName: "get-system-info" },
          { type: "TOOL_CALL_END", toolCallId: "call-sys" },
          { type: "RUN_FINISHED", threadId: i.threadId, runId: i.runId },
        ]);
      }
      return sse([
        { type: "RUN_STARTED", threadId: i.threadId, runId: i.runId },
        { type: "TEXT_MESSAGE_START", messageId: "answer", role: "assistant" },
        { type: "TEXT_MESSAGE_CONTENT", messageId: "answer", delta: `I called ${results.length} tools.` },
        { type: "TEXT_MESSAGE_END", messageId: "answer" },
        { type: "RUN_FINISHED", threadId: i.threadId, runId: i.runId },
      ]);
    },
  });
  adapter = await startAdapter(`mcpServers:
  basic: {command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(nm + "server-basic-vanillajs/dist/index.js")}, "--stdio"]}
  monitor: {url: "http://127.0.0.1:${port}/mcp"}
  refundsStdio: {command: [${JSON.stringify(goBinary("./examples/refund-server"))}]}
agents:
  apps: {type: agui, url: "${up.url}/agent", mcpServers: [basic, monitor, refundsStdio], a2ui: {disabled: true}}
`);
});

after(async () => {
  await adapter?.stop();
  await up?.close();
  monitor?.kill();
});

let card, timeCard;
// The thread of the run whose cards the proxied requests below use: a
// card's capability is bound to its principal and thread.
const cardThread = `cards-${Date.now()}`;

for (const v of Object.keys(clients)) {
  test(`${v}: UI tools are injected, called mid-run, and the follow-up lands in the same run`, async () => {
    const got = await runClient(v, `${adapter.url}/agents/apps/run`, { threadId: v === "1.0.0" ? cardThread : undefined });
    assert.equal(got.rejected, undefined);
    assert.deepEqual(got.failed, []);
    assert.deepEqual(got.warnings, []);
    const tools = seenTools.at(-1);
    for (const t of ["get-time", "get-system-info", "review_refund", "refund_policy"]) assert.ok(tools.includes(t), `${t} not offered: ${tools}`);
    for (const t of ["poll-system-stats", "decide_refund"]) assert.ok(!tools.includes(t), `app-only ${t} offered to the model`);
    const types = got.events.map((e) => e.type);
    assert.equal(types.filter((t) => t === "RUN_STARTED").length, 1);
    assert.equal(types.filter((t) => t === "RUN_FINISHED").length, 1);
    const cards = got.messages.filter((m) => m.role === "activity" && m.activityType === "mcp-apps");
    assert.equal(cards.length, 2);
    const time = cards.find((c) => c.content.resourceUri === "ui://get-time/mcp-app.html");
    assert.ok(time, "no get-time card");
    assert.deepEqual(Object.keys(time.content).sort(), ["resourceUri", "result", "serverHash", "serverId", "toolCallId", "toolInput"]);
    assert.equal(time.content.serverId, "basic");
    assert.match(time.content.serverHash, /^gcap1\./, "the card's serverHash is its capability");
    assert.ok(got.messages.some((m) => m.toolCalls?.some((c) => c.id === time.content.toolCallId)), "the card names its tool call");
    assert.ok(time.content.result.structuredContent?.time, "structuredContent kept");
    assert.ok(!("resultType" in time.content.result));
    const results = got.messages.filter((m) => m.role === "tool");
    assert.equal(results.length, 2);
    assert.ok(got.messages.some((m) => m.role === "assistant" && m.content === "I called 2 tools."), "follow-up text missing");
    if (v === "1.0.0") {
      card = cards.find((c) => c.content.serverId === "monitor");
      timeCard = time;
    }
  });
}

async function proxied(req, threadId = cardThread) {
  const before = seenTools.length;
  const got = await runClient("1.0.0", `${adapter.url}/agents/apps/run`, { threadId, forwardedProps: { __proxiedMCPRequest: req } });
  assert.deepEqual(got.failed, []);
  assert.deepEqual(got.events.map((e) => e.type), ["RUN_STARTED", "RUN_FINISHED"]);
  assert.equal(seenTools.length, before, "the agent was called for a proxied request");
  return got.events[1].result;
}

test("the app-only poll-system-stats is callable through a proxied request", async () => {
  const r = await proxied({ serverHash: card.content.serverHash, method: "tools/call", params: { name: "poll-system-stats", arguments: {} } });
  assert.ok(!r.isError, JSON.stringify(r));
  assert.ok(r.content.length > 0);
});

test("a card's resources/read returns the MCP App HTML", async () => {
  const r = await proxied({ serverHash: timeCard.content.serverHash, serverId: "basic", method: "resources/read", params: { uri: "ui://get-time/mcp-app.html" } });
  assert.equal(r.contents[0].mimeType, "text/html;profile=mcp-app");
  assert.ok(r.contents[0].text.length > 100000);
});

test("a proxied call without the card's capability, to another server's tool or with a disallowed method is refused", async () => {
  let r = await proxied({ serverId: "refundsStdio", method: "tools/call", params: { name: "decide_refund", arguments: {} } });
  assert.equal(r.code, -32600, JSON.stringify(r));
  assert.match(r.error, /capability/);
  // The monitor card names its own server: the basic server's tools are
  // out of its reach.
  r = await proxied({ serverHash: card.content.serverHash, serverId: "basic", method: "tools/call", params: { name: "get-time", arguments: {} } });
  assert.equal(r.code, -32600, JSON.stringify(r));
  r = await proxied({ serverHash: card.content.serverHash, method: "tools/list" });
  assert.match(r.error, /not allowed/);
  // On another thread the card's capability is refused.
  r = await proxied({ serverHash: card.content.serverHash, method: "tools/call", params: { name: "poll-system-stats", arguments: {} } }, "another-thread");
  assert.equal(r.code, -32600, JSON.stringify(r));
  assert.match(r.error, /another conversation/);
});
