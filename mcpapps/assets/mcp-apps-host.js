// genui-adapter MCP Apps host bridge (no dependencies).
//
//   <script src="/static/mcp-apps-host.js"></script>
//   const request = GenuiMcpApps.proxyVia("/agents/demo/run");   // the agent's run URL
//   const card = await GenuiMcpApps.mount(element, activity.content, { request });
//   card.update(nextContent);     // the same activity, replaced or patched
//   card.cancel("run stopped");   // the call will never have a result
//   GenuiMcpApps.setHostContext({ theme: "dark" });   // every mounted card
//   await card.teardown();        // before the card is removed
//
// mount(container, content, options) shows one "mcp-apps" activity card:
// it reads the UI resource through the adapter (a proxied resources/read),
// asks the adapter for a sandbox URL (the card's CSP travels signed, built
// from the resource's metadata on the server), and runs the host side of
// the MCP Apps protocol for the View:
//   - ui/initialize is answered with hostInfo, hostCapabilities and the
//     full hostContext: theme, styles.variables (the spec's CSS variable
//     names, read from the host page), locale, timeZone, platform,
//     displayMode, availableDisplayModes, containerDimensions;
//   - the call's phases, in order, once ui/notifications/initialized came:
//     tool-input-partial while the arguments stream (a loading card:
//     content.status "input-streaming", best-effort repaired JSON),
//     tool-input once they are complete, tool-result (also an isError
//     one), or tool-cancelled (cancel(), or a card that will get none);
//   - host-context-changed when the theme, the page's variables, the
//     container's size or the display mode change;
//   - ui/request-display-mode: a mode both the View and the host offer
//     (options.displayModes, default ["inline"]) is applied and answered
//     with the mode in force; any other is refused the way the spec says,
//     by answering with the mode still in force. "pip" (picture in
//     picture) the bridge applies itself: the card floats at the
//     bottom right of the window (class genui-mcp-card-pip) until the
//     View asks for "inline" again. Other modes go through
//     options.onDisplayMode(mode, card), which returns the mode applied;
//   - tools/call, resources/read, resources/list go to the adapter's
//     proxied-request path (only the card's own server; the adapter checks
//     visibility); ping is answered here;
//   - ui/open-link refuses javascript:, data:, vbscript:, file:, blob:;
//   - ui/message (an object or an array) goes to options.onMessage, with a
//     per-card debounce; ui/update-model-context is kept (replaced, not
//     appended) and given to options.onModelContext, and sent to the
//     adapter, which keeps it on the card's thread (per card, for its
//     principal) and hands it back when the card is mounted again: the
//     View finds it in ui/initialize's hostContext["genui-adapter/card-state"]
//     = {modelContext} (ext-apps #417, #465);
//   - notifications/message (the App's sendLog) and the request ui/log,
//     params {level, data, logger?}, go to the adapter, which logs them
//     with the card's identity and limits them per card (mcpApps.viewLogRate,
//     viewLogBurst, maxViewLogBytes); a ui/log request over the limit gets
//     the adapter's JSON-RPC error (-32000 flood, -32602 too large). At
//     most 4 of a card's log messages are on their way at once; more are
//     dropped here (a notification) or refused with -32000 (a request).
//     options.onLog(params, card) also sees each one;
//   - ui/download-file {contents: (EmbeddedResource | ResourceLink)[]}
//     goes to the adapter, which checks the types and size
//     (mcpApps.downloadMIMETypes, maxDownloadBytes) and reads resource
//     links from the card's server; refused: the adapter's JSON-RPC error
//     (-32602). The files then go to options.onDownload(files, card)
//     (each {name, mimeType, text | blob(base64)}), by default saved
//     through a download link, after options.confirmDownload(files, card)
//     (a false answer: {isError: true});
//   - size-changed sets the frame's height (up to options.maxHeight; the
//     View scrolls past it) and its width (up to the container's, which
//     scrolls sideways past it);
//   - ui/resource-teardown is sent as a request before the frame is
//     removed; teardown() waits for the View's reply at most
//     options.teardownTimeoutMs (default 1000), so a View that never
//     replies delays the removal by that much and blocks nothing else;
//   - the View's own tools (a View that declared appCapabilities.tools,
//     App.registerTool): card.listViewTools() sends it tools/list and
//     resolves with its tools, each {name, description, inputSchema},
//     keeping at most 32 whose name is 1-64 of A-Z a-z 0-9 _ . - and
//     whose inputSchema is an object of at most 16 KiB (others dropped,
//     descriptions cut at 2 KiB); card.callViewTool(name, args) sends
//     tools/call for a tool of that list and resolves with its
//     CallToolResult, or rejects (the View's JSON-RPC error, no reply
//     within options.viewToolTimeoutMs, default 30000, or a name it did
//     not list). The View's notifications/tools/list_changed goes to
//     options.onViewToolsChanged(card);
//   - everything else gets -32601;
//   - apps written the qwen-agent way ({type} messages, no JSON-RPC):
//     mcp-app-ready is answered with {type: "mcp-app-data", payload} (the
//     result's data); mcp-app-response answers the card's tool call
//     (genui-adapter/app-response), else reaches options.onMessage; a
//     preferredFrameSize sizes the frame.
// options: request (required), adapter (base URL, default ""), headers
// (sent with the sandbox request, e.g. Authorization), onMessage,
// onAppResponse(payload, delivered, card), onModelContext, onLog, onDisplayMode, displayModes, maxHeight (800),
// onDownload, confirmDownload, teardownTimeoutMs (1000), onViewToolsChanged, viewToolTimeoutMs (30000),
// debounceMs (300), hostInfo, theme (default: the page's data-theme, else
// its color scheme), openLink(url) (default window.open).
//
// The card's serverHash is its capability: the adapter answers a card's
// requests only when they carry it, on the thread and for the principal
// of the run that showed the card. So proxyVia must post on that thread
// (options.threadId) with that principal's credentials (options.headers).
(function () {
  "use strict";
  const BLOCKED = ["javascript:", "data:", "vbscript:", "file:", "blob:"];
  const PROTOCOL = "2026-01-26";
  const LOGS_IN_FLIGHT = 4; // a card's log messages on their way at once
  const VIEW_TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
  const MAX_VIEW_TOOLS = 32;
  const MAX_VIEW_TOOL_SCHEMA = 16384;
  const MAX_VIEW_TOOL_DESCRIPTION = 2048;

  // viewTools keeps the tools of a View's tools/list a host may offer:
  // well-named, with an object schema of bounded size.
  function viewTools(list) {
    const out = [];
    for (const t of Array.isArray(list) ? list : []) {
      if (out.length >= MAX_VIEW_TOOLS) break;
      if (!t || typeof t.name !== "string" || !VIEW_TOOL_NAME.test(t.name) || out.some((k) => k.name === t.name)) continue;
      const schema = t.inputSchema && typeof t.inputSchema === "object" && !Array.isArray(t.inputSchema) ? t.inputSchema : null;
      let size = Infinity;
      try { size = JSON.stringify(schema).length; } catch (e) { /* cyclic or odd: dropped */ }
      if (!schema || size > MAX_VIEW_TOOL_SCHEMA) continue;
      out.push({ name: t.name, description: typeof t.description === "string" ? t.description.slice(0, MAX_VIEW_TOOL_DESCRIPTION) : "", inputSchema: schema });
    }
    return out;
  }
  // CARD_STATE is the adapter's request for a card's kept state, and the
  // hostContext key the View finds it under ({modelContext}).
  const CARD_STATE = "genui-adapter/card-state";
  const PIP_STYLE = "position:fixed;right:16px;bottom:16px;width:360px;max-width:calc(100vw - 32px);max-height:calc(100vh - 32px);z-index:2147483000;background:var(--color-background-primary,#fff);box-shadow:0 4px 24px rgba(0,0,0,.35);border:1px solid var(--color-border-primary,rgba(127,127,127,.45));border-radius:8px;overflow:auto";
  // The spec's theming variables (McpUiStyleVariableKey).
  const VARIABLES = [
    "--color-background-primary", "--color-background-secondary", "--color-background-tertiary", "--color-background-inverse",
    "--color-background-ghost", "--color-background-info", "--color-background-danger", "--color-background-success",
    "--color-background-warning", "--color-background-disabled",
    "--color-text-primary", "--color-text-secondary", "--color-text-tertiary", "--color-text-inverse", "--color-text-ghost",
    "--color-text-info", "--color-text-danger", "--color-text-success", "--color-text-warning", "--color-text-disabled",
    "--color-border-primary", "--color-border-secondary", "--color-border-tertiary", "--color-border-inverse",
    "--color-border-ghost", "--color-border-info", "--color-border-danger", "--color-border-success",
    "--color-border-warning", "--color-border-disabled",
    "--color-ring-primary", "--color-ring-secondary", "--color-ring-inverse", "--color-ring-info", "--color-ring-danger",
    "--color-ring-success", "--color-ring-warning",
    "--font-sans", "--font-mono", "--font-weight-normal", "--font-weight-medium", "--font-weight-semibold", "--font-weight-bold",
    "--font-text-xs-size", "--font-text-sm-size", "--font-text-md-size", "--font-text-lg-size",
    "--font-heading-xs-size", "--font-heading-sm-size", "--font-heading-md-size", "--font-heading-lg-size",
    "--font-heading-xl-size", "--font-heading-2xl-size",
    "--font-text-xs-line-height", "--font-text-sm-line-height", "--font-text-md-line-height", "--font-text-lg-line-height",
    "--font-heading-xs-line-height", "--font-heading-sm-line-height", "--font-heading-md-line-height",
    "--font-heading-lg-line-height", "--font-heading-xl-line-height", "--font-heading-2xl-line-height",
    "--border-radius-xs", "--border-radius-sm", "--border-radius-md", "--border-radius-lg", "--border-radius-xl",
    "--border-radius-full", "--border-width-regular",
    "--shadow-hairline", "--shadow-sm", "--shadow-md", "--shadow-lg",
  ];
  const cards = new Set();

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

  // repairJSON parses the arguments streamed so far: open strings, arrays
  // and objects are closed, a dangling key or comma dropped. Best effort:
  // undefined when even that fails.
  function repairJSON(s) {
    if (!s) return undefined;
    try { return JSON.parse(s); } catch (e) { /* repair below */ }
    const stack = [];
    let inStr = false, esc = false;
    for (const ch of s) {
      if (inStr) {
        if (esc) esc = false;
        else if (ch === "\\") esc = true;
        else if (ch === '"') inStr = false;
        continue;
      }
      if (ch === '"') inStr = true;
      else if (ch === "{" || ch === "[") stack.push(ch === "{" ? "}" : "]");
      else if (ch === "}" || ch === "]") stack.pop();
    }
    let t = s;
    if (esc) t = t.slice(0, -1);
    if (inStr) t += '"';
    for (let i = 0; i < 3; i++) {
      const closed = t.replace(/[,:\s]+$/, "").replace(/,\s*"[^"]*"$/, "").replace(/\{\s*"[^"]*"$/, "{") + stack.slice().reverse().join("");
      try { return JSON.parse(closed); } catch (e) { t = t.replace(/"[^"]*"?\s*:?\s*$/, ""); }
    }
    return undefined;
  }

  function pageTheme(o) {
    if (o.theme) return o.theme;
    const t = document.documentElement.dataset.theme;
    if (t === "dark" || t === "light") return t;
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }

  function pageVariables() {
    const cs = getComputedStyle(document.documentElement);
    const out = {};
    for (const name of VARIABLES) {
      const v = cs.getPropertyValue(name).trim();
      if (v) out[name] = v;
    }
    return out;
  }

  async function mount(container, content, options) {
    if (!options || typeof options.request !== "function") throw new Error("mount: options.request is required");
    const o = Object.assign({ adapter: "", maxHeight: 800, debounceMs: 300, displayModes: ["inline"], teardownTimeoutMs: 1000, viewToolTimeoutMs: 30000 }, options);
    let server = { serverHash: content.serverHash, serverId: content.serverId };
    const read = await o.request(Object.assign({ method: "resources/read", params: { uri: content.resourceUri } }, server));
    const item = read && read.contents && read.contents[0];
    if (!item || item.mimeType !== "text/html;profile=mcp-app") throw new Error("not an MCP App resource: " + content.resourceUri);
    const html = item.text != null ? item.text : atob(item.blob || "");
    // The card's kept state (its View's last model context, kept by the
    // adapter on the card's thread): handed to the View in ui/initialize.
    // A card mounted while its tool still runs has none yet, and its View
    // is not kept waiting for it.
    const kept = content.result === undefined ? Promise.resolve(null) : Promise.resolve(o.request(Object.assign({ method: CARD_STATE, params: {} }, server)))
      .then((r) => (r && typeof r.error !== "string" && r.modelContext) || null, () => null);
    let saving = Promise.resolve();
    const sres = await fetch(o.adapter + "/mcp-apps/sandbox", {
      method: "POST",
      headers: { "Content-Type": "application/json", ...(o.headers || {}) },
      body: JSON.stringify(Object.assign({ uri: content.resourceUri, hostOrigin: location.origin }, server)),
    });
    if (!sres.ok) throw new Error("sandbox: HTTP " + sres.status + ": " + (await sres.text()));
    const sandbox = await sres.json();
    const sandboxOrigin = new URL(sandbox.url).origin;

    // The wrapper scrolls sideways when the View is wider than the page.
    const wrap = document.createElement("div");
    wrap.className = "genui-mcp-card";
    wrap.style.cssText = "overflow-x:auto;max-width:100%";
    const frame = document.createElement("iframe");
    frame.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
    if (sandbox.allow) frame.setAttribute("allow", sandbox.allow);
    frame.setAttribute("title", "MCP App " + content.resourceUri);
    frame.style.cssText = "width:100%;border:0;height:160px;display:block";
    // An app's preferred frame size (_meta mcpui.dev/ui-preferred-frame-size).
    const pref = Array.isArray(content.preferredFrameSize) ? content.preferredFrameSize : null;
    if (pref) {
      frame.style.height = Math.min(pref[1], o.maxHeight) + "px";
      frame.style.width = pref[0] + "px";
      frame.style.maxWidth = "100%";
    } else if (content.appData !== undefined) frame.style.height = "400px";
    if (sandbox.prefersBorder) frame.style.border = "1px solid var(--color-border-secondary, #ddd)";
    wrap.appendChild(frame);

    let initialized = false;
    let closed = false;
    let tearing = null;
    const buffered = [];
    const pending = new Map();
    let nextId = 1;
    let modelContext = null;
    let messageTimer = null;
    let queued = [];
    let viewModes = ["inline"];
    let hasViewTools = false; // the View declared appCapabilities.tools
    let listedViewTools = [];
    const sent = { partial: "", input: false, result: false, cancelled: false };
    let current = content;
    const ctx = {
      theme: pageTheme(o),
      styles: { variables: pageVariables() },
      platform: "web",
      displayMode: "inline",
      availableDisplayModes: o.displayModes.slice(),
      containerDimensions: { maxHeight: o.maxHeight, maxWidth: Math.round(container.clientWidth) || undefined },
      locale: navigator.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      userAgent: navigator.userAgent,
    };

    const post = (m) => frame.contentWindow && frame.contentWindow.postMessage(m, sandboxOrigin);
    const notify = (method, params) => {
      const m = { jsonrpc: "2.0", method, params: params || {} };
      initialized ? post(m) : buffered.push(m);
    };
    const reply = (id, result) => post({ jsonrpc: "2.0", id, result });
    const fail = (id, code, message) => post({ jsonrpc: "2.0", id, error: { code, message } });
    // hostRequest sends the View a request and resolves with its reply
    // ({result} or {error}), or null after timeoutMs.
    const hostRequest = (method, params, timeoutMs) => new Promise((resolve) => {
      const id = "host-" + nextId++;
      const timer = setTimeout(() => { pending.delete(id); resolve(null); }, timeoutMs);
      pending.set(id, (reply) => { clearTimeout(timer); resolve(reply); });
      post({ jsonrpc: "2.0", id, method, params: params || {} });
    });
    // adapterRequest passes a View's request on to the adapter and
    // answers it: the result, or the adapter's refusal as a JSON-RPC
    // error (its code, else -32603).
    async function adapterRequest(m, wrap) {
      try {
        const result = await o.request(Object.assign({ method: m.method, params: m.params || {} }, server));
        if (result && typeof result === "object" && typeof result.error === "string") {
          if (m.id !== undefined) fail(m.id, Number.isInteger(result.code) ? result.code : -32603, result.error);
          return undefined;
        }
        return wrap ? await wrap(result) : result;
      } catch (e) {
        if (m.id !== undefined) fail(m.id, -32603, String((e && e.message) || e));
        return undefined;
      }
    }
    let logsInFlight = 0;
    let pip = null; // the wrapper's style before it floated
    // setPip floats the card (pip) or puts it back. Floating, the frame
    // is as wide as the card: the View's inline width (size-changed) is
    // kept for when it is back.
    let inlineMinWidth = "";
    function setPip(on) {
      if (on && pip === null) { pip = wrap.style.cssText; wrap.style.cssText = pip + ";" + PIP_STYLE; wrap.classList.add("genui-mcp-card-pip"); frame.style.minWidth = "0"; }
      if (!on && pip !== null) { wrap.style.cssText = pip; pip = null; wrap.classList.remove("genui-mcp-card-pip"); frame.style.minWidth = inlineMinWidth; }
    }
    // dims are the container's dimensions: the page's column, or the
    // floating card.
    const dims = () => ({ maxHeight: o.maxHeight, maxWidth: Math.round(pip !== null ? wrap.clientWidth : container.clientWidth) || undefined });
    function save(files) {
      for (const f of files) {
        const bytes = f.blob ? Uint8Array.from(atob(f.blob), (c) => c.charCodeAt(0)) : f.text || "";
        const url = URL.createObjectURL(new Blob([bytes], { type: f.mimeType || "application/octet-stream" }));
        const a = document.createElement("a");
        a.href = url;
        a.download = f.name || "download";
        a.rel = "noopener";
        document.body.appendChild(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(url), 60000);
      }
    }

    // phases sends what the content adds to what the View has had:
    // partial input, complete input, then the result (each at most once,
    // in that order).
    function phases(c) {
      if (sent.result || sent.cancelled) return;
      if (!sent.input && c.status === "input-streaming" && c.partialArguments && c.partialArguments !== sent.partial) {
        const args = repairJSON(c.partialArguments);
        if (args && typeof args === "object") {
          sent.partial = c.partialArguments;
          notify("ui/notifications/tool-input-partial", { arguments: args });
        }
      }
      if (!sent.input && (c.result || c.status === "input-available") && c.toolInput) {
        sent.input = true;
        notify("ui/notifications/tool-input", { arguments: c.toolInput });
      }
      if (c.result) {
        if (!sent.input) { sent.input = true; notify("ui/notifications/tool-input", { arguments: c.toolInput || {} }); }
        sent.result = true;
        notify("ui/notifications/tool-result", c.result);
      } else if (c.cancelled) {
        sent.cancelled = true;
        notify("ui/notifications/tool-cancelled", { reason: String(c.cancelled) });
      }
    }

    function changeContext(partial) {
      const diff = {};
      for (const [k, v] of Object.entries(partial)) {
        if (JSON.stringify(ctx[k]) !== JSON.stringify(v)) { ctx[k] = v; diff[k] = v; }
      }
      if (Object.keys(diff).length && initialized) notify("ui/notifications/host-context-changed", diff);
    }

    async function handle(m) {
      if (m.id !== undefined && m.method === undefined) { // a response to us
        const r = pending.get(m.id);
        if (r) { pending.delete(m.id); r(m.error !== undefined ? { error: m.error } : { result: m.result }); }
        return;
      }
      switch (m.method) {
        case "ui/notifications/sandbox-proxy-ready":
          post({ jsonrpc: "2.0", method: "ui/notifications/sandbox-resource-ready", params: { html, allow: sandbox.allow || undefined } });
          return;
        case "ui/initialize": {
          const ac = (m.params && m.params.appCapabilities) || {};
          if (Array.isArray(ac.availableDisplayModes)) viewModes = ac.availableDisplayModes;
          hasViewTools = !!ac.tools;
          const state = await Promise.race([kept, new Promise((r) => setTimeout(() => r(null), 2000))]);
          reply(m.id, {
            protocolVersion: (m.params && m.params.protocolVersion) || PROTOCOL,
            hostInfo: o.hostInfo || { name: "genui-adapter", version: "0.1.0" },
            hostCapabilities: { openLinks: {}, downloadFile: {}, serverTools: {}, serverResources: {}, logging: {}, message: { text: {} }, updateModelContext: { text: {}, structuredContent: {} } },
            hostContext: state ? Object.assign({}, ctx, { [CARD_STATE]: { modelContext: state } }) : ctx,
          });
          return;
        }
        case "ui/notifications/initialized":
          initialized = true;
          for (const b of buffered.splice(0)) post(b);
          return;
        case "ui/notifications/size-changed": {
          const p = m.params || {};
          const h = Math.min(Math.max(0, Number(p.height) || 0), o.maxHeight);
          const cur = parseFloat(frame.style.height) || 0;
          if (h > 0 && !(h < cur && cur - h <= 4)) frame.style.height = h + "px";
          const w = Math.max(0, Number(p.width) || 0);
          // Wider than its frame: the frame grows and the wrapper scrolls
          // sideways. Only then, so a View that reports its frame's width
          // (autoResize in a full-width document) can still narrow with
          // the page; floating, the card's width is the View's.
          if (w > frame.clientWidth + 1 && pip === null) {
            inlineMinWidth = w + "px";
            frame.style.minWidth = inlineMinWidth;
          }
          return;
        }
        case "notifications/tools/list_changed":
          if (hasViewTools && o.onViewToolsChanged) o.onViewToolsChanged(card);
          return;
        case "ui/notifications/request-teardown":
          (o.onRequestTeardown || (() => {}))(card);
          return;
        case "notifications/message":
        case "ui/log": {
          if (o.onLog) o.onLog(m.params, card);
          if (logsInFlight >= LOGS_IN_FLIGHT) {
            if (m.id !== undefined) fail(m.id, -32000, "log flood: " + LOGS_IN_FLIGHT + " messages of this card are still on their way");
            return;
          }
          logsInFlight++;
          try {
            const r = await adapterRequest(m);
            if (r !== undefined && m.id !== undefined) reply(m.id, {});
          } finally { logsInFlight--; }
          return;
        }
        case "ui/download-file": {
          const r = await adapterRequest(m);
          if (r === undefined) return;
          const files = (r && Array.isArray(r.contents)) ? r.contents : [];
          if (o.confirmDownload && !(await o.confirmDownload(files, card))) { reply(m.id, { isError: true }); return; }
          try { await (o.onDownload || save)(files, card); } catch (e) { reply(m.id, { isError: true }); return; }
          reply(m.id, {});
          return;
        }
        case "ping":
          reply(m.id, {});
          return;
        case "tools/call":
        case "resources/read":
        case "resources/list": {
          const r = await adapterRequest(m);
          if (r !== undefined) reply(m.id, r);
          return;
        }
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
        case "ui/update-model-context": {
          // Kept by the adapter too (in order), for when the card is shown
          // again; only its size limit (-32602) reaches the View.
          const params = m.params || {};
          const saved = saving.then(() => o.request(Object.assign({ method: m.method, params }, server))).catch(() => null);
          saving = saved;
          const r = await saved;
          if (r && typeof r.error === "string" && r.code === -32602) { fail(m.id, -32602, r.error); return; }
          modelContext = m.params || null; // replace semantics
          o.onModelContext && o.onModelContext(modelContext, card);
          reply(m.id, {});
          return;
        }
        case "ui/request-display-mode": {
          const want = m.params && m.params.mode;
          let mode = ctx.displayMode;
          if (want && want !== mode && ctx.availableDisplayModes.includes(want) && viewModes.includes(want)) {
            if (want === "pip") {
              // Out of full screen first: the host's.
              if (mode !== "inline" && o.onDisplayMode) await o.onDisplayMode("inline", card);
              setPip(true);
              mode = "pip";
            } else {
              if (mode === "pip") { setPip(false); mode = "inline"; }
              const applied = o.onDisplayMode ? await o.onDisplayMode(want, card) : (want === "inline" ? "inline" : null);
              if (applied) mode = applied;
            }
          }
          reply(m.id, { mode });
          changeContext({ displayMode: mode, containerDimensions: dims() });
          return;
        }
        default:
          if (m.id !== undefined) fail(m.id, -32601, "Method not found: " + m.method);
      }
    }

    // Apps written the qwen-agent way speak {type} messages instead: the
    // View says mcp-app-ready, the host answers mcp-app-data with the
    // result's data, and mcp-app-response answers the card's tool call
    // (the run waiting for it gets it as the tool's result; with no run
    // waiting, it goes to the agent as a message naming the card).
    let appReady = false;
    let appDataSent = false;
    function sendAppData() {
      if (!appReady || appDataSent || current.appData === undefined) return;
      appDataSent = true;
      post({ type: "mcp-app-data", payload: current.appData });
    }
    async function handleApp(m) {
      if (m.type === "mcp-app-ready") {
        appReady = true;
        sendAppData();
      } else if (m.type === "mcp-app-response") {
        let delivered = false;
        try {
          const r = await o.request(Object.assign({ method: "genui-adapter/app-response", params: { payload: m.payload === undefined ? null : m.payload } }, server));
          delivered = !!(r && r.delivered);
        } catch (e) { delivered = false; }
        o.onAppResponse && o.onAppResponse(m.payload, delivered, card);
        if (!delivered && o.onMessage) o.onMessage([{ role: "user", content: [{ type: "text", text: "Response from the app: " + JSON.stringify(m.payload) }] }], card);
      }
    }

    function onMessage(e) {
      if (closed || e.source !== frame.contentWindow || e.origin !== sandboxOrigin) return;
      const m = e.data;
      if (m && m.jsonrpc !== "2.0" && typeof m.type === "string" && m.type.startsWith("mcp-app-")) { handleApp(m); return; }
      if (!m || m.jsonrpc !== "2.0") return;
      handle(m);
    }
    window.addEventListener("message", onMessage); // before the resource is sent
    frame.src = sandbox.url;
    container.appendChild(wrap);
    const resize = typeof ResizeObserver === "function" ? new ResizeObserver(() => {
      changeContext({ containerDimensions: dims() });
    }) : null;
    if (resize) resize.observe(container);
    phases(content);

    const card = {
      frame,
      content: () => current,
      modelContext: () => modelContext,
      // update takes the card's next content (the same activity replaced,
      // or patched by ACTIVITY_DELTA).
      update(next) {
        current = next;
        if (next.serverHash) server = { serverHash: next.serverHash, serverId: next.serverId };
        phases(next);
        sendAppData();
      },
      // cancel tells the View its call will have no result.
      cancel(reason) {
        if (!sent.result && !sent.cancelled) phases(Object.assign({}, current, { result: undefined, cancelled: reason || "cancelled" }));
      },
      setHostContext(partial) { changeContext(partial); },
      async listViewTools() {
        if (!hasViewTools || !initialized || closed) return [];
        const r = await hostRequest("tools/list", {}, o.viewToolTimeoutMs);
        if (!r) throw new Error("the View did not answer tools/list");
        if (r.error) throw Object.assign(new Error(String(r.error.message || "tools/list failed")), { code: r.error.code });
        listedViewTools = viewTools(r.result && r.result.tools);
        return listedViewTools.slice();
      },
      async callViewTool(name, args) {
        if (closed || !listedViewTools.some((t) => t.name === name)) throw new Error("the View has no listed tool " + JSON.stringify(String(name)));
        const r = await hostRequest("tools/call", { name, arguments: args || {} }, o.viewToolTimeoutMs);
        if (!r) throw new Error("the View did not answer tools/call " + name);
        if (r.error) throw Object.assign(new Error(String(r.error.message || "tools/call failed")), { code: r.error.code });
        return r.result;
      },
      displayMode: () => ctx.displayMode,
      // closed is true once the card is torn down (or its frame is gone).
      get closed() { return closed; },
      // teardown sends ui/resource-teardown and waits for the reply (at
      // most teardownTimeoutMs) before it removes the card; it resolves
      // with the View's reply ({result} or {error}), or null when there
      // was none. Called again, it gives the same promise.
      teardown() {
        if (!tearing) {
          tearing = (async () => {
            const r = initialized && !closed ? await hostRequest("ui/resource-teardown", {}, o.teardownTimeoutMs) : null;
            closed = true;
            cards.delete(card);
            if (resize) resize.disconnect();
            window.removeEventListener("message", onMessage);
            setPip(false);
            wrap.remove();
            return r;
          })();
        }
        return tearing;
      },
    };
    cards.add(card);
    return card;
  }

  // setHostContext changes the host context of every mounted card (a
  // theme switch, say); theme and the page's variables are read again
  // when not given.
  function setHostContext(partial) {
    const p = Object.assign({}, partial);
    if (!("styles" in p)) p.styles = { variables: pageVariables() };
    for (const c of cards) c.setHostContext(p);
  }

  window.GenuiMcpApps = { mount, proxyVia, setHostContext, repairJSON };
})();
