// A View built on the published App class of @modelcontextprotocol/ext-apps
// (the version e2e/package.json pins), for the v2 wire tests: it
// declares the inline and pip display modes and exposes the App to the
// test (window.__app), plus rawRequest for a request the App has no
// method for (ui/log). Its teardown handler replies, or never does when
// the tool result says {hangTeardown: true}. It provides tools of its own
// (App.registerTool): get_selection, fail_always, and one with a name no
// host should offer. It follows the host's theme and style variables.
import { App, applyDocumentTheme, applyHostStyleVariables } from "@modelcontextprotocol/ext-apps";

const app = new App({ name: "v2-fixture", version: "1.0.0" }, { availableDisplayModes: ["inline", "pip"] });
window.__app = app;
window.__state = { result: null, teardowns: 0 };
let hang = false;
app.ontoolresult = (r) => {
  window.__state.result = r;
  hang = !!r.structuredContent?.hangTeardown;
  document.getElementById("status").textContent = "result: " + JSON.stringify(r.structuredContent);
};
app.onteardown = () => {
  window.__state.teardowns++;
  return hang ? new Promise(() => {}) : {};
};

// rawRequest posts a JSON-RPC request to the host the way the App's
// transport does and resolves with the reply ({result} or {error}).
let n = 0;
window.rawRequest = (method, params) => new Promise((resolve) => {
  const id = "raw-" + ++n;
  const on = (e) => {
    if (e.source !== window.parent || e.data?.id !== id) return;
    window.removeEventListener("message", on);
    resolve(e.data.error ? { error: e.data.error } : { result: e.data.result });
  };
  window.addEventListener("message", on);
  window.parent.postMessage({ jsonrpc: "2.0", id, method, params }, "*");
});

app.registerTool("get_selection", { description: "The rows the user selected" }, async () => {
  window.__state.viewToolCalls = (window.__state.viewToolCalls || 0) + 1;
  return { content: [{ type: "text", text: "2 rows" }], structuredContent: { rows: ["North", "South"] } };
});
app.registerTool("fail_always", { description: "Throws" }, async () => { throw new Error("the view tool broke"); });
app.registerTool("bad name</script>", { description: "A hostile name" }, async () => ({ content: [] }));

// theme applies the host's theme and variables to the document.
function theme(ctx) {
  if (ctx?.theme) applyDocumentTheme(ctx.theme);
  if (ctx?.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
}
app.onhostcontextchanged = (ctx) => theme(app.getHostContext() ?? ctx);
app.connect().then(() => {
  theme(app.getHostContext());
  window.__state.connected = true;
});
