// genui-adapter MCP Apps host bridge (no dependencies).
//
//   <script src="/static/mcp-apps-host.js"></script>
//   const request = GenuiMcpApps.proxyVia("/agents/demo/run");   // the agent's run URL
//   const card = await GenuiMcpApps.mount(element, activity.content, { request });
//   ...
//   await card.teardown();
//
// mount(container, content, options) shows one "mcp-apps" activity card:
// it reads the UI resource through the adapter (a proxied resources/read),
// asks the adapter for a sandbox URL (the card's CSP travels signed, built
// from the resource's metadata on the server), and runs the host side of
// the MCP Apps protocol for the View:
//   - ui/initialize is answered with hostInfo, hostCapabilities, hostContext;
//   - tool-input then tool-result (or tool-cancelled) are buffered until
//     ui/notifications/initialized;
//   - tools/call, resources/read, resources/list go to the adapter's
//     proxied-request path (only the card's own server; the adapter checks
//     visibility); ping is answered here;
//   - ui/open-link refuses javascript:, data:, vbscript:, file:, blob:;
//   - ui/message (an object or an array) goes to options.onMessage, with a
//     per-card debounce; ui/update-model-context is staged (replaced, not
//     appended) and given to options.onModelContext;
//   - size changes set the frame height, capped at options.maxHeight;
//   - everything else gets -32601.
// options: request (required), adapter (base URL, default ""), headers
// (sent with the sandbox request, e.g. Authorization), onMessage,
// onModelContext, onLog, maxHeight (800), debounceMs (300), hostInfo,
// theme ("light"), openLink(url) (default window.open).
//
// The card's serverHash is its capability: the adapter answers a card's
// requests only when they carry it, on the thread and for the principal
// of the run that showed the card. So proxyVia must post on that thread
// (options.threadId) with that principal's credentials (options.headers).
(function () {
  "use strict";
  const BLOCKED = ["javascript:", "data:", "vbscript:", "file:", "blob:"];
  const PROTOCOL = "2026-01-26";

  function proxyVia(runUrl, opts = {}) {
    return async function request(req) {
      const id = (crypto.randomUUID && crypto.randomUUID()) || String(Math.random()).slice(2);
      const res = await fetch(runUrl, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "text/event-stream", ...(opts.headers || {}) },
        body: JSON.stringify({ threadId: opts.threadId || "mcp-apps-" + id, runId: id, messages: [], tools: [], context: [], forwardedProps: { __proxiedMCPRequest: req } }),
      });
      if (!res.ok) throw new Error("HTTP " + res.status + ": " + (await res.text()));
      const text = await res.text();
      for (const block of text.split("\n\n")) {
        const data = block.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(l.startsWith("data: ") ? 6 : 5)).join("\n");
        if (!data) continue;
        const ev = JSON.parse(data);
        if (ev.type === "RUN_FINISHED") return ev.result;
        if (ev.type === "RUN_ERROR") throw new Error(ev.message);
      }
      throw new Error("the proxied request ended without a result");
    };
  }

  async function mount(container, content, options) {
    if (!options || typeof options.request !== "function") throw new Error("mount: options.request is required");
    const o = Object.assign({ adapter: "", maxHeight: 800, debounceMs: 300, theme: "light" }, options);
    const server = { serverHash: content.serverHash, serverId: content.serverId };
    const read = await o.request(Object.assign({ method: "resources/read", params: { uri: content.resourceUri } }, server));
    const item = read && read.contents && read.contents[0];
    if (!item || item.mimeType !== "text/html;profile=mcp-app") throw new Error("not an MCP App resource: " + content.resourceUri);
    const html = item.text != null ? item.text : atob(item.blob || "");
    const sres = await fetch(o.adapter + "/mcp-apps/sandbox", {
      method: "POST",
      headers: { "Content-Type": "application/json", ...(o.headers || {}) },
      body: JSON.stringify(Object.assign({ uri: content.resourceUri, hostOrigin: location.origin }, server)),
    });
    if (!sres.ok) throw new Error("sandbox: HTTP " + sres.status + ": " + (await sres.text()));
    const sandbox = await sres.json();
    const sandboxOrigin = new URL(sandbox.url).origin;

    const frame = document.createElement("iframe");
    frame.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
    if (sandbox.allow) frame.setAttribute("allow", sandbox.allow);
    frame.setAttribute("title", "MCP App " + content.resourceUri);
    frame.style.cssText = "width:100%;border:0;height:160px;display:block";
    if (sandbox.prefersBorder) frame.style.border = "1px solid #ddd";

    let initialized = false;
    let closed = false;
    const buffered = [];
    const pending = new Map();
    let nextId = 1;
    let modelContext = null;
    let messageTimer = null;
    let queued = [];

    const post = (m) => frame.contentWindow && frame.contentWindow.postMessage(m, sandboxOrigin);
    const notify = (method, params) => {
      const m = { jsonrpc: "2.0", method, params: params || {} };
      initialized ? post(m) : buffered.push(m);
    };
    const reply = (id, result) => post({ jsonrpc: "2.0", id, result });
    const fail = (id, code, message) => post({ jsonrpc: "2.0", id, error: { code, message } });
    const hostRequest = (method, params, timeoutMs) => new Promise((resolve) => {
      const id = "host-" + nextId++;
      pending.set(id, resolve);
      post({ jsonrpc: "2.0", id, method, params: params || {} });
      setTimeout(() => { pending.delete(id); resolve(null); }, timeoutMs || 500);
    });

    async function handle(m) {
      if (m.id !== undefined && m.method === undefined) { // a response to us
        const r = pending.get(m.id);
        if (r) { pending.delete(m.id); r(m.result); }
        return;
      }
      switch (m.method) {
        case "ui/notifications/sandbox-proxy-ready":
          post({ jsonrpc: "2.0", method: "ui/notifications/sandbox-resource-ready", params: { html, allow: sandbox.allow || undefined } });
          return;
        case "ui/initialize":
          reply(m.id, {
            protocolVersion: (m.params && m.params.protocolVersion) || PROTOCOL,
            hostInfo: o.hostInfo || { name: "genui-adapter", version: "0.1.0" },
            hostCapabilities: { openLinks: {}, serverTools: {}, serverResources: {}, logging: {}, message: { text: {} }, updateModelContext: { text: {} } },
            hostContext: { theme: o.theme, platform: "web", displayMode: "inline", availableDisplayModes: ["inline"], containerDimensions: { maxHeight: o.maxHeight }, locale: navigator.language, timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone },
          });
          return;
        case "ui/notifications/initialized":
          initialized = true;
          for (const b of buffered.splice(0)) post(b);
          return;
        case "ui/notifications/size-changed": {
          const h = Math.min(Math.max(0, Number(m.params && m.params.height) || 0), o.maxHeight);
          const cur = parseFloat(frame.style.height) || 0;
          if (h > 0 && !(h < cur && cur - h <= 4)) frame.style.height = h + "px";
          return;
        }
        case "notifications/message":
          (o.onLog || console.log)("[mcp app]", m.params);
          return;
        case "ping":
          reply(m.id, {});
          return;
        case "tools/call":
        case "resources/read":
        case "resources/list":
          try {
            const result = await o.request(Object.assign({ method: m.method, params: m.params || {} }, server));
            if (result && typeof result === "object" && typeof result.error === "string" && m.method !== "tools/call") fail(m.id, -32603, result.error);
            else reply(m.id, result);
          } catch (e) {
            fail(m.id, -32603, String((e && e.message) || e));
          }
          return;
        case "ui/open-link": {
          const url = String((m.params && m.params.url) || "");
          let scheme = "";
          try { scheme = new URL(url, location.href).protocol.toLowerCase(); } catch (e) { scheme = "invalid:"; }
          if (!url || BLOCKED.includes(scheme) || scheme === "invalid:") { fail(m.id, -32602, "link refused: " + scheme); return; }
          (o.openLink || ((u) => window.open(u, "_blank", "noopener,noreferrer")))(url);
          reply(m.id, {});
          return;
        }
        case "ui/message": {
          const p = m.params || {};
          queued = queued.concat(Array.isArray(p) ? p : [p]);
          clearTimeout(messageTimer);
          messageTimer = setTimeout(() => { const q = queued; queued = []; o.onMessage && o.onMessage(q, card); }, o.debounceMs);
          reply(m.id, {});
          return;
        }
        case "ui/update-model-context":
          modelContext = m.params || null; // replace semantics
          o.onModelContext && o.onModelContext(modelContext, card);
          reply(m.id, {});
          return;
        case "ui/request-display-mode":
          reply(m.id, { mode: "inline" });
          return;
        default:
          if (m.id !== undefined) fail(m.id, -32601, "Method not found: " + m.method);
      }
    }

    function onMessage(e) {
      if (closed || e.source !== frame.contentWindow || e.origin !== sandboxOrigin) return;
      const m = e.data;
      if (!m || m.jsonrpc !== "2.0") return;
      handle(m);
    }
    window.addEventListener("message", onMessage); // before the resource is sent
    frame.src = sandbox.url;
    container.appendChild(frame);

    notify("ui/notifications/tool-input", { arguments: content.toolInput || {} });
    if (content.cancelled) notify("ui/notifications/tool-cancelled", {});
    else notify("ui/notifications/tool-result", content.result || {});

    const card = {
      frame,
      modelContext: () => modelContext,
      async teardown() {
        if (closed) return;
        if (initialized) await hostRequest("ui/resource-teardown", {}, 500);
        closed = true;
        window.removeEventListener("message", onMessage);
        frame.remove();
      },
    };
    return card;
  }

  window.GenuiMcpApps = { mount, proxyVia };
})();
