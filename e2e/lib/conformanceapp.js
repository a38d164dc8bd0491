// The host-conformance MCP server for e2e (streamable HTTP in the test
// process, @modelcontextprotocol/sdk), with the fixture tools of the
// ext-apps host-conformance catalogue: run_conformance (model-visible,
// renders the runner View ui://conformance/runner, mcp/conformance-entry.js
// bundled with the published ext-apps App), conformance_probe (app-only,
// echoes) and model_only_probe (model-only). The runner declares one
// connect domain, a loopback server started here (CORS open, so a fetch
// that the CSP lets through succeeds); another loopback server is the
// undeclared origin. Everything is local: the suite runs offline.
import http from "node:http";
import { readFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { bundle } from "./browser.js";

export const RUNNER_URI = "ui://conformance/runner";

function newServer(html, declared, undeclared) {
  const s = new McpServer({ name: "conformance", version: "1.0.0" });
  s.registerTool("run_conformance", {
    description: "Render the MCP Apps host-conformance runner",
    inputSchema: { declared: z.string().optional(), undeclared: z.string().optional() },
    _meta: { ui: { resourceUri: RUNNER_URI } },
  }, async () => ({ content: [{ type: "text", text: "conformance runner shown" }], structuredContent: { declared, undeclared } }));
  s.registerTool("conformance_probe", {
    description: "App-only probe: echoes its ping",
    inputSchema: { ping: z.string().optional() },
    _meta: { ui: { resourceUri: RUNNER_URI, visibility: ["app"] } },
  }, async ({ ping }) => ({ content: [{ type: "text", text: "probe: " + (ping ?? "") }] }));
  s.registerTool("model_only_probe", {
    description: "Model-only probe",
    inputSchema: { ping: z.string().optional() },
    _meta: { ui: { resourceUri: RUNNER_URI, visibility: ["model"] } },
  }, async ({ ping }) => ({ content: [{ type: "text", text: "model-only: " + (ping ?? "") }] }));
  s.registerResource("runner", RUNNER_URI, { mimeType: "text/html;profile=mcp-app" }, async () => ({
    contents: [{ uri: RUNNER_URI, mimeType: "text/html;profile=mcp-app", text: html, _meta: { ui: { csp: { connectDomains: [declared] } } } }],
  }));
  return s;
}

// plain starts a loopback server answering every request with a short
// text page and open CORS.
async function plain() {
  const server = http.createServer((req, res) => res.writeHead(200, { "Content-Type": "text/plain", "Access-Control-Allow-Origin": "*" }).end("ok"));
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) };
}

export async function startConformanceApp() {
  const js = readFileSync(await bundle("mcp/conformance-entry.js", "conformance-runner.js"), "utf8");
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>MCP Apps host conformance</title>
<style>body{font:13px system-ui,sans-serif;margin:8px}table{border-collapse:collapse;width:100%}td{border-bottom:1px solid #8884;padding:3px 6px;vertical-align:top;overflow-wrap:anywhere}td:nth-child(2),td:nth-child(3){white-space:nowrap}tr[data-status=PASS] td:nth-child(3){color:#1a7f37}tr[data-status=FAIL] td:nth-child(3){color:#cf222e;font-weight:600}</style></head>
<body><h3>MCP Apps host conformance</h3><div id="status">running</div><table><tbody id="results"></tbody></table>
<script type="module">${js.replaceAll("</script", "<\\/script")}</script></body></html>`;
  const declared = await plain();
  const undeclared = await plain();
  const server = http.createServer(async (req, res) => {
    if (!req.url.startsWith("/mcp")) return res.writeHead(404).end();
    let body = "";
    for await (const c of req) body += c;
    const s = newServer(html, declared.url.slice(0, -1), undeclared.url);
    const t = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => { t.close(); s.close(); });
    await s.connect(t);
    await t.handleRequest(req, res, body ? JSON.parse(body) : undefined);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${server.address().port}/mcp`,
    declared: declared.url,
    undeclared: undeclared.url,
    close: async () => {
      await new Promise((r) => { server.closeAllConnections(); server.close(r); });
      await declared.close();
      await undeclared.close();
    },
  };
}
