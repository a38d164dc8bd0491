// The View of the official Python SDK server (e2e/python/mcpapps/
// official_server.py), built on the published App class of
// @modelcontextprotocol/ext-apps: it shows the tool result, its button
// calls the app-only py_tick through the host, and probeCSP fetches an
// origin its _meta.ui.csp allows and one it does not.
import { App } from "@modelcontextprotocol/ext-apps";

const app = new App({ name: "py-view", version: "1.0.0" });
window.__app = app;
window.__state = { result: null, ticks: null, violations: [] };
document.addEventListener("securitypolicyviolation", (e) => window.__state.violations.push({ directive: e.effectiveDirective, blocked: e.blockedURI }));
app.ontoolresult = (r) => {
  window.__state.result = r;
  document.getElementById("greeting").textContent = r.structuredContent?.greeting ?? "?";
};
document.getElementById("tick").addEventListener("click", async () => {
  const r = await app.callServerTool({ name: "py_tick", arguments: { step: 2 } });
  window.__state.ticks = r.isError ? { error: r.content?.[0]?.text } : r.structuredContent;
  document.getElementById("ticks").textContent = JSON.stringify(window.__state.ticks);
});
// probeCSP resolves with what a fetch of each URL did: "ok" or the error.
window.probeCSP = (urls) => Promise.all(urls.map((u) => fetch(u, { mode: "no-cors" }).then(() => "ok", (e) => "blocked: " + e.message)));
app.connect().then(() => { window.__state.connected = true; });
