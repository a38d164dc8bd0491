// A recorder MCP App server for the host-duty tests, over streamable HTTP
// in the test process (@modelcontextprotocol/sdk): its View writes down
// every message the host sends it (window.__seen, and #log), applies the
// host's theme, declares the fullscreen display mode, and has buttons for
// request-display-mode, update-model-context and ui/message. Its tool can
// be made slow or to fail; the server records the calls it gets
// (including the View's record_teardown when it is torn down).
import http from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

export const INSTRUCTIONS = "Use show_recorder to show the recorder card; pass delayMs to make it slow.";
export const VIEW_URI = "ui://recorder/view.html";

const VIEW = `<!doctype html><html><head><meta charset="utf-8"><style>
body{font:13px var(--font-sans,system-ui);margin:8px;color:var(--color-text-primary,#111);background:var(--color-background-primary,#fff)}
#log{font:11px ui-monospace,monospace;white-space:pre-wrap;max-height:240px;overflow:auto}
</style></head><body><h3 id="title">Recorder</h3>
<div id="phase">waiting</div>
<button id="fs">Full screen</button> <button id="ctx">Tell the model</button> <button id="msg">Ask the agent</button>
<div id="log"></div>
<script>
window.__seen = [];
let n = 1; const pending = new Map();
const send = (m) => window.parent.postMessage(m, "*");
const request = (method, params) => new Promise((resolve) => { const id = n++; pending.set(id, resolve); send({ jsonrpc: "2.0", id, method, params }); });
function apply(ctx) {
  if (!ctx) return;
  if (ctx.theme) document.documentElement.dataset.theme = ctx.theme;
  for (const [k, v] of Object.entries(ctx.styles?.variables || {})) document.documentElement.style.setProperty(k, v);
}
window.addEventListener("message", async (e) => {
  const m = e.data;
  if (!m || m.jsonrpc !== "2.0") return;
  if (m.id !== undefined && m.method === undefined) { const r = pending.get(m.id); if (r) { pending.delete(m.id); r(m.result ?? m.error); } return; }
  window.__seen.push({ method: m.method, params: m.params, at: Date.now() });
  document.getElementById("log").textContent += m.method + "\\n";
  if (m.method === "ui/notifications/tool-input") document.getElementById("phase").textContent = "input: " + JSON.stringify(m.params.arguments);
  if (m.method === "ui/notifications/tool-result") document.getElementById("phase").textContent = (m.params.isError ? "error: " : "result: ") + JSON.stringify(m.params.structuredContent ?? m.params.content);
  if (m.method === "ui/notifications/host-context-changed") apply(m.params);
  if (m.method === "ui/resource-teardown") {
    await request("tools/call", { name: "record_teardown", arguments: {} });
    send({ jsonrpc: "2.0", id: m.id, result: {} });
  }
});
document.getElementById("fs").onclick = async () => { window.__mode = await request("ui/request-display-mode", { mode: "fullscreen" }); };
document.getElementById("ctx").onclick = () => request("ui/update-model-context", { content: [{ type: "text", text: "The recorder shows 3 entries." }], structuredContent: { entries: 3 } });
document.getElementById("msg").onclick = () => request("ui/message", { role: "user", content: [{ type: "text", text: "Please summarise the recorder." }] });
request("ui/initialize", { protocolVersion: "2026-01-26", appInfo: { name: "recorder", version: "1" }, appCapabilities: { availableDisplayModes: ["inline", "fullscreen"] } }).then((r) => {
  window.__init = r;
  apply(r?.hostContext);
  send({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} });
  new ResizeObserver(() => send({ jsonrpc: "2.0", method: "ui/notifications/size-changed", params: { height: document.documentElement.scrollHeight, width: document.documentElement.scrollWidth } })).observe(document.body);
});
</script></body></html>`;

function newServer(calls, client) {
  const s = new McpServer({ name: "recorder", version: "1.0.0" }, { instructions: INSTRUCTIONS });
  s.registerTool("show_recorder", {
    description: "Show the recorder card",
    inputSchema: { label: z.string().optional(), delayMs: z.number().optional(), fail: z.boolean().optional() },
    _meta: { ui: { resourceUri: VIEW_URI } },
  }, async (args) => {
    calls.push({ tool: "show_recorder", args, at: Date.now() });
    if (args.delayMs) await new Promise((r) => setTimeout(r, args.delayMs));
    if (args.fail) return { isError: true, content: [{ type: "text", text: "the recorder is unplugged" }] };
    return { content: [{ type: "text", text: "recorded " + (args.label ?? "") }], structuredContent: { label: args.label ?? "", entries: 3 } };
  });
  s.registerTool("record_teardown", {
    description: "The View reports its teardown (app only)",
    inputSchema: {},
    _meta: { ui: { visibility: ["app"] } },
  }, async () => {
    calls.push({ tool: "record_teardown", at: Date.now() });
    return { content: [{ type: "text", text: "ok" }] };
  });
  // A2UI in tool results (the draft A2UI-over-MCP-Apps extension), only
  // to hosts that declare application/a2ui+json.
  const counter = { n: 0 };
  const a2ui = (msgs) => ({ type: "resource", resource: { uri: "a2ui://counter", mimeType: "application/a2ui+json", text: JSON.stringify(msgs) } });
  s.registerTool("a2ui_counter", { description: "A counter surface in A2UI", inputSchema: {} }, async () => {
    calls.push({ tool: "a2ui_counter", at: Date.now() });
    // Stateless: the capabilities the client declared at initialize.
    const types = client.capabilities?.extensions?.["io.modelcontextprotocol/ui"]?.mimeTypes ?? [];
    if (!types.includes("application/a2ui+json")) return { content: [{ type: "text", text: "the host does not render A2UI" }] };
    return { content: [{ type: "text", text: "Counter shown." }, a2ui([
      { version: "v0.9", createSurface: { surfaceId: "counter", catalogId: "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json" } },
      { version: "v0.9", updateComponents: { surfaceId: "counter", components: [
        { id: "root", component: "Column", children: ["n", "inc"] },
        { id: "n", component: "Text", text: { path: "/label" } },
        { id: "inc", component: "Button", child: "incl", action: { event: { name: "a2ui_increment", context: { step: 1 } } } },
        { id: "incl", component: "Text", text: "Add one" },
      ] } },
      { version: "v0.9", updateDataModel: { surfaceId: "counter", path: "/label", value: "Count: " + counter.n } },
    ])] };
  });
  s.registerTool("a2ui_increment", { description: "Counter button (app only)", inputSchema: { step: z.number().optional() }, _meta: { ui: { visibility: ["app"] } } }, async ({ step }) => {
    counter.n += step ?? 1;
    calls.push({ tool: "a2ui_increment", at: Date.now() });
    return { content: [a2ui([{ version: "v0.9", updateDataModel: { surfaceId: "counter", path: "/label", value: "Count: " + counter.n } }])] };
  });
  s.registerResource("view", VIEW_URI, { mimeType: "text/html;profile=mcp-app" }, async () => ({
    contents: [{ uri: VIEW_URI, mimeType: "text/html;profile=mcp-app", text: VIEW }],
  }));
  return s;
}

export async function startRecorder() {
  const calls = [];
  const client = {};
  const server = http.createServer(async (req, res) => {
    if (!req.url.startsWith("/mcp")) return res.writeHead(404).end();
    let body = "";
    for await (const c of req) body += c;
    const msg = body ? JSON.parse(body) : undefined;
    if (msg?.method === "initialize") client.capabilities = msg.params?.capabilities;
    // Stateless: one server and transport per request.
    const s = newServer(calls, client);
    const t = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => { t.close(); s.close(); });
    await s.connect(t);
    await t.handleRequest(req, res, msg);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${server.address().port}/mcp`,
    calls,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }),
  };
}
