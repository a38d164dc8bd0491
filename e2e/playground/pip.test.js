// The playground with an MCP Apps card in the pip display mode, in
// headless Chromium at 1440, 800 and 390 px, light and dark: screenshots
// in e2e/artifacts (playground-pip-<width>-<theme>.png) and the boxes
// measured: no horizontal scroll, the card's frame as tall as the View's
// content, the floating card inside the window and nothing of it beyond
// its box; back inline, the card is in the page's flow again.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { startAdapter } from "../lib/adapter.js";
import { startUpstream } from "../lib/upstream.js";
import { launch, artifacts } from "../lib/browser.js";
import { startV2App } from "../lib/v2app.js";
import { sse } from "../agui/scenarios.js";

let adapter, up, v2, browser;

before(async () => {
  v2 = await startV2App();
  up = await startUpstream({
    "/agent": (i) => {
      const frame = (evs) => sse([{ type: "RUN_STARTED", threadId: i.threadId, runId: i.runId }, ...evs, { type: "RUN_FINISHED", threadId: i.threadId, runId: i.runId }]);
      if (i.messages.at(-1)?.role === "tool") {
        return frame([
          { type: "TEXT_MESSAGE_START", messageId: "m-" + i.runId, role: "assistant" },
          { type: "TEXT_MESSAGE_CONTENT", messageId: "m-" + i.runId, delta: "The card floats at the bottom right; ask it back inline any time." },
          { type: "TEXT_MESSAGE_END", messageId: "m-" + i.runId },
        ]);
      }
      const id = "v2-" + i.runId.slice(0, 8);
      return frame([
        { type: "TOOL_CALL_START", toolCallId: id, toolCallName: "show_v2" },
        { type: "TOOL_CALL_ARGS", toolCallId: id, delta: "{}" },
        { type: "TOOL_CALL_END", toolCallId: id },
      ]);
    },
  });
  adapter = await startAdapter(`
mcpServers:
  v2: {url: "${v2.url}"}
agents:
  apps: {type: agui, url: "${up.url}/agent", mcpServers: [v2], a2ui: {disabled: true}}
`);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await adapter?.stop();
  await up?.close();
  await v2?.close();
});

async function viewOf(page) {
  const end = Date.now() + 15000;
  for (;;) {
    const v = page.frames().find((f) => f.parentFrame() && f.parentFrame().parentFrame() === page.mainFrame());
    if (v && await v.evaluate(() => !!window.__state?.connected && !!window.__state?.result).catch(() => false)) return v;
    if (Date.now() > end) throw new Error("no View");
    await page.waitForTimeout(100);
  }
}

// boxes measures the page and the card; problems lists what is wrong.
async function boxes(page, view) {
  const doc = await view.evaluate(() => ({ h: document.documentElement.scrollHeight, w: document.documentElement.scrollWidth }));
  const m = await page.evaluate(() => {
    const card = document.querySelector(".genui-mcp-card");
    const frame = card.querySelector("iframe");
    const r = (el) => { const b = el.getBoundingClientRect(); return { x: b.x, y: b.y, w: b.width, h: b.height, right: b.right, bottom: b.bottom }; };
    return {
      vw: window.innerWidth, vh: window.innerHeight, sw: document.documentElement.scrollWidth,
      card: r(card), frame: r(frame), pip: card.classList.contains("genui-mcp-card-pip"), position: getComputedStyle(card).position,
      cardScroll: { sh: card.scrollHeight, ch: card.clientHeight, sw: card.scrollWidth, cw: card.clientWidth },
    };
  });
  const problems = [];
  if (m.sw > m.vw) problems.push(`horizontal scroll: the page is ${m.sw} px wide in a ${m.vw} px window`);
  if (m.frame.h + 1 < doc.h) problems.push(`the frame is ${m.frame.h} px tall, the View's content ${doc.h} px`);
  if (doc.w > m.frame.w + 1) problems.push(`the View's content is ${doc.w} px wide in a ${m.frame.w} px frame`);
  if (m.frame.x + 0.5 < m.card.x || m.frame.right > m.card.right + 0.5) problems.push(`the frame (${m.frame.x}..${m.frame.right}) is beyond its card (${m.card.x}..${m.card.right})`);
  if (m.pip) {
    if (m.card.x < 0 || m.card.y < 0 || m.card.right > m.vw || m.card.bottom > m.vh) problems.push(`the pip card ${JSON.stringify(m.card)} is outside the ${m.vw}x${m.vh} window`);
    if (m.cardScroll.sw > m.cardScroll.cw + 1) problems.push(`the pip card scrolls sideways (${m.cardScroll.sw} in ${m.cardScroll.cw})`);
  }
  return { m, doc, problems };
}

for (const theme of ["light", "dark"]) {
  test(`pip at 1440, 800 and 390 px, ${theme}: no horizontal scroll, the frame as tall as its content, the card inside the window`, async () => {
    for (const width of [1440, 800, 390]) {
      const page = await browser.newPage({ viewport: { width, height: width < 500 ? 800 : 900 } });
      const errors = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      await page.goto(adapter.url + "/#agent=apps");
      await page.waitForFunction(() => window.__playground?.ready);
      await page.locator("#theme").selectOption(theme);
      await page.locator("#input").fill("show the v2 card");
      await page.locator("#input").press("Enter");
      const view = await viewOf(page);
      await page.waitForFunction(() => !window.__playground.state.running, null, { timeout: 20000 });
      assert.deepEqual(await view.evaluate(() => window.__app.requestDisplayMode({ mode: "pip" })), { mode: "pip" });
      await page.waitForFunction(() => document.querySelector(".genui-mcp-card")?.classList.contains("genui-mcp-card-pip"));
      await view.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      await page.screenshot({ path: join(artifacts, `playground-pip-${width}-${theme}.png`) });
      const pip = await boxes(page, view);
      assert.equal(pip.m.position, "fixed");
      assert.deepEqual(pip.problems, [], `${width} px ${theme}, pip: ${pip.problems.join("; ")}`);
      assert.equal(await view.evaluate(() => window.__app.getHostContext().displayMode), "pip");
      // Back inline: in the page's flow, the same measures hold.
      assert.deepEqual(await view.evaluate(() => window.__app.requestDisplayMode({ mode: "inline" })), { mode: "inline" });
      const inline = await boxes(page, view);
      assert.equal(inline.m.position, "static");
      assert.deepEqual(inline.problems, [], `${width} px ${theme}, inline: ${inline.problems.join("; ")}`);
      assert.deepEqual(errors, []);
      await page.close();
    }
  });
}
