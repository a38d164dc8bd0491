// The genui-adapter playground: our own small fetch + SSE reader, the
// conversation, the raw AG-UI event log, A2UI surfaces rendered by the
// official @a2ui/lit renderer (bundled into /vendor/a2ui.js by
// `make playground-vendor`) and MCP Apps cards mounted through the
// adapter's host bridge and sandbox origin.
const $ = (id) => document.getElementById(id);
const state = {
  agent: null,
  threadId: crypto.randomUUID(),
  history: [], // AG-UI messages sent back on each run (no activity messages)
  pairs: new Map(), // toolCallId -> {el, a2ui, mcp}
  types: new Set(),
  running: false,
};
let A2UI = null;
try {
  A2UI = await import("/vendor/a2ui.js");
} catch (e) {
  $("vendor-missing").hidden = false;
}
window.__playground = { events: [], errors: [], actions: [], state };

async function loadAgents() {
  const res = await fetch("/agents");
  const { agents } = await res.json();
  for (const a of agents) {
    const o = document.createElement("option");
    o.value = a.id;
    o.textContent = a.id + (a.description ? " — " + a.description : "");
    $("agent").appendChild(o);
  }
  state.agent = agents[0]?.id;
  $("agent").onchange = () => { state.agent = $("agent").value; reset(); };
}

function reset() {
  state.threadId = crypto.randomUUID();
  state.history = [];
  state.pairs.clear();
  $("messages").replaceChildren();
  $("pairs").replaceChildren();
  $("events").replaceChildren();
}
$("reset").onclick = reset;

function addMessage(cls, text) {
  const li = document.createElement("li");
  li.className = cls;
  li.textContent = text;
  $("messages").appendChild(li);
  li.scrollIntoView({ block: "nearest" });
  return li;
}

function logEvent(ev, t0, repair) {
  state.types.add(ev.type);
  if (![...$("filter").options].some((o) => o.value === ev.type)) {
    const o = document.createElement("option");
    o.value = o.textContent = ev.type;
    $("filter").appendChild(o);
  }
  const li = document.createElement("li");
  li.dataset.type = ev.type;
  if (repair) li.classList.add("repair");
  const t = document.createElement("span");
  t.className = "t";
  t.textContent = "+" + (performance.now() - t0).toFixed(0) + "ms";
  const ty = document.createElement("span");
  ty.className = "type";
  ty.textContent = ev.type;
  li.append(t, ty, document.createTextNode(JSON.stringify(ev)));
  li.hidden = $("filter").value !== "" && $("filter").value !== ev.type;
  $("events").appendChild(li);
  window.__playground.events.push(ev);
}
$("filter").onchange = () => {
  for (const li of $("events").children) li.hidden = $("filter").value !== "" && $("filter").value !== li.dataset.type;
};

function pairFor(toolCallId, title) {
  let p = state.pairs.get(toolCallId);
  if (!p) {
    const el = document.createElement("div");
    el.className = "pair";
    el.dataset.toolCallId = toolCallId;
    const h = document.createElement("h3");
    h.textContent = title || toolCallId;
    const cols = document.createElement("div");
    cols.className = "cols";
    el.append(h, cols);
    $("pairs").appendChild(el);
    p = { el, cols, a2ui: null, mcp: null };
    state.pairs.set(toolCallId, p);
  }
  return p;
}

function column(p, kind, label) {
  if (p[kind]) return p[kind];
  const col = document.createElement("div");
  col.className = "col " + kind;
  const h = document.createElement("h4");
  h.textContent = label;
  const meta = document.createElement("div");
  meta.className = "meta";
  const body = document.createElement("div");
  body.className = "body";
  const toggle = document.createElement("button");
  toggle.type = "button";
  toggle.textContent = "show raw";
  const raw = document.createElement("pre");
  raw.className = "raw";
  raw.hidden = true;
  toggle.onclick = () => { raw.hidden = !raw.hidden; toggle.textContent = raw.hidden ? "show raw" : "hide raw"; };
  col.append(h, meta, body, toggle, raw);
  p.cols.appendChild(col);
  p.cols.classList.toggle("both", p.cols.children.length > 1);
  p[kind] = { col, meta, body, raw };
  return p[kind];
}

function renderSurface(ev, toolCallId, title) {
  const p = pairFor(toolCallId, title);
  const c = column(p, "a2ui", "A2UI surface (@a2ui/lit)");
  const ops = ev.content.a2ui_operations;
  const bytes = new TextEncoder().encode(JSON.stringify(ev.content)).length;
  c.meta.textContent = ops ? `${ops.length} A2UI messages, ${bytes} bytes` : `status: ${ev.content.status}`;
  c.raw.textContent = JSON.stringify(ev.content, null, 2);
  c.body.replaceChildren();
  if (!ops) { c.body.textContent = ev.content.error || ev.content.status; return; }
  if (!A2UI) { c.body.textContent = JSON.stringify(ops); return; }
  const proc = new A2UI.MessageProcessor([A2UI.basicCatalog], (action) => sendAction(action));
  proc.onSurfaceCreated((s) => {
    const el = document.createElement("a2ui-surface");
    el.surface = s;
    c.body.appendChild(el);
  });
  for (const m of ops) {
    try { proc.processMessages([m]); } catch (e) { window.__playground.errors.push(String(e.message || e)); c.body.append("renderer error: " + e.message); }
  }
}

async function renderCard(ev, toolCallId, title) {
  const p = pairFor(toolCallId, title);
  const c = column(p, "mcp", "MCP Apps card (sandboxed)");
  const bytes = new TextEncoder().encode(JSON.stringify(ev.content.result)).length;
  c.raw.textContent = JSON.stringify(ev.content, null, 2);
  c.meta.textContent = `tool result ${bytes} bytes · ${ev.content.resourceUri}`;
  c.body.replaceChildren();
  try {
    // A card's requests go on the thread of the run that showed it: its
    // capability is bound to that thread.
    const request = GenuiMcpApps.proxyVia(`/agents/${state.agent}/run`, { threadId: ev.threadId || state.threadId });
    const card = await GenuiMcpApps.mount(c.body, ev.content, {
      request: async (req) => {
        const r = await request(req);
        if (req.method === "resources/read" && r?.contents?.[0]?.text) c.meta.textContent += ` · resource ${r.contents[0].text.length} bytes`;
        return r;
      },
      onMessage: (msgs) => { for (const m of msgs) send(typeof m.content === "string" ? m.content : (m.content?.[0]?.text ?? JSON.stringify(m))); },
    });
    c.card = card;
  } catch (e) {
    c.body.textContent = "card error: " + e.message;
    window.__playground.errors.push(String(e.message || e));
  }
}

async function readSSE(res, onEvent) {
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const data = block.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(l.startsWith("data: ") ? 6 : 5)).join("\n");
      if (data) onEvent(JSON.parse(data));
    }
  }
}

async function run(forwardedProps = {}) {
  if (!state.agent || state.running) return;
  state.running = true;
  const runId = crypto.randomUUID();
  const fp = { ...forwardedProps, genuiDebug: true };
  if ($("side").checked) fp.genuiRender = ["a2ui", "mcp-apps"];
  const t0 = performance.now();
  const texts = new Map();
  const names = new Map();
  const args = new Map();
  let repairPending = false;
  try {
    const res = await fetch(`/agents/${state.agent}/run`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify({ threadId: state.threadId, runId, messages: state.history, tools: [], context: [], forwardedProps: fp }),
    });
    if (!res.ok) { addMessage("error", `HTTP ${res.status}: ${await res.text()}`); return; }
    await readSSE(res, (ev) => {
      if (ev.type === "CUSTOM" && ev.name === "genui-adapter.repairs") { repairPending = true; logEvent(ev, t0, true); return; }
      logEvent(ev, t0, repairPending);
      repairPending = false;
      switch (ev.type) {
        case "TEXT_MESSAGE_START": texts.set(ev.messageId, addMessage(ev.role === "user" ? "user" : "assistant", "")); break;
        case "TEXT_MESSAGE_CONTENT": { const li = texts.get(ev.messageId); if (li) li.textContent += ev.delta; break; }
        case "TEXT_MESSAGE_END": { const li = texts.get(ev.messageId); if (li) state.history.push({ id: ev.messageId, role: "assistant", content: li.textContent }); break; }
        case "TOOL_CALL_START": names.set(ev.toolCallId, ev.toolCallName); args.set(ev.toolCallId, ""); break;
        case "TOOL_CALL_ARGS": args.set(ev.toolCallId, args.get(ev.toolCallId) + ev.delta); break;
        case "TOOL_CALL_END":
          addMessage("call", `→ ${names.get(ev.toolCallId)}(${args.get(ev.toolCallId)})`);
          state.history.push({ id: ev.toolCallId, role: "assistant", toolCalls: [{ id: ev.toolCallId, type: "function", function: { name: names.get(ev.toolCallId), arguments: args.get(ev.toolCallId) || "{}" } }] });
          break;
        case "TOOL_CALL_RESULT":
          addMessage("tool", `← ${names.get(ev.toolCallId) || ev.toolCallId}: ${ev.content.length > 400 ? ev.content.slice(0, 400) + "…" : ev.content}`);
          state.history.push({ id: ev.messageId, role: "tool", toolCallId: ev.toolCallId, content: ev.content });
          break;
        case "ACTIVITY_SNAPSHOT": {
          const tc = ev.activityType === "a2ui-surface" ? ev.messageId.replace(/^a2ui-surface-/, "") : findToolCall(ev, names);
          if (ev.activityType === "a2ui-surface") renderSurface(ev, tc, names.get(tc));
          else if (ev.activityType === "mcp-apps") renderCard(ev, tc, names.get(tc));
          break;
        }
        case "RUN_ERROR": addMessage("error", `RUN_ERROR ${ev.code || ""}: ${ev.message}`); break;
      }
    });
  } catch (e) {
    addMessage("error", String(e.message || e));
  } finally {
    state.running = false;
  }
}

// An mcp-apps card names no tool call: pair it with the last tool call
// whose result came just before it.
function findToolCall(ev, names) {
  const ids = [...names.keys()];
  return ids[ids.length - 1] || ev.messageId;
}

function send(text) {
  const id = crypto.randomUUID();
  addMessage("user", text);
  state.history.push({ id, role: "user", content: text });
  return run();
}

function sendAction(action) {
  window.__playground.actions.push(action);
  addMessage("call", `A2UI action ${action.name} ${JSON.stringify(action.context || {})}`);
  return run({ a2uiAction: { userAction: action } });
}

$("composer").addEventListener("submit", (e) => {
  e.preventDefault();
  const v = $("input").value.trim();
  if (!v) return;
  $("input").value = "";
  send(v);
});

await loadAgents();
window.__playground.ready = true;
