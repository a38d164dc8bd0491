// The playground as an MCP Apps host, in headless Chromium, with a
// recorder App (e2e/lib/recorder.js) that writes down everything the host
// sends it: a slow tool's card shows with its input before its result; an
// error result reaches the View and the model; a theme switch, the
// fullscreen display mode, model context, ui/message and teardown; a
// message typed during a run is queued; a reload restores the thread; and
// at 1440 and 800 px no card is clipped, no A2UI text overlaps and nothing
// is off screen.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { startAdapter } from "../lib/adapter.js";
import { startUpstream } from "../lib/upstream.js";
import { startRecorder, INSTRUCTIONS } from "../lib/recorder.js";
import { launch, artifacts } from "../lib/browser.js";
import { sse } from "../agui/scenarios.js";
import { fileURLToPath } from "node:url";
import { say, runsEnded } from "../lib/playground.js";

const nm = fileURLToPath(new URL("../node_modules/@modelcontextprotocol/", import.meta.url));

let adapter, up, recorder, browser, page;
const pageErrors = [];

const text = (i, t) => [
  { type: "TEXT_MESSAGE_START", messageId: "m-" + i.runId, role: "assistant" },
  { type: "TEXT_MESSAGE_CONTENT", messageId: "m-" + i.runId, delta: t },
  { type: "TEXT_MESSAGE_END", messageId: "m-" + i.runId },
];

before(async () => {
  recorder = await startRecorder();
  up = await startUpstream({
    "/agent": (i) => {
      const last = i.messages.at(-1);
      const frame = (evs) => sse([{ type: "RUN_STARTED", threadId: i.threadId, runId: i.runId }, ...evs, { type: "RUN_FINISHED", threadId: i.threadId, runId: i.runId }]);
      if (last?.role === "tool") return frame(text(i, "The recorder answered: " + last.content));
      const said = typeof last?.content === "string" ? last.content : "";
      const call = (id, chunks) => [
        { type: "TOOL_CALL_START", toolCallId: id, toolCallName: "show_recorder" },
        ...chunks.map((delta) => ({ type: "TOOL_CALL_ARGS", toolCallId: id, delta })),
        { type: "TOOL_CALL_END", toolCallId: id },
      ];
      if (said === "slow") return frame(call("rec-slow-" + i.runId.slice(0, 8), ['{"label":"slow",', '"delayMs":1500}']));
      if (said === "fail") return frame(call("rec-fail-" + i.runId.slice(0, 8), ['{"label":"x","fail":true}']));
      if (said === "card") return frame(call("rec-" + i.runId.slice(0, 8), ['{"label":"quick"}']));
      if (said === "time") return frame([{ type: "TOOL_CALL_START", toolCallId: "time-" + i.runId.slice(0, 8), toolCallName: "get-time" }, { type: "TOOL_CALL_END", toolCallId: "time-" + i.runId.slice(0, 8) }]);
      if (said === "counter") return frame([{ type: "TOOL_CALL_START", toolCallId: "cnt-" + i.runId.slice(0, 8), toolCallName: "a2ui_counter" }, { type: "TOOL_CALL_END", toolCallId: "cnt-" + i.runId.slice(0, 8) }]);
      return frame(text(i, "ok: " + said));
    },
  });
  adapter = await startAdapter(`
mcpServers:
  recorder: {url: "${recorder.url}", a2ui: true}
  basic: {command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(nm + "server-basic-vanillajs/dist/index.js")}, "--stdio"]}
agents:
  host: {type: agui, url: "${up.url}/agent", mcpServers: [recorder], a2ui: {disabled: true}}
  basic: {type: agui, url: "${up.url}/agent", mcpServers: [basic], a2ui: {disabled: true}}
  demo: {type: demo, delay: 1ms, mcpServers: [refunds, genui]}
`);
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  await page.goto(adapter.url + "/#agent=host");
  await page.waitForFunction(() => window.__playground?.ready);
});

after(async () => {
  await browser?.close();
  await adapter?.stop();
  await up?.close();
  await recorder?.close();
});

async function type(msg) {
  await page.locator("#input").fill(msg);
  await page.locator("#input").press("Enter");
}

// views are the inner frames of the cards (the Views), newest last.
const views = () => page.frames().filter((f) => f.parentFrame() && f.parentFrame().parentFrame() === page.mainFrame());
async function newestView(timeout = 10000) {
  const end = Date.now() + timeout;
  for (;;) {
    const v = views().at(-1);
    if (v) {
      try { if (await v.evaluate(() => Array.isArray(window.__seen) && !!window.__init)) return v; } catch {}
    }
    if (Date.now() > end) throw new Error("no View frame");
    await page.waitForTimeout(50);
  }
}
// viewAfter waits for a View that is not one of before.
async function viewAfter(before, timeout = 10000) {
  const end = Date.now() + timeout;
  for (;;) {
    for (const v of views()) {
      if (before.includes(v)) continue;
      try { if (await v.evaluate(() => Array.isArray(window.__seen) && !!window.__init)) return v; } catch {}
    }
    if (Date.now() > end) throw new Error("no new View frame");
    await page.waitForTimeout(50);
  }
}
const seen = (v) => v.evaluate(() => window.__seen.map((m) => ({ method: m.method, params: m.params, at: m.at })));

test("a slow tool's card shows with its input before its result", async () => {
  const start = Date.now();
  await type("slow");
  const v = await newestView(5000);
  await v.waitForFunction(() => window.__seen.some((m) => m.method === "ui/notifications/tool-input"), null, { timeout: 5000 });
  let s = await seen(v);
  const input = s.find((m) => m.method === "ui/notifications/tool-input");
  assert.deepEqual(input.params.arguments, { label: "slow", delayMs: 1500 });
  assert.ok(!s.some((m) => m.method === "ui/notifications/tool-result"), "the result came with the input: no loading state");
  assert.ok(input.at - start < 1400, `the card got its input ${input.at - start} ms after sending (the tool takes 1500)`);
  await v.waitForFunction(() => window.__seen.some((m) => m.method === "ui/notifications/tool-result"), null, { timeout: 10000 });
  s = await seen(v);
  const order = s.map((m) => m.method).filter((m) => m.startsWith("ui/notifications/tool-"));
  assert.equal(order.at(-1), "ui/notifications/tool-result");
  assert.equal(order.indexOf("ui/notifications/tool-input"), order.length - 2, `phases ${order}`);
  const result = s.find((m) => m.method === "ui/notifications/tool-result");
  assert.ok(result.at - input.at >= 1000, "input and result were not apart by the tool's delay");
  // The host context the View got first.
  const init = await v.evaluate(() => window.__init.hostContext);
  assert.equal(init.platform, "web");
  assert.deepEqual(init.availableDisplayModes, ["inline", "fullscreen", "pip"]);
  assert.ok(init.locale && init.timeZone && init.containerDimensions?.maxHeight);
  assert.equal(init.styles.variables["--color-background-primary"], "#ffffff");
  await page.waitForFunction(() => !window.__playground.state.running);
  // The agent was told the server's guidance.
  const ctx = up.requests.at(-1).input.context;
  assert.ok(ctx.some((c) => c.value === INSTRUCTIONS && /recorder/.test(c.description)), JSON.stringify(ctx));
});

test("a theme switch reaches the View as host context", async () => {
  const v = await newestView();
  await page.locator("#theme").selectOption("dark");
  await v.waitForFunction(() => window.__seen.some((m) => m.method === "ui/notifications/host-context-changed" && m.params.theme === "dark"), null, { timeout: 5000 });
  const change = (await seen(v)).find((m) => m.method === "ui/notifications/host-context-changed" && m.params.theme === "dark");
  assert.equal(change.params.styles.variables["--color-background-primary"], "#161a22");
  assert.equal(await v.evaluate(() => getComputedStyle(document.body).backgroundColor), "rgb(22, 26, 34)");
  await page.screenshot({ path: join(artifacts, "playground-host-dark.png"), fullPage: true });
  await page.locator("#theme").selectOption("light");
});

test("fullscreen: the View's request is granted and undone from the page", async () => {
  const v = await newestView();
  await v.locator("#fs").click();
  await page.locator(".pair.fullscreen").waitFor({ timeout: 5000 });
  await v.waitForFunction(() => window.__mode?.mode === "fullscreen", null, { timeout: 5000 });
  assert.ok((await seen(v)).some((m) => m.method === "ui/notifications/host-context-changed" && m.params.displayMode === "fullscreen"));
  await page.screenshot({ path: join(artifacts, "playground-host-fullscreen.png") });
  await page.locator(".exit-fullscreen").click();
  await v.waitForFunction(() => window.__seen.some((m) => m.method === "ui/notifications/host-context-changed" && m.params.displayMode === "inline"), null, { timeout: 5000 });
  assert.equal(await page.locator(".pair.fullscreen").count(), 0);
});

test("model context is sent once, with the next user turn, naming the card", async () => {
  const v = await newestView();
  await v.locator("#ctx").click();
  await page.waitForFunction(() => window.__playground.modelContext && Object.keys(window.__playground.modelContext).length > 0, null, { timeout: 5000 });
  const n = up.requests.length;
  await say(page, "what does the card say?");
  const ctx = up.requests[n].input.context;
  const entry = ctx.find((c) => /MCP App card/.test(c.description));
  assert.ok(entry, JSON.stringify(ctx));
  assert.match(entry.description, /show_recorder|recorder/);
  assert.match(entry.description, /not the user/);
  assert.match(entry.value, /3 entries/);
  await say(page, "and again?");
  assert.ok(!up.requests.at(-1).input.context.some((c) => /MCP App card/.test(c.description)), "sent twice");
});

test("ui/message reaches the agent as a user turn that names the card", async () => {
  const v = await newestView();
  const n = up.requests.length;
  await v.locator("#msg").click();
  await page.waitForFunction((k) => window.__playground.runs.length > k && !window.__playground.state.running, await page.evaluate(() => window.__playground.runs.length), { timeout: 10000 });
  await page.waitForFunction(() => !window.__playground.state.running);
  const sent = up.requests.slice(n).map((r) => r.input.messages.at(-1)).find((m) => m.role === "user");
  assert.match(sent.content, /^\[Sent by the .*card \(tool call rec-/);
  assert.match(sent.content, /Please summarise the recorder\./);
  assert.match(await page.locator("#messages").innerText(), /card \(tool call rec-[^)]*\): Please summarise/);
});

test("an error result reaches the View and the model", async () => {
  const before = views();
  await say(page, "fail");
  const v = await viewAfter(before);
  await v.waitForFunction(() => document.getElementById("phase").textContent.startsWith("error:"), null, { timeout: 5000 });
  assert.match(await v.locator("#phase").innerText(), /unplugged/);
  const toolMsg = up.requests.at(-1).input.messages.findLast((m) => m.role === "tool");
  assert.match(toolMsg.content, /the recorder is unplugged/);
});

// A2UI inside an MCP tool result: the server, told the host renders
// application/a2ui+json, returns a surface; its button calls the server's
// app-only tool and the update lands in the same surface.
test("an MCP server's A2UI surface renders and its button reaches the server", async () => {
  await say(page, "counter");
  const surface = page.locator("#pairs a2ui-surface").last();
  await surface.getByText("Count: 0").waitFor({ timeout: 10000 });
  assert.match(await page.locator(".col.a2ui .meta").last().innerText(), /source: MCP server "recorder"/);
  const calls = recorder.calls.filter((c) => c.tool === "a2ui_increment").length;
  await surface.getByRole("button", { name: "Add one" }).click();
  await surface.getByText("Count: 1").waitFor({ timeout: 10000 });
  assert.equal(recorder.calls.filter((c) => c.tool === "a2ui_increment").length, calls + 1);
  assert.deepEqual(await page.evaluate(() => window.__playground.errors), []);
});

test("a message typed while a run streams is queued and then sent", async () => {
  const n = up.requests.length;
  await type("slow");
  await page.waitForFunction(() => window.__playground.state.running);
  await type("after the slow one");
  assert.match(await page.locator("#messages").innerText(), /after the slow one \(queued/);
  const lastUser = () => up.requests.slice(n).map((r) => r.input.messages.at(-1)).filter((m) => m.role === "user").map((m) => m.content);
  const end = Date.now() + 20000;
  while (!lastUser().includes("after the slow one") && Date.now() < end) await page.waitForTimeout(100);
  assert.ok(lastUser().includes("after the slow one"), JSON.stringify(lastUser()));
  await page.waitForFunction(() => !window.__playground.state.running && window.__playground.state.queue.length === 0, null, { timeout: 20000 });
  assert.doesNotMatch(await page.locator("#messages").innerText(), /\(queued/);
});

test("New thread tears the cards down first", async () => {
  const before = recorder.calls.filter((c) => c.tool === "record_teardown").length;
  const cards = views().length;
  assert.ok(cards > 0);
  await page.locator("#reset").click();
  await page.waitForFunction(() => document.querySelectorAll("#pairs iframe").length === 0, null, { timeout: 10000 });
  assert.equal(await page.locator("#messages li").count(), 0);
  const end = Date.now() + 10000;
  while (recorder.calls.filter((c) => c.tool === "record_teardown").length === before && Date.now() < end) await page.waitForTimeout(100);
  assert.ok(recorder.calls.filter((c) => c.tool === "record_teardown").length > before, "no View was sent ui/resource-teardown");
});

test("a reload restores the thread's conversation, surfaces and cards", async () => {
  await page.locator("#agent").selectOption("demo");
  await say(page, "table");
  await say(page, "app");
  const url = page.url();
  assert.match(url, /#thread=/);
  await page.reload();
  await page.waitForFunction(() => window.__playground?.ready);
  await page.locator("#pairs a2ui-surface").first().waitFor({ timeout: 10000 });
  await page.locator("#pairs iframe").first().waitFor({ timeout: 10000 });
  assert.match(await page.locator("#messages").innerText(), /table/);
  await page.frameLocator("#pairs iframe").first().frameLocator("iframe").getByText("Refund review").waitFor({ timeout: 10000 });
});

// layoutProblems lists clipped cards, overlapping A2UI text and things
// off screen at the page's current width.
async function layoutProblems(width) {
  const problems = [];
  for (const v of views()) {
    const r = await v.evaluate(() => {
      const d = document.scrollingElement || document.documentElement;
      const style = getComputedStyle(d);
      return { content: d.scrollHeight, frame: window.innerHeight, scrollable: style.overflowY !== "hidden" && getComputedStyle(document.body).overflowY !== "hidden" };
    }).catch(() => null);
    if (r && r.content > r.frame + 2 && !r.scrollable) problems.push(`a card is clipped: content ${r.content}px in a ${r.frame}px frame, no scrollbar`);
  }
  problems.push(...await page.evaluate((w) => {
    const out = [];
    const leaves = [];
    const walk = (n) => {
      if (n.nodeType === 1) {
        const kids = [...n.children];
        if (!kids.length && n.textContent.trim() && n.getClientRects().length) leaves.push(n);
        if (n.shadowRoot) walk(n.shadowRoot);
      }
      for (const c of n.children || []) walk(c);
    };
    for (const s of document.querySelectorAll("a2ui-surface")) walk(s);
    const rects = leaves.map((e) => ({ e, r: e.getBoundingClientRect() }));
    for (let i = 0; i < rects.length; i++) {
      for (let j = i + 1; j < rects.length; j++) {
        const a = rects[i].r, b = rects[j].r;
        const ox = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const oy = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (ox > 2 && oy > 2) out.push(`A2UI text overlaps: "${rects[i].e.textContent.trim().slice(0, 20)}" and "${rects[j].e.textContent.trim().slice(0, 20)}"`);
      }
    }
    const send = document.querySelector("#composer button").getBoundingClientRect();
    if (send.right > w + 1) out.push(`the Send button ends at ${send.right}px`);
    const doc = document.scrollingElement.scrollWidth;
    if (doc > w + 1) out.push(`the page is ${doc}px wide`);
    const events = document.querySelector("#log").getBoundingClientRect();
    if (events.right > w + 1) out.push(`the events column ends at ${events.right}px`);
    return out;
  }, width));
  return problems;
}

test("at 1440 and 800 px: no clipped card, no overlapping A2UI text, nothing off screen", async () => {
  await page.locator("#side").check();
  await say(page, "chart");
  await say(page, "record");
  await page.locator("#side").uncheck();
  for (const width of [1440, 800]) {
    await page.setViewportSize({ width, height: 1000 });
    await page.waitForTimeout(700); // size-changed and re-layout
    await page.screenshot({ path: join(artifacts, `playground-${width}.png`), fullPage: true });
    assert.deepEqual(await layoutProblems(width), [], `at ${width}px`);
  }
  assert.deepEqual(pageErrors, []);
  const rendererErrors = await page.evaluate(() => window.__playground.errors);
  assert.deepEqual(rendererErrors, []);
});

// The same duties with the unmodified official basic-vanillajs App (its
// ext-apps App logs what it is sent): the input before the result, the
// theme and the spec's variables applied from host-context-changed, and
// the teardown handler run before New thread removes the card.
test("the official basic-vanillajs App gets its input, result, theme and teardown", async () => {
  const p = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  const logs = [];
  p.on("console", (m) => logs.push(m.text()));
  try {
    await p.goto(adapter.url + "/#agent=basic");
    await p.waitForFunction(() => window.__playground?.ready);
    await p.locator("#input").fill("time");
    await p.locator("#input").press("Enter");
    const inner = p.frameLocator("#pairs iframe").first().frameLocator("iframe");
    await inner.getByText("Server Time", { exact: false }).first().waitFor({ timeout: 15000 });
    const end = Date.now() + 10000;
    while (!logs.some((l) => l.includes("Received tool call result")) && Date.now() < end) await p.waitForTimeout(100);
    const input = logs.findIndex((l) => l.includes("Received tool call input"));
    const result = logs.findIndex((l) => l.includes("Received tool call result"));
    assert.ok(input >= 0 && result > input, `input at ${input}, result at ${result}: ${logs.join(" | ")}`);
    const view = p.frames().find((f) => f.parentFrame() && f.parentFrame().parentFrame() === p.mainFrame());
    await p.locator("#theme").selectOption("dark");
    await view.waitForFunction(() => getComputedStyle(document.documentElement).getPropertyValue("--color-background-primary").trim() === "#161a22", null, { timeout: 5000 });
    assert.match(await view.evaluate(() => `${document.documentElement.dataset.theme || ""} ${document.documentElement.style.colorScheme || ""}`), /dark/);
    await p.locator("#theme").selectOption("light");
    await p.locator("#reset").click();
    const end2 = Date.now() + 5000;
    while (!logs.some((l) => l.includes("App is being torn down")) && Date.now() < end2) await p.waitForTimeout(100);
    assert.ok(logs.some((l) => l.includes("App is being torn down")), "the App's teardown handler did not run");
  } finally {
    await p.close();
  }
});

// A model authoring its own surface (the built-in a2ui server's
// render_a2ui): the official renderer shows it growing while the
// arguments stream, then the whole surface.
test("an authored surface grows in the renderer while its arguments stream", async () => {
  const args = JSON.stringify({ surfaceId: "order", components: [
    { id: "root", component: "Card", child: "col" },
    { id: "col", component: "Column", children: ["title", "customer", "total", "status"] },
    { id: "title", component: "Text", text: "Order A-1", variant: "h3" },
    { id: "customer", component: "Text", text: "Customer: Ada Lovelace" },
    { id: "total", component: "Text", text: { path: "/total" } },
    { id: "status", component: "Text", text: "Status: shipped" },
  ], data: { total: "Total: 12.50 EUR" } });
  const slow = await startUpstream({
    "/agent": (i) => (async function* () {
      const head = [{ type: "RUN_STARTED", threadId: i.threadId, runId: i.runId }];
      if (i.messages.at(-1)?.role === "tool") {
        yield sse([...head, ...text(i, "There it is."), { type: "RUN_FINISHED", threadId: i.threadId, runId: i.runId }]);
        return;
      }
      yield sse([...head, { type: "TOOL_CALL_START", toolCallId: "render-1", toolCallName: "render_a2ui" }]);
      for (let k = 0; k < args.length; k += 24) {
        yield sse([{ type: "TOOL_CALL_ARGS", toolCallId: "render-1", delta: args.slice(k, k + 24) }]);
        await new Promise((r) => setTimeout(r, 60));
      }
      yield sse([{ type: "TOOL_CALL_END", toolCallId: "render-1" }, { type: "RUN_FINISHED", threadId: i.threadId, runId: i.runId }]);
    })(),
  });
  const a = await startAdapter(`agents:\n  author: {type: agui, url: "${slow.url}/agent", mcpServers: [a2ui]}\n`);
  const p = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  try {
    await p.goto(a.url + "/#agent=author");
    await p.waitForFunction(() => window.__playground?.ready);
    await p.locator("#input").fill("show me the order");
    await p.locator("#input").press("Enter");
    // Sample the rendered texts while the run streams.
    const counts = [];
    const deep = () => p.evaluate(() => {
      const out = [];
      const walk = (n) => { if (n.nodeType === 3 && n.textContent.trim()) out.push(n.textContent.trim()); if (n.shadowRoot) walk(n.shadowRoot); for (const c of n.childNodes) walk(c); };
      for (const s of document.querySelectorAll("a2ui-surface")) walk(s);
      return out;
    });
    while (await p.evaluate(() => window.__playground.state.running || window.__playground.runs.length === 0)) {
      counts.push((await deep()).filter((t) => t !== "…").length);
      await p.waitForTimeout(80);
    }
    const final = await deep();
    assert.ok(final.includes("Order A-1") && final.includes("Total: 12.50 EUR") && final.includes("Status: shipped"), JSON.stringify(final));
    const distinct = [...new Set(counts.filter((c) => c > 0))];
    assert.ok(distinct.length >= 3, `the surface did not grow while streaming: ${counts}`);
    assert.deepEqual(await p.evaluate(() => window.__playground.errors), []);
    assert.match(await p.locator(".col.a2ui .meta").last().innerText(), /source: authored by the model/);
    await p.screenshot({ path: join(artifacts, "playground-authored-surface.png") });
  } finally {
    await p.close();
    await a.stop();
    await slow.close();
  }
});
