// The genui-adapter playground: our own small fetch + SSE reader, the
// conversation, the raw AG-UI event log, A2UI surfaces rendered by the
// official @a2ui/lit renderer (bundled into /vendor/a2ui.js by
// `make playground-vendor`) and MCP Apps cards mounted through the
// adapter's host bridge and sandbox origin.
const $ = (id) => document.getElementById(id);
const state = {
  agent: null,
  threadId: threadFromHash() || crypto.randomUUID(),
  history: [], // AG-UI messages sent back on each run (no activity messages)
  pairs: new Map(), // toolCallId -> {el, a2ui, mcp}
  cards: new Map(), // toolCallId -> {card, content, title, runId}
  surfaces: new Map(), // activity messageId -> {content, toolCallId, title}
  modelContext: new Map(), // toolCallId -> {title, value, sent}
  queue: [], // messages typed while a run streams
  types: new Set(),
  running: false,
};

function threadFromHash() {
  const m = location.hash.match(/thread=([^&]+)/);
  return m ? decodeURIComponent(m[1]) : null;
}
function saveThread() {
  history.replaceState(null, "", "#thread=" + encodeURIComponent(state.threadId) + (state.agent ? "&agent=" + encodeURIComponent(state.agent) : ""));
}
let A2UI = null;
try {
  A2UI = await import("/vendor/a2ui.js");
} catch (e) {
  $("vendor-missing").hidden = false;
}
window.__playground = { events: [], errors: [], actions: [], state, runs: [] };

// Text with markdown in A2UI surfaces: the renderer takes its markdown
// renderer from a context provided above the surfaces.
if (A2UI?.ContextProvider && A2UI?.Context?.markdown && A2UI?.renderMarkdown) {
  new A2UI.ContextProvider($("pairs"), { context: A2UI.Context.markdown, initialValue: A2UI.renderMarkdown });
}

async function loadAgents() {
  const res = await fetch("/agents");
  const { agents } = await res.json();
  for (const a of agents) {
    const o = document.createElement("option");
    o.value = a.id;
    o.textContent = a.id + (a.description ? " — " + a.description : "");
    $("agent").appendChild(o);
  }
  const wanted = (location.hash.match(/agent=([^&]+)/) || [])[1];
  state.agent = agents.some((a) => a.id === wanted) ? decodeURIComponent(wanted) : agents[0]?.id;
  $("agent").value = state.agent;
  $("agent").onchange = () => { state.agent = $("agent").value; reset(); };
}

// reset starts a new thread at once; the old results are hidden (an
// iframe moved in the DOM would reload) and their cards torn down
// (ui/resource-teardown) before they are removed.
function reset() {
  // The active run is cancelled (a waiting ask would hold the thread for
  // minutes) and the page stops reading it.
  if (state.running) stop().then((abort) => abort?.abort());
  state.running = false;
  state.runId = null;
  $("composer").classList.remove("busy");
  $("stop").hidden = true;
  const old = [...state.cards.values()];
  state.cards.clear();
  const gone = [...$("pairs").children];
  for (const el of gone) el.hidden = true;
  Promise.all(old.map((c) => c.card?.teardown().catch(() => {}))).then(() => { for (const el of gone) el.remove(); });
  state.threadId = crypto.randomUUID();
  state.history = [];
  state.queue = [];
  state.pairs.clear();
  state.surfaces.clear();
  state.modelContext.clear();
  $("messages").replaceChildren();
  $("events").replaceChildren();
  saveThread();
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

// DELTAS are the streamed pieces the log shows as one row per message or
// tool call: the row counts them and shows what they add up to.
const DELTAS = { TEXT_MESSAGE_CONTENT: "messageId", TOOL_CALL_ARGS: "toolCallId", REASONING_MESSAGE_CONTENT: "messageId" };

function logEvent(ev, t0, repair) {
  state.types.add(ev.type);
  window.__playground.events.push(ev);
  if (![...$("filter").options].some((o) => o.value === ev.type)) {
    const o = document.createElement("option");
    o.value = o.textContent = ev.type;
    $("filter").appendChild(o);
  }
  const key = DELTAS[ev.type] && `${ev.type} ${ev[DELTAS[ev.type]]}`;
  const last = $("events").lastElementChild;
  if (key && !repair && last?.dataset.group === key) {
    last.count += 1;
    last.joined += ev.delta ?? "";
    last.querySelector(".n").textContent = `×${last.count}`;
    last.querySelector(".body").textContent = `${DELTAS[ev.type]} ${ev[DELTAS[ev.type]]}: ${JSON.stringify(last.joined)}`;
    return;
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
  const body = document.createElement("span");
  body.className = "body";
  body.textContent = JSON.stringify(ev);
  li.append(t, ty);
  if (key) {
    li.dataset.group = key;
    li.count = 1;
    li.joined = ev.delta ?? "";
    const n = document.createElement("span");
    n.className = "n";
    n.textContent = "×1";
    li.append(n);
    body.textContent = `${DELTAS[ev.type]} ${ev[DELTAS[ev.type]]}: ${JSON.stringify(li.joined)}`;
  }
  li.append(body);
  li.hidden = $("filter").value !== "" && $("filter").value !== ev.type;
  $("events").appendChild(li);
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
    // The newest result is in view.
    requestAnimationFrame(() => el.scrollIntoView({ block: "nearest" }));
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

// surfaceSource says where a surface came from: generated by the adapter
// from a structured tool result, authored by the model (render_a2ui), sent
// by an MCP server (its ids name it), or sent by the agent itself.
function surfaceSource(ops, toolCallId, title) {
  const sid = (ops || []).map((m) => Object.values(m).find((b) => b && typeof b === "object" && b.surfaceId)?.surfaceId).find(Boolean) || "";
  const server = sid.match(/^mcp~([^~]+)~/);
  if (server) return `source: MCP server "${server[1]}"`;
  if (title === "render_a2ui" || /_render_a2ui$/.test(title || "")) return "source: authored by the model (render_a2ui)";
  if (sid === "s-" + toolCallId) return `source: generated from ${title || "a tool"}'s result`;
  return "source: the agent";
}

function renderSurface(ev, toolCallId, title) {
  state.surfaces.set(ev.messageId, { content: ev.content, toolCallId, title });
  const p = pairFor(toolCallId, title);
  const c = column(p, "a2ui", "A2UI surface (@a2ui/lit)");
  const ops = ev.content.a2ui_operations;
  const bytes = new TextEncoder().encode(JSON.stringify(ev.content)).length;
  c.meta.textContent = (ops ? `${ops.length} A2UI messages, ${bytes} bytes` : `status: ${ev.content.status}`) + ` · ${surfaceSource(ops, toolCallId, title)}`;
  c.raw.textContent = JSON.stringify(ev.content, null, 2);
  c.body.replaceChildren();
  if (!ops) { c.body.textContent = ev.content.error || ev.content.status; return; }
  if (!A2UI) { c.body.textContent = JSON.stringify(ops); return; }
  const proc = new A2UI.MessageProcessor([A2UI.basicCatalog], (action) => sendAction(action, proc));
  proc.onSurfaceCreated((s) => {
    const el = document.createElement("a2ui-surface");
    el.surface = s;
    c.body.appendChild(el);
  });
  for (const m of ops) {
    try { proc.processMessages([m]); } catch (e) { window.__playground.errors.push(String(e.message || e)); c.body.append("renderer error: " + e.message); }
  }
}

// renderCard shows an mcp-apps activity; the same call's later activity
// (the loading card's input, then its result) updates the mounted card.
async function renderCard(content, toolCallId, title, threadId) {
  const known = state.cards.get(toolCallId);
  if (known) {
    known.content = content;
    if (known.card) known.card.update(content);
    else known.next = content;
    describeCard(known.col, content);
    return;
  }
  const entry = { content, title, runId: state.runId, card: null };
  state.cards.set(toolCallId, entry);
  const p = pairFor(toolCallId, title);
  const c = column(p, "mcp", "MCP Apps card (sandboxed)");
  entry.col = c;
  describeCard(c, content);
  c.body.replaceChildren();
  try {
    // A card's requests go on the thread of the run that showed it: its
    // capability is bound to that thread.
    const request = GenuiMcpApps.proxyVia(`/agents/${state.agent}/run`, { threadId: threadId || state.threadId });
    const card = await GenuiMcpApps.mount(c.body, content, {
      request: async (req) => {
        const r = await request(req);
        if (req.method === "resources/read" && r?.contents?.[0]?.text) {
          c.meta.dataset.resource = ` · resource ${r.contents[0].text.length} bytes`;
          describeCard(c, entry.content);
        }
        return r;
      },
      maxHeight: 2400,
      // The View's own tools (App.registerTool) are offered to the agent
      // while the card lives.
      onViewToolsChanged: () => refreshViewTools(entry),
      displayModes: ["inline", "fullscreen", "pip"],
      onDisplayMode: (mode) => setFullscreen(p, mode === "fullscreen", entry),
      // ui/message: a user turn that says which card sent it.
      onMessage: (msgs) => {
        for (const m of msgs) {
          const text = typeof m.content === "string" ? m.content : (Array.isArray(m.content) ? m.content.filter((b) => b.type === "text").map((b) => b.text).join("\n") : m.content?.text) || JSON.stringify(m);
          send(text, { from: `${title || "MCP App"} card (tool call ${toolCallId})` });
        }
      },
      // ui/update-model-context: kept per card, replaced, sent with the
      // next user turn as a context entry that names the card.
      onModelContext: (mc) => {
        state.modelContext.set(toolCallId, { title: title || content.resourceUri, value: mc, sent: false });
        window.__playground.modelContext = Object.fromEntries(state.modelContext);
      },
    });
    entry.card = card;
    refreshViewTools(entry);
    if (entry.next) { card.update(entry.next); entry.next = null; }
    if (entry.cancelled) card.cancel(entry.cancelled);
  } catch (e) {
    c.body.textContent = "card error: " + e.message;
    window.__playground.errors.push(String(e.message || e));
  }
}

function describeCard(c, content) {
  c.raw.textContent = JSON.stringify(content, null, 2);
  const phase = content.result ? (content.result.isError ? "tool error" : `tool result ${new TextEncoder().encode(JSON.stringify(content.result)).length} bytes`) : `loading: ${content.status || "running"}`;
  c.meta.textContent = `${phase} · ${content.resourceUri}${c.meta.dataset.resource || ""}`;
}

function setFullscreen(p, on, entry) {
  p.el.classList.toggle("fullscreen", on);
  let exit = p.el.querySelector(":scope > .exit-fullscreen");
  if (on && !exit) {
    exit = document.createElement("button");
    exit.type = "button";
    exit.className = "exit-fullscreen";
    exit.textContent = "Exit full screen";
    exit.onclick = () => { setFullscreen(p, false, entry); entry.card?.setHostContext({ displayMode: "inline" }); };
    p.el.prepend(exit);
  } else if (!on && exit) {
    exit.remove();
  }
  return on ? "fullscreen" : "inline";
}

// applyPatch applies an ACTIVITY_DELTA's JSON Patch to an activity's
// content: add/replace/remove of top-level keys, and appends to a
// top-level array ("/key/-"), which is all the adapter sends.
function applyPatch(content, patch) {
  const out = { ...content };
  for (const op of patch || []) {
    const append = String(op.path || "").match(/^\/([^/]+)\/-$/);
    if (append && op.op === "add") { out[append[1]] = [...(out[append[1]] || []), op.value]; continue; }
    const key = String(op.path || "").replace(/^\//, "").replaceAll("~1", "/").replaceAll("~0", "~");
    if (!key || key.includes("/")) continue;
    if (op.op === "remove") delete out[key];
    else if (op.op === "add" || op.op === "replace") out[key] = op.value;
  }
  return out;
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

// run streams one run. A side run (an action on an MCP server's surface,
// such as ask_user's form answering the run that waits for it) goes
// alongside the current run instead of after it.
async function run(forwardedProps = {}, { side = false } = {}) {
  if (!state.agent || (state.running && !side)) return;
  const runId = crypto.randomUUID();
  // This host mounts a card when its tool call starts.
  // and sends a card's requests and a surface's actions while a run
  // streams, so a question's answer can come in the same run.
  const fp = { ...forwardedProps, genuiDebug: true, mcpAppsHost: { loadingCards: true, concurrentRequests: true } };
  if ($("side").checked) fp.genuiRender = ["a2ui", "mcp-apps"];
  const context = [];
  if (forwardedProps.userTurn) {
    delete fp.userTurn;
    for (const [id, mc] of state.modelContext) {
      if (mc.sent) continue;
      mc.sent = true;
      context.push({ description: `Model context set by the MCP App card "${mc.title}" (tool call ${id}); written by the app, not the user`, value: JSON.stringify(mc.value) });
    }
  }
  // A card whose View was not ready when it mounted lists its tools now
  // (a View that does not answer within a second is left out).
  await Promise.all([...state.cards.values()].filter((e) => e.card && !e.card.closed && !e.viewTools).map((e) => Promise.race([refreshViewTools(e), new Promise((r) => setTimeout(r, 1000))])));
  window.__playground.runs.push({ runId, context });
  const body = JSON.stringify({ threadId: state.threadId, runId, messages: state.history, tools: offeredViewTools(), context, forwardedProps: fp });
  // Calls of tools only a card shows, while nothing showed them.
  return follow(runId, { side, mcpOnly: fp.genuiRender ? null : new Map() }, (signal) => fetch(`/agents/${state.agent}/run`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
    body,
    signal,
  }));
}

// resume follows a run that is still going (a reload mid-run): its events
// from the first, so nothing is lost.
function resume(runId) {
  if (state.running) return;
  addMessage("call", `Resuming the active run ${runId}`);
  return follow(runId, { side: false, mcpOnly: null }, (signal) => fetch(`/runs/${encodeURIComponent(runId)}/events`, { headers: { Accept: "text/event-stream" }, signal }));
}

// follow shows one run's stream (open(signal) starts it). A run that is
// not a side run owns the composer until it ends, and is stopped by Stop
// and New thread; events of a run whose thread was left are dropped.
async function follow(runId, { side, mcpOnly }, open) {
  const thread = state.threadId;
  const ctrl = new AbortController();
  if (!side) {
    state.running = true;
    state.runId = runId;
    state.abort = ctrl;
    $("composer").classList.add("busy");
    $("stop").hidden = false;
    saveThread();
  }
  const t0 = performance.now();
  const texts = new Map();
  const names = new Map();
  const args = new Map();
  let repairPending = false;
  const viewCalls = []; // calls of tools a card's View provides
  try {
    const res = await open(ctrl.signal);
    if (!res.ok) { addMessage("error", `HTTP ${res.status}: ${await res.text()}`); return; }
    await readSSE(res, (ev) => {
      if (state.threadId !== thread) return;
      if (ev.type === "CUSTOM" && ev.name === "genui-adapter.repairs") { repairPending = true; logEvent(ev, t0, true); return; }
      logEvent(ev, t0, repairPending);
      repairPending = false;
      switch (ev.type) {
        case "TEXT_MESSAGE_START": texts.set(ev.messageId, addMessage(ev.role === "user" ? "user" : "assistant", "")); break;
        case "TEXT_MESSAGE_CONTENT": { const li = texts.get(ev.messageId); if (li) li.textContent += ev.delta; break; }
        case "TEXT_MESSAGE_END": { const li = texts.get(ev.messageId); if (li) state.history.push({ id: ev.messageId, role: "assistant", content: li.textContent }); break; }
        case "TOOL_CALL_START":
          names.set(ev.toolCallId, ev.toolCallName); args.set(ev.toolCallId, "");
          if (mcpOnly && MCP_ONLY[ev.toolCallName]) mcpOnly.set(ev.toolCallId, ev.toolCallName);
          break;
        case "TOOL_CALL_ARGS": args.set(ev.toolCallId, args.get(ev.toolCallId) + ev.delta); break;
        case "TOOL_CALL_END":
          if (viewToolByName(names.get(ev.toolCallId))) viewCalls.push({ id: ev.toolCallId, name: names.get(ev.toolCallId), args: args.get(ev.toolCallId) || "{}" });
          addMessage("call", `→ ${names.get(ev.toolCallId)}(${args.get(ev.toolCallId)})`);
          state.history.push({ id: ev.toolCallId, role: "assistant", toolCalls: [{ id: ev.toolCallId, type: "function", function: { name: names.get(ev.toolCallId), arguments: args.get(ev.toolCallId) || "{}" } }] });
          break;
        case "TOOL_CALL_RESULT":
          addMessage("tool", `← ${names.get(ev.toolCallId) || ev.toolCallId}: ${ev.content.length > 400 ? ev.content.slice(0, 400) + "…" : ev.content}`);
          state.history.push({ id: ev.messageId, role: "tool", toolCallId: ev.toolCallId, content: ev.content });
          break;
        case "ACTIVITY_SNAPSHOT": {
          if (ev.activityType === "a2ui-surface") {
            const tc = ev.messageId.replace(/^a2ui-surface-/, "");
            mcpOnly?.delete(tc); // shown after all (a link to the page, say)
            renderSurface(ev, tc, names.get(tc));
          } else if (ev.activityType === "mcp-apps") {
            const tc = ev.content.toolCallId || ev.messageId;
            renderCard(ev.content, tc, names.get(tc) || state.cards.get(tc)?.title);
          }
          break;
        }
        case "ACTIVITY_DELTA": {
          const surface = ev.activityType === "a2ui-surface" && state.surfaces.get(ev.messageId);
          if (surface) {
            renderSurface({ messageId: ev.messageId, content: applyPatch(surface.content, ev.patch) }, surface.toolCallId, surface.title);
            break;
          }
          const entry = [...state.cards.entries()].find(([tc]) => "mcp-apps-" + tc === ev.messageId);
          if (entry) renderCard(applyPatch(entry[1].content, ev.patch), entry[0], entry[1].title);
          break;
        }
        case "RUN_ERROR": addMessage("error", `RUN_ERROR ${ev.code || ""}: ${ev.message}`); break;
      }
    });
  } catch (e) {
    if (e.name !== "AbortError" && state.threadId === thread) addMessage("error", String(e.message || e));
  } finally {
    // A card of this run whose call got no result never will.
    for (const entry of state.cards.values()) {
      if (entry.runId === runId && !entry.content.result) {
        entry.cancelled = "the run ended before the tool returned";
        entry.card?.cancel(entry.cancelled);
      }
    }
    // A side run, or a run whose thread was left (New thread), owns
    // nothing any more.
    if (!side && state.runId === runId) {
      state.running = false;
      state.runId = null;
      state.abort = null;
      $("composer").classList.remove("busy");
      $("stop").hidden = true;
      // A result A2UI cannot show: turn on the renderer that can, say so,
      // and ask again.
      const unshown = [...(mcpOnly?.values() || [])][0];
      if (unshown && !$("side").checked && state.lastUserText) {
        $("side").checked = true;
        notice(`${unshown} shows ${MCP_ONLY[unshown]}, which A2UI has no component for: Side-by-side (MCP Apps cards) is now on, and your message was sent again.`);
        if (!state.queue.length) send(state.lastUserText);
      } else if (viewCalls.length && state.threadId === thread) {
        runViewTools(viewCalls);
      } else {
        const next = state.queue.shift();
        if (next) { next.li.classList.remove("queued"); next.li.textContent = next.label; state.history.push(next.msg); run({ userTurn: true }); }
      }
    }
  }
}

// stop cancels the active run on the server (its stream then ends with
// RUN_ERROR cancelled); the page stops reading it.
async function stop() {
  const id = state.runId;
  if (!id) return;
  const abort = state.abort;
  try {
    await fetch(`/runs/${encodeURIComponent(id)}/cancel`, { method: "POST" });
  } catch (e) {
    window.__playground.errors.push("cancel: " + String(e.message || e));
  }
  return abort;
}
$("stop").onclick = () => stop();

// View tools: the tools a card's View provides (ui/list-view-tools, the
// App's registerTool) are offered to the agent as client tools named
// view<n>_<name> (n numbers the cards of the page) while the card lives;
// a torn-down card's are gone with it. The bridge drops hostile names
// and oversized schemas; here a schema must also be a JSON Schema object
// ({"type":"object"}) and the namespaced name at most 64 characters.
let viewCardSeq = 0;
async function refreshViewTools(entry) {
  if (!entry.card || entry.card.closed) return;
  entry.viewNs ??= "view" + ++viewCardSeq;
  let tools = [];
  try { tools = await entry.card.listViewTools(); } catch (e) { window.__playground.errors.push("view tools: " + (e.message || e)); }
  const offered = tools.filter((t) => t.inputSchema?.type === "object" && (entry.viewNs + "_" + t.name).length <= 64)
    .map((t) => ({ name: entry.viewNs + "_" + t.name, viewName: t.name, description: `${t.description || t.name} (a tool of the MCP App card "${entry.title || entry.content.resourceUri}", provided by the app)`, parameters: t.inputSchema }));
  // None yet (a View not yet initialized): listed again before the next run.
  entry.viewTools = offered.length ? offered : undefined;
}
function liveCards() {
  return [...state.cards.values()].filter((e) => e.card && !e.card.closed && e.viewTools?.length);
}
function offeredViewTools() {
  return liveCards().flatMap((e) => e.viewTools.map(({ name, description, parameters }) => ({ name, description, parameters })));
}
function viewToolByName(name) {
  for (const e of liveCards()) {
    const t = e.viewTools.find((k) => k.name === name);
    if (t) return { entry: e, tool: t };
  }
  return null;
}
// runViewTools calls the View tools the agent asked for and runs the
// agent again with their results.
async function runViewTools(calls) {
  for (const c of calls) {
    const found = viewToolByName(c.name);
    let content;
    try {
      if (!found) throw new Error("the card that provided this tool is gone");
      let args = {};
      try { args = JSON.parse(c.args); } catch { throw new Error("the arguments are not JSON"); }
      const r = await found.entry.card.callViewTool(found.tool.viewName, args);
      content = (r?.content || []).filter((b) => b.type === "text").map((b) => b.text).join("\n") || JSON.stringify(r?.structuredContent ?? r ?? {});
      if (r?.isError) content = "error: " + content;
    } catch (e) {
      content = "error: " + (e.message || e);
    }
    addMessage("tool", `← ${c.name}: ${content.length > 400 ? content.slice(0, 400) + "…" : content}`);
    state.history.push({ id: crypto.randomUUID(), role: "tool", toolCallId: c.id, content });
  }
  return run({});
}

// MCP_ONLY names the tools only an MCP Apps card shows, and what they show.
const MCP_ONLY = { render_html: "HTML", render_url: "a web page" };

// notice says something about the results in the results pane.
function notice(text) {
  const p = document.createElement("p");
  p.className = "notice";
  p.setAttribute("role", "status");
  p.textContent = text;
  $("pairs").appendChild(p);
  p.scrollIntoView({ block: "nearest" });
}

// send adds a user turn; one typed while a run streams waits its turn
// (shown as queued). from names the MCP App card that sent it.
function send(text, { from } = {}) {
  const id = crypto.randomUUID();
  const content = from ? `[Sent by the ${from}, not typed by the user]\n${text}` : text;
  const label = from ? `${from}: ${text}` : text;
  const msg = { id, role: "user", content };
  if (!from) state.lastUserText = text;
  if (state.running) {
    const li = addMessage("user queued", label + " (queued: sent when the current run ends)");
    state.queue.push({ msg, li, label });
    return;
  }
  addMessage("user", label);
  state.history.push(msg);
  return run({ userTurn: true });
}

// sendAction sends a surface's action with, for surfaces created with
// sendDataModel, the client's data model (A2UI data model sync).
function sendAction(action, proc) {
  window.__playground.actions.push(action);
  addMessage("call", `A2UI action ${action.name} ${JSON.stringify(action.context || {})}`);
  const fp = { a2uiAction: { userAction: action } };
  const dm = proc && typeof proc.getClientDataModel === "function" ? proc.getClientDataModel() : undefined;
  if (dm) fp.a2uiClientDataModel = dm;
  return run(fp, { side: String(action.surfaceId || "").startsWith("mcp~") });
}

$("composer").addEventListener("submit", (e) => {
  e.preventDefault();
  const v = $("input").value.trim();
  if (!v) return;
  $("input").value = "";
  send(v);
});

// restore shows a thread again after a reload: its messages, surfaces and
// cards, from the thread's history; it returns the thread's active run.
async function restore() {
  const res = await fetch(`/threads/${encodeURIComponent(state.threadId)}/messages`);
  if (!res.ok) return null;
  const { messages = [], activeRunId } = await res.json();
  const names = new Map();
  for (const m of messages) {
    if (m.role === "activity") {
      if (m.activityType === "a2ui-surface") {
        const tc = m.id.replace(/^a2ui-surface-/, "");
        renderSurface({ content: m.content, messageId: m.id }, tc, names.get(tc));
      } else if (m.activityType === "mcp-apps") {
        const tc = m.content.toolCallId || m.id;
        renderCard(m.content, tc, names.get(tc));
      }
      continue;
    }
    state.history.push(m);
    if (m.role === "user") addMessage("user", typeof m.content === "string" ? m.content : JSON.stringify(m.content));
    else if (m.role === "assistant") {
      if (m.content) addMessage("assistant", m.content);
      for (const c of m.toolCalls || []) { names.set(c.id, c.function.name); addMessage("call", `→ ${c.function.name}(${c.function.arguments})`); }
    } else if (m.role === "tool") addMessage("tool", `← ${names.get(m.toolCallId) || m.toolCallId}: ${String(m.content).slice(0, 400)}`);
  }
  return activeRunId;
}

// The theme reaches every card as host context.
function applyTheme(theme) {
  document.documentElement.dataset.theme = theme;
  GenuiMcpApps.setHostContext({ theme });
}
$("theme").value = document.documentElement.dataset.theme || "light";
$("theme").onchange = () => applyTheme($("theme").value);

await loadAgents();
const active = threadFromHash() ? await restore() : null;
saveThread();
window.__playground.ready = true;
// A reload mid-run: the run goes on, and so does the page.
if (active) resume(active);
