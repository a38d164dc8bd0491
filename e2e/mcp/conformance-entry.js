// The host-conformance runner View: our own implementation, on the
// published App class of @modelcontextprotocol/ext-apps (the version
// e2e/package.json pins), of the in-view requirements of the ext-apps
// host-conformance catalogue (examples/conformance-server, modelled on
// web-platform-tests), under the catalogue's requirement ids. The official
// server is not published to a registry, so it cannot be pinned here; see
// docs/mcp-apps-conformance.md. It renders one row per requirement (PASS,
// FAIL or INFO for a MAY/signal) and exposes them as window.__results once
// window.__state.done is true. The tool's input names a declared origin
// (reachable, in the resource's connectDomains) and an undeclared one for
// the CSP checks.
import { App } from "@modelcontextprotocol/ext-apps";

const signals = { input: null, result: null, partials: 0, partialAfterInput: false, inputAt: 0 };
let resolveInput, resolveResult;
const gotInput = new Promise((r) => { resolveInput = r; });
const gotResult = new Promise((r) => { resolveResult = r; });
let pinged = 0;

// The runner declares inline and fullscreen only: pip is undeclared.
const app = new App({ name: "conformance-runner", version: "1.0.0" }, { availableDisplayModes: ["inline", "fullscreen"] }, { autoResize: true });
window.__app = app;
window.__state = { done: false, teardowns: 0, pinged: 0 };
app.ontoolinputpartial = () => {
  signals.partials++;
  if (signals.input) signals.partialAfterInput = true;
};
app.ontoolinput = (p) => { signals.input = p; signals.inputAt = Date.now(); resolveInput(p); };
app.ontoolresult = (r) => { signals.result = r; resolveResult(r); };
// Teardown is awaited by a conforming host: reply after a short delay.
app.onteardown = async () => {
  window.__state.teardowns++;
  await new Promise((r) => setTimeout(r, 200));
  return {};
};
app.registerTool("conformance_ping", { title: "Conformance Ping", description: "Conformance test tool: returns pong." }, async () => {
  window.__state.pinged = ++pinged;
  return { content: [{ type: "text", text: "pong" }] };
});

const tests = [];
// test registers a requirement: id, clause (MUST, SHOULD, MAY) and a body
// that throws to fail, returns "info: …" for a signal.
const test = (id, clause, body) => tests.push({ id, clause, body });
const assert = (ok, msg) => { if (!ok) throw new Error(msg); };
const within = (p, ms) => Promise.race([p, new Promise((r) => setTimeout(() => r(undefined), ms))]);

// blocked reports whether a fetch to url is stopped (by the CSP).
async function blocked(url) {
  try {
    await fetch(url, { mode: "no-cors", cache: "no-store" });
    return false;
  } catch {
    return true;
  }
}
let violation = null;
// urls are the declared and undeclared origins the server put in its result.
const urls = () => signals.result?.structuredContent ?? {};
document.addEventListener("securitypolicyviolation", (e) => { violation ??= e.originalPolicy; });

test("lifecycle/initialize-capabilities", "MUST", () => assert(app.getHostCapabilities() != null, "no hostCapabilities after ui/initialize"));
test("context/initialize-hostcontext", "SHOULD", () => assert(typeof app.getHostContext() === "object" && app.getHostContext() !== null, "no hostContext"));
test("context/theme-variables", "MAY", () => assert(Object.keys(app.getHostContext()?.styles?.variables ?? {}).length > 0, "no styles.variables"));
test("context/light-dark", "SHOULD", () => {
  const values = Object.values(app.getHostContext()?.styles?.variables ?? {});
  assert(values.length > 0, "no style variables");
  assert(values.some((v) => typeof v === "string" && v.includes("light-dark(")), "no variable uses light-dark()");
});
test("context/theme-fonts", "MAY", () => assert(!!app.getHostContext()?.styles?.css?.fonts, "no styles.css.fonts"));
test("lifecycle/tool-input", "MUST", async () => assert((await within(gotInput, 4000)) !== undefined, "no ui/notifications/tool-input"));
test("lifecycle/tool-result", "MUST", async () => assert((await within(gotResult, 4000)) !== undefined, "no ui/notifications/tool-result"));
test("lifecycle/tool-input-partial", "MAY", () => (signals.partials > 0 ? undefined : "info: no tool-input-partial (the agent did not stream arguments)"));
test("lifecycle/tool-input-partial-stop", "MUST", async () => {
  await within(gotInput, 1500);
  await new Promise((r) => setTimeout(r, 300));
  assert(!signals.partialAfterInput, `a tool-input-partial came after tool-input (${signals.partials} partials)`);
});
test("tools/proxy-call", "MUST", async () => {
  const res = await app.callServerTool({ name: "conformance_probe", arguments: { ping: "hello-from-view" } });
  const text = (res.content ?? []).map((c) => (c.type === "text" ? c.text : "")).join("");
  assert(text.includes("hello-from-view"), "the proxied result does not echo the payload: " + JSON.stringify(res));
});
test("visibility/app-tool-call-guard", "MUST", async () => {
  let rejected = false;
  let res;
  try {
    res = await app.callServerTool({ name: "model_only_probe", arguments: { ping: "x" } });
  } catch {
    rejected = true;
  }
  assert(rejected, "a tools/call of a model-only tool was not a JSON-RPC error: " + JSON.stringify(res));
});
test("display/return-resulting-mode", "MUST", async () => {
  const res = await app.requestDisplayMode({ mode: "inline" });
  assert(["inline", "fullscreen", "pip"].includes(res?.mode), "no valid mode in the reply: " + JSON.stringify(res));
});
test("display/no-undeclared-mode", "MUST NOT", async () => {
  let mode;
  try { mode = (await app.requestDisplayMode({ mode: "pip" }))?.mode; } catch { mode = undefined; }
  assert(mode !== "pip", "the host switched to pip, which the View did not declare");
  await app.requestDisplayMode({ mode: "inline" }).catch(() => {});
});
test("display/unavailable-returns-current", "SHOULD", async () => {
  const ctx = app.getHostContext();
  const available = ctx?.availableDisplayModes ?? [];
  const unavailable = ["inline", "fullscreen", "pip"].find((m) => !available.includes(m));
  if (!unavailable) return; // nothing is unavailable: vacuously met
  const current = ctx?.displayMode ?? "inline";
  const res = await app.requestDisplayMode({ mode: unavailable });
  assert(res?.mode === current, `asked for ${unavailable}: got ${res?.mode}, current ${current}`);
});
test("security/sandbox-distinct-origin", "MUST", () => {
  assert(window.top !== window.self, "not in a host frame");
  let threw = false;
  try { void window.top.location.href; } catch { threw = true; }
  assert(threw, "the View can read the host page's location (window.top)");
});
// The 1.7 suite's form of the check reads window.parent, the sandbox
// proxy, whose origin the View shares by design (allow-same-origin).
test("security/sandbox-distinct-origin@1.7", "MUST", () => {
  let threw = false;
  try { void window.parent.location.href; } catch { threw = true; }
  assert(threw, "the View can read its parent's (the sandbox proxy's) location");
});
test("security/sandbox-permissions", "MUST", () => assert(window.origin !== "null", "window.origin is opaque: no allow-same-origin"));
test("security/sandbox-proxy-required", "MUST", () => {
  assert(window.top !== window.self, "not in a host frame");
  assert(window.parent !== window.top, "the View is a direct child of the host page: no sandbox proxy");
});
test("security/csp-allow-declared", "MUST", async () => assert(!(await blocked(urls().declared)), "a fetch to the declared origin was blocked"));
test("security/csp-no-loosening", "MUST NOT", async () => assert(await blocked(urls().undeclared), "a fetch to an undeclared origin was allowed"));
test("security/csp-construct-from-domains", "MUST", () => {
  const meta = document.querySelector('meta[http-equiv="Content-Security-Policy" i]')?.content;
  const csp = meta || violation;
  assert(csp, "the applied CSP could not be read (no meta tag, no violation)");
  const origin = new URL(urls().declared).host;
  assert(new RegExp("connect-src[^;]*" + origin.replace(/[.:]/g, "\\$&")).test(csp), "connect-src lacks the declared origin: " + csp);
});
test("dimensions/listen-size-changed", "MUST", async () => {
  const dims = app.getHostContext()?.containerDimensions;
  if (dims && typeof dims.height === "number") return "info: the host pins the height";
  const before = window.innerHeight;
  const spacer = document.createElement("div");
  spacer.style.height = "320px";
  document.body.appendChild(spacer);
  await new Promise((resolve) => {
    const done = () => { window.removeEventListener("resize", on); clearTimeout(timer); resolve(); };
    const on = () => { if (window.innerHeight > before) done(); };
    const timer = setTimeout(done, 2500);
    window.addEventListener("resize", on);
  });
  spacer.remove();
  assert(window.innerHeight > before, `the frame did not grow (was ${before}px, now ${window.innerHeight}px)`);
});
test("capabilities/server-passthrough", "SHOULD", async () => {
  assert(!!app.getHostCapabilities()?.serverResources, "no serverResources capability");
  const res = await app.listServerResources();
  const uris = (res.resources ?? []).map((r) => r.uri);
  assert(uris.includes("ui://conformance/runner"), "resources/list did not return the runner: " + JSON.stringify(uris));
});
test("capabilities/content-modalities", "MAY", () => {
  const caps = app.getHostCapabilities();
  assert(!!(caps?.message || caps?.updateModelContext), "no message / updateModelContext modalities");
});

function row(r) {
  const tr = document.createElement("tr");
  tr.dataset.id = r.id;
  tr.dataset.status = r.status;
  for (const v of [r.id, r.clause, r.status, r.message]) {
    const td = document.createElement("td");
    td.textContent = v;
    tr.appendChild(td);
  }
  document.getElementById("results").appendChild(tr);
}

async function runAll() {
  const results = [];
  for (const t of tests) {
    let status = "PASS";
    let message = "";
    try {
      const out = await within(Promise.resolve().then(t.body), 6000).then((v) => v, (e) => { throw e; });
      if (typeof out === "string" && out.startsWith("info: ")) { status = "INFO"; message = out.slice(6); }
    } catch (e) {
      status = t.clause === "MAY" ? "INFO" : "FAIL";
      message = String(e?.message ?? e);
    }
    const r = { id: t.id, clause: t.clause, status, message };
    results.push(r);
    row(r);
  }
  window.__results = results;
  window.__state.done = true;
  document.getElementById("status").textContent = "done: " + results.filter((r) => r.status === "PASS").length + " of " + results.length + " pass";
}

app.connect().then(async () => {
  window.__state.connected = true;
  await within(gotResult, 5000);
  await runAll();
});
