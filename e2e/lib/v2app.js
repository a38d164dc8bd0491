// An MCP App server for the v2 wire tests, over streamable HTTP in the
// test process (@modelcontextprotocol/sdk): one UI tool, show_v2, whose
// View (mcp/v2view-entry.js, bundled with the published ext-apps App) is
// served as ui://v2/view.html; a CSV resource a View may link for
// download, and an SVG one it may not.
import http from "node:http";
import { readFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { bundle } from "./browser.js";

export const VIEW_URI = "ui://v2/view.html";

function newServer(html) {
  const s = new McpServer({ name: "v2", version: "1.0.0" });
  s.registerTool("show_v2", {
    description: "Show the v2 fixture card",
    inputSchema: { hangTeardown: z.boolean().optional() },
    _meta: { ui: { resourceUri: VIEW_URI } },
  }, async (args) => ({ content: [{ type: "text", text: "shown" }], structuredContent: { hangTeardown: !!args.hangTeardown } }));
  s.registerResource("view", VIEW_URI, { mimeType: "text/html;profile=mcp-app" }, async () => ({
    contents: [{ uri: VIEW_URI, mimeType: "text/html;profile=mcp-app", text: html }],
  }));
  s.registerResource("report", "file:///v2/report.csv", { mimeType: "text/csv" }, async () => ({
    contents: [{ uri: "file:///v2/report.csv", mimeType: "text/csv", text: "region,sales\nNorth,120\n" }],
  }));
  s.registerResource("logo", "file:///v2/logo.svg", { mimeType: "image/svg+xml" }, async () => ({
    contents: [{ uri: "file:///v2/logo.svg", mimeType: "image/svg+xml", text: "<svg xmlns='http://www.w3.org/2000/svg'/>" }],
  }));
  return s;
}

export async function startV2App() {
  const js = readFileSync(await bundle("mcp/v2view-entry.js", "v2view.js"), "utf8");
  const html = `<!doctype html><html><head><meta charset="utf-8"><style>body{margin:12px;font:14px system-ui,sans-serif;background:var(--color-background-primary,Canvas);color:var(--color-text-primary,CanvasText)}</style></head><body><h3>v2 fixture</h3><div id="status">waiting</div><script type="module">${js.replaceAll("</script", "<\\/script")}</script></body></html>`;
  const server = http.createServer(async (req, res) => {
    if (!req.url.startsWith("/mcp")) return res.writeHead(404).end();
    let body = "";
    for await (const c of req) body += c;
    const s = newServer(html);
    const t = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => { t.close(); s.close(); });
    await s.connect(t);
    await t.handleRequest(req, res, body ? JSON.parse(body) : undefined);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${server.address().port}/mcp`,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }),
  };
}
