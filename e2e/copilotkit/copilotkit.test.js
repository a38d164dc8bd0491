// A real CopilotKit v2 React page (@copilotkit/react-core 1.74.0, built
// with Vite) in headless Chromium, with runtimeUrl pointed at the adapter:
// no Node CopilotRuntime anywhere. Chat text streams in, an A2UI surface
// renders and its button reaches the agent, an MCP App card renders with
// its HTML fetched through a proxied run, reopening the thread restores
// the history and the surface, Stop ends the stream and the agent run,
// and the same in single-route mode. Screenshots go to e2e/artifacts/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { startAdapter } from "../lib/adapter.js";
import { launch, artifacts } from "../lib/browser.js";
import { startLangGraph } from "../lib/langgraph.js";
import { startPythonLangGraph } from "../lib/langgraph-python.js";
import { startA2A } from "../lib/a2a.js";
import { serveDist } from "./dist.js";

let adapter, web, browser, lg, pylg, a2a;

before(async () => {
  web = await serveDist();
  [lg, pylg] = await Promise.all([startLangGraph(), startPythonLangGraph()]);
  a2a = await startA2A("1.0");
  adapter = await startAdapter(`cors: {origins: ["${web.url}"]}
agents:
  default: {type: demo, delay: 5ms, mcpServers: [refunds], description: "demo"}
  slow: {type: demo, delay: 300ms, description: "slow demo"}
  toolkit: {type: demo, delay: 5ms, mcpServers: [genui], description: "the genui toolkit as A2UI"}
  toolkitcards: {type: demo, delay: 5ms, mcpServers: [genui], render: [mcp-apps], description: "the genui toolkit as MCP Apps cards"}
  lg: {type: langgraph, url: "${lg.url}", graph: tools, description: "LangGraph"}
  approve: {type: langgraph, url: "${lg.url}", graph: approve, description: "LangGraph approval"}
  pytools: {type: langgraph, url: "${pylg.url}", graph: tools, description: "LangGraph (Python)"}
  pyapprove: {type: langgraph, url: "${pylg.url}", graph: approve, description: "LangGraph approval (Python)"}
  a2a: {type: a2a, url: "${a2a.url}", description: "an A2A agent (protocol 1.0) sending A2UI"}
`);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await adapter?.stop();
  await web?.close();
  lg?.stop();
  pylg?.stop();
  await a2a?.close();
});

async function open({ thread = randomUUID(), single = false, agent = "default" } = {}) {
  const page = await browser.newPage({ viewport: { width: 1100, height: 1000 } });
  const traffic = [];
  page.on("request", (r) => { if (r.url().startsWith(adapter.url)) traffic.push({ url: r.url(), body: r.postData(), req: r }); });
  const consoleLines = [];
  page.on("console", (m) => consoleLines.push(m.text()));
  page.consoleLines = consoleLines;
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  const url = `${web.url}/?runtime=${encodeURIComponent(adapter.url + "/api/copilotkit")}&thread=${thread}&agent=${agent}${single ? "&single=1" : ""}`;
  await page.goto(url);
  await page.locator("textarea").first().waitFor({ timeout: 20000 });
  // The textarea shows before CopilotKit has loaded /info and connected
  // the thread; a message typed earlier can be lost (seen once in CI in
  // single-route mode). Start when the page's start-up requests are done.
  await page.waitForLoadState("networkidle", { timeout: 20000 });
  return { page, thread, traffic, errors };
}

// inFrames does act to the first enabled element matching selector in
// any frame, trying again until act succeeds or timeout passes.
async function inFrames(page, selector, act, timeout = 20000) {
  const end = Date.now() + timeout;
  while (Date.now() < end) {
    for (const f of page.frames()) {
      try {
        const el = f.locator(selector);
        if ((await el.count()) > 0 && (await el.first().isEnabled())) {
          await act(el.first());
          return true;
        }
      } catch {}
    }
    await page.waitForTimeout(200);
  }
  return false;
}

// clickInFrames clicks the first element matching selector in any frame.
const clickInFrames = (page, selector) => inFrames(page, selector, (el) => el.click({ timeout: 2000 }));

// checkInFrames checks the first radio or checkbox matching selector in
// any frame; Playwright's check() fails (and is tried again) unless the
// box ends up checked.
const checkInFrames = (page, selector) => inFrames(page, selector, (el) => el.check({ timeout: 2000 }));

// toolCalls counts the tools/call requests the cards' bridges received
// (the bridge logs each message it parses).
const toolCalls = (page) => page.consoleLines.filter((l) => l.includes("method: tools/call")).length;

// clickUntilCalled clicks a card's button until the card sends a
// tools/call: a click while CopilotKit scrolls the chat can land beside
// the moving iframe and reach nothing, so it is repeated, at most five
// times, only while no request has left the card.
async function clickUntilCalled(page, selector) {
  const before = toolCalls(page);
  let clicks = 0;
  for (; clicks < 5 && toolCalls(page) === before; clicks++) {
    assert.ok(await clickInFrames(page, selector), `no ${selector} in a card`);
    for (let j = 0; j < 20 && toolCalls(page) === before; j++) await page.waitForTimeout(100);
  }
  if (clicks > 1) console.log(`# ${selector} took ${clicks} clicks`);
  assert.ok(toolCalls(page) > before, `clicking ${selector} sent no tools/call`);
}

async function say(page, text) {
  const box = page.locator("textarea").first();
  await box.fill(text);
  await box.press("Enter");
}

// anyFrameText waits until some frame of the page shows text.
async function anyFrameText(page, text, timeout = 20000) {
  const end = Date.now() + timeout;
  while (Date.now() < end) {
    for (const f of page.frames()) {
      try {
        if ((await f.locator("body").innerText({ timeout: 500 })).includes(text)) return true;
      } catch {}
    }
    await page.waitForTimeout(200);
  }
  return false;
}

for (const single of [false, true]) {
  const tag = single ? "single-route" : "multi-route";
  test(`${tag}: text, an A2UI surface and its action, an MCP App card, and the restored thread`, async () => {
    const { page, thread, traffic, errors } = await open({ single });
    await say(page, "hello");
    await page.getByText("I am the genui-adapter demo agent", { exact: false }).first().waitFor({ timeout: 20000 });
    await page.getByText("List shipments", { exact: false }).first().waitFor({ timeout: 20000 });

    await say(page, "table");
    await page.getByText("There are 3 shipments", { exact: false }).nth(1).waitFor({ timeout: 20000 });
    await page.getByRole("button", { name: "Select" }).first().click();
    await page.getByText("Thanks! I received your action", { exact: false }).first().waitFor({ timeout: 20000 });
    const action = traffic.find((t) => t.body && t.body.includes("a2uiAction"));
    assert.ok(action, "no run carried forwardedProps.a2uiAction");
    assert.match(action.body, /select_row/);

    await say(page, "app");
    assert.ok(await anyFrameText(page, "Refund review"), "the MCP App card did not render");
    assert.ok(await anyFrameText(page, "Ada Lovelace"), "the card did not get its tool result");
    assert.ok(traffic.some((t) => t.body && t.body.includes("__proxiedMCPRequest") && t.body.includes("resources/read")), "no proxied resources/read");
    // The stock renderer echoes the card's serverHash (its capability):
    // the card's app-only tool works with no frontend change.
    assert.ok(traffic.some((t) => t.body && t.body.includes("__proxiedMCPRequest") && t.body.includes("gcap1.")), "the proxied requests did not carry the card's capability");
    if (!single) {
      // Click once the run's text below the card has streamed in, when
      // the chat has stopped scrolling (see clickUntilCalled).
      await page.getByText("The refund review card is above", { exact: false }).first().waitFor({ timeout: 20000 });
      await clickUntilCalled(page, "#approve");
      const approved = await anyFrameText(page, "approved by anonymous");
      if (!approved) {
        const frames = [];
        for (const f of page.frames()) frames.push(await f.locator("body").innerText({ timeout: 500 }).catch((e) => String(e)));
        const calls = traffic.filter((t) => t.body && t.body.includes("decide_refund")).map((t) => t.body);
        const reqs = [];
        for (const t of traffic) reqs.push(`${t.url} ${(t.body || "").slice(0, 160)} -> ${(await Promise.race([t.req.response().catch(() => null), new Promise((r) => setTimeout(r, 1000, null))]))?.status()} timing=${JSON.stringify(t.req.timing())} failure=${t.req.failure()?.errorText}`);
        assert.fail(`the card's decide_refund did not go through; frames: ${JSON.stringify(frames)}; decide_refund requests: ${JSON.stringify(calls)}\nrequests:\n${reqs.join("\n")}\nconsole:\n${page.consoleLines.join("\n")}`);
      }
    }
    await page.screenshot({ path: join(artifacts, `copilotkit-${tag}.png`), fullPage: true });
    if (!single) {
      assert.ok(traffic.some((t) => t.url.endsWith("/api/copilotkit/info")), "GET /info not used");
    } else {
      assert.ok(traffic.every((t) => !t.url.includes("/agent/")), "single-route mode used a multi-route path");
    }
    await page.close();

    // Reopen the thread: /connect restores the history and the surface.
    const again = await open({ thread, single });
    await again.page.getByText("Here are this week's shipments", { exact: false }).first().waitFor({ timeout: 20000 });
    await again.page.getByText("List shipments", { exact: false }).first().waitFor({ timeout: 20000 });
    await again.page.screenshot({ path: join(artifacts, `copilotkit-${tag}-restored.png`), fullPage: true });
    assert.ok(again.traffic.some((t) => (t.url.endsWith("/connect")) || (t.body && t.body.includes('"agent/connect"'))), "no connect request");
    assert.deepEqual(errors.concat(again.errors), []);
    await again.page.close();
  });

  test(`${tag}: Stop ends the stream and the agent run`, async () => {
    const { page, traffic } = await open({ single, agent: "slow" });
    await say(page, "hello");
    await page.getByText("Hi!", { exact: false }).first().waitFor({ timeout: 20000 });
    // While a run streams, CopilotKit's send button is the Stop button.
    await page.getByTestId("copilot-send-button").click({ timeout: 10000 });
    const runReq = traffic.find((t) => t.body && (t.url.endsWith("/run") || t.body.includes('"agent/run"')));
    const runId = JSON.parse(runReq.body).runId ?? JSON.parse(runReq.body).body.runId;
    // The run's log ends with the stop.
    let last = "";
    for (let i = 0; i < 50 && !last.includes("RUN_ERROR"); i++) {
      await page.waitForTimeout(200);
      const res = await fetch(`${adapter.url}/runs/${runId}/events`);
      const text = await res.text();
      last = text.trim().split("\n\n").at(-1);
    }
    assert.match(last, /"message":"Run stopped by user"/);
    assert.match(last, /"code":"abort"/);
    const before = await page.locator("body").innerText();
    await page.waitForTimeout(1200);
    assert.equal(await page.locator("body").innerText(), before, "text kept streaming after Stop");
    assert.ok(traffic.some((t) => t.url.includes("/stop/") || (t.body && t.body.includes('"agent/stop"'))), "no stop request");
    await page.screenshot({ path: join(artifacts, `copilotkit-${tag}-stopped.png`), fullPage: true });
    await page.close();
  });
}

// The same page against a LangGraph Agent Server behind the adapter: the
// graph's tool calls, their JSON results rendered as an A2UI surface, and
// its answer, with no CopilotRuntime or @ag-ui/langgraph in between.
test("a LangGraph agent: tool results as an A2UI surface and the answer", async () => {
  const { page, errors } = await open({ agent: "lg" });
  await say(page, "open orders?");
  await page.getByText("Two open orders, 59.5 in total.", { exact: false }).first().waitFor({ timeout: 30000 });
  await page.getByText("Grace", { exact: false }).first().waitFor({ timeout: 20000 });
  await page.screenshot({ path: join(artifacts, "copilotkit-langgraph.png"), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

// An interrupt answered in the page resumes the graph: CopilotKit's
// useInterrupt shows the question; its resolve() sends
// forwardedProps.command.resume with the interrupted run's own id.
test("a LangGraph interrupt answered in the page resumes the graph", async () => {
  const { page, errors } = await open({ agent: "approve" });
  await say(page, "refund A-1 please");
  await page.getByText("Refund order A-1?", { exact: false }).first().waitFor({ timeout: 30000 });
  await page.getByRole("button", { name: "Approve refund" }).click();
  await page.getByText('Decision: {"approved":true}', { exact: false }).first().waitFor({ timeout: 30000 });
  await page.screenshot({ path: join(artifacts, "copilotkit-langgraph-interrupt.png"), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

// The same two through the Python LangGraph Agent Server (`langgraph dev`,
// e2e/langgraph-python): a ToolNode's JSON result as an A2UI surface and
// the answer; interrupt() answered in the page.
test("a Python LangGraph agent: its tool's result as an A2UI surface and the answer", async () => {
  const { page, errors } = await open({ agent: "pytools" });
  await say(page, "What is the weather in Rome?");
  await page.getByText("The tool said:", { exact: false }).first().waitFor({ timeout: 30000 });
  await page.getByText("Get weather", { exact: true }).first().waitFor({ timeout: 20000 }); // the A2UI card's title
  await page.screenshot({ path: join(artifacts, "copilotkit-langgraph-python.png"), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test("a Python LangGraph interrupt() answered in the page resumes the graph", async () => {
  const { page, errors } = await open({ agent: "pyapprove" });
  await say(page, "refund A-1 please");
  await page.getByText("Refund order A-1?", { exact: false }).first().waitFor({ timeout: 30000 });
  await page.getByRole("button", { name: "Approve refund" }).click();
  await page.getByText('Decision: {"approved":true}', { exact: false }).first().waitFor({ timeout: 30000 });
  await page.screenshot({ path: join(artifacts, "copilotkit-langgraph-python-interrupt.png"), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

// The generative UI toolkit through the stock page: as A2UI surfaces
// (CopilotKit's A2UI renderer, in its own catalog) and as MCP Apps cards
// (its MCP Apps renderer), and ask_user answered in the page. CopilotKit
// sends a card's requests and a surface's actions only once the run has
// ended, so the run ends with the question shown and the answer reaches
// the agent in the next run (as the user's message).
test("the toolkit as A2UI surfaces: charts as tables, tiles, a table, and ask_user answered in the next run", async () => {
  const { page, errors } = await open({ agent: "toolkit" });
  await say(page, "dashboard");
  await page.getByText("A bar chart, shown as a table", { exact: false }).first().waitFor({ timeout: 20000 });
  await page.getByText("82%, on a scale of 0 to 100", { exact: false }).first().waitFor({ timeout: 20000 });
  await page.getByText("Done: it is shown above", { exact: false }).first().waitFor({ timeout: 20000 });
  await say(page, "kpis");
  await page.getByText("(better)", { exact: false }).first().waitFor({ timeout: 20000 });
  await say(page, "orders");
  await page.getByText("EUR 1,890.50", { exact: false }).first().waitFor({ timeout: 20000 });
  await say(page, "ask");
  await page.getByText("Which plan should I prepare?", { exact: false }).first().waitFor({ timeout: 20000 });
  await page.getByText("Pro", { exact: true }).first().click();
  await page.getByRole("button", { name: "Send" }).first().click();
  await page.getByText("Answered: Pro", { exact: false }).first().waitFor({ timeout: 20000 });
  await page.getByText('you answered "Pro"', { exact: false }).first().waitFor({ timeout: 20000 });
  await page.screenshot({ path: join(artifacts, "copilotkit-toolkit-a2ui.png"), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test("the toolkit as MCP Apps cards: SVG charts, and ask_user answered in its card, in the next run", async () => {
  const { page, errors } = await open({ agent: "toolkitcards" });
  await say(page, "dashboard");
  let found = false;
  for (let i = 0; i < 100 && !found; i++) {
    for (const f of page.frames()) {
      try { if ((await f.locator("svg[data-chart=gauge]").count()) > 0) found = true; } catch {}
    }
    if (!found) await page.waitForTimeout(200);
  }
  assert.ok(found, "no chart card");
  await say(page, "html");
  assert.ok(await anyFrameText(page, "No scripts, no network."), "no HTML card");
  await say(page, "url");
  assert.ok(await anyFrameText(page, "is not on this deployment's allowlist"), "render_url off the allowlist was not refused in its card");
  await say(page, "ask");
  assert.ok(await anyFrameText(page, "Which plan should I prepare?"), "no question card");
  assert.ok(await checkInFrames(page, "input[value=Enterprise]"), "no Enterprise choice");
  await clickUntilCalled(page, "form.ask button[type=submit]");
  assert.ok(await anyFrameText(page, "Sent: Enterprise"), "the card's answer was refused");
  await page.getByText('you answered "Enterprise"', { exact: false }).first().waitFor({ timeout: 20000 });
  await page.screenshot({ path: join(artifacts, "copilotkit-toolkit-cards.png"), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

// An A2A agent (a real @a2a-js/sdk 1.x server) sending A2UI DataParts,
// through the stock page: its text and surface render, and the surface's
// button goes back to the agent as an A2A action DataPart, whose update is
// appended to the surface.
test("an A2A agent: its A2UI surface renders and its action reaches the agent", async () => {
  const { page, errors } = await open({ agent: "a2a" });
  await say(page, "orders");
  await page.getByText("Here are your orders.", { exact: false }).first().waitFor({ timeout: 20000 });
  await page.getByText("2 open orders", { exact: false }).first().waitFor({ timeout: 20000 });
  await page.getByRole("button", { name: "Pick A-1" }).first().click();
  await page.getByText("You picked A-1 on orders.", { exact: false }).first().waitFor({ timeout: 20000 });
  await page.getByText("Picked A-1", { exact: true }).first().waitFor({ timeout: 20000 });
  const sent = a2a.received.filter((x) => x.message).at(-1).message;
  assert.match(JSON.stringify(sent.parts), /"action"/);
  await page.screenshot({ path: join(artifacts, "copilotkit-a2a.png"), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});
