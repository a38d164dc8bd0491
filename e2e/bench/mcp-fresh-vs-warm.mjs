// Proxied tools/call latency: the adapter's warm pool vs what
// @ag-ui/mcp-apps-middleware 0.1.x does (a fresh @modelcontextprotocol/sdk
// Client and StreamableHTTPClientTransport per operation, session deleted
// after). Both go to the same MCP server (the Go example refund server over
// HTTP) and both go through the same loopback; the warm path is measured
// end to end through the adapter's proxied-request route.
//
//   node bench/mcp-fresh-vs-warm.mjs
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { spawn } from "node:child_process";
import net from "node:net";
import { goBinary } from "../lib/gobin.js";
import { startAdapter } from "../lib/adapter.js";

const N = Number(process.env.N || 300);
const port = await new Promise((r) => { const s = net.createServer().listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => r(p)); }); });
const server = spawn(goBinary("./examples/refund-server"), ["-http", `127.0.0.1:${port}`], { stdio: "ignore" });
await new Promise((r) => setTimeout(r, 500));
const url = `http://127.0.0.1:${port}/mcp`;
const args = { name: "review_refund", arguments: { refundId: "RF-1001" } };

async function fresh() {
  const client = new Client({ name: "mcp-apps-middleware", version: "1.0.0" }, { capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } } });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  await client.callTool(args);
  await transport.terminateSession().catch(() => {});
  await client.close();
}

const adapter = await startAdapter(`mcpServers:\n  refundsHttp: {url: "${url}"}\nagents:\n  a: {type: demo, mcpServers: [refundsHttp]}\n`);
const body = (i) => JSON.stringify({ threadId: `b${i}`, runId: `b${i}`, messages: [], forwardedProps: { __proxiedMCPRequest: { serverId: "refundsHttp", method: "tools/call", params: { name: "decide_refund", arguments: { refundId: "RF-1001", decision: "approve" } } } } });
async function warm(i) {
  const res = await fetch(`${adapter.url}/agents/a/run`, { method: "POST", headers: { "Content-Type": "application/json" }, body: body(i) });
  const text = await res.text();
  if (!text.includes("RUN_FINISHED")) throw new Error(text);
}

async function time(f) {
  const d = [];
  for (let i = 0; i < N; i++) {
    const t = process.hrtime.bigint();
    await f(i);
    d.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  d.sort((a, b) => a - b);
  return { p50: d[Math.floor(N / 2)], p99: d[Math.floor(N * 0.99)] };
}

for (let i = 0; i < 20; i++) { await fresh(); await warm(1e6 + i); }
const f = await time(fresh);
const w = await time((i) => warm(i));
console.log(`fresh connection per call (Node SDK, as the middleware): p50 ${f.p50.toFixed(2)} ms, p99 ${f.p99.toFixed(2)} ms`);
console.log(`warm pool, through the adapter's proxied-request route: p50 ${w.p50.toFixed(2)} ms, p99 ${w.p99.toFixed(2)} ms`);
console.log(`ratio (p50): ${(f.p50 / w.p50).toFixed(1)}x`);
await adapter.stop();
server.kill();
