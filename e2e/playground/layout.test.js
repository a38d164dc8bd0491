// The playground's layout at 1440, 1280, 800 and 390 px, light and dark,
// measured in headless Chromium against the built-in demo agent: no
// horizontal page scroll, no element past its card's box (wide content
// scrolls inside the card), every MCP Apps frame at least as tall as its
// document (up to the cap, then it scrolls), A2UI left of MCP Apps in
// side-by-side, and cards that follow the dark theme.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { startAdapter } from "../lib/adapter.js";
import { launch, artifacts } from "../lib/browser.js";
import { say } from "../lib/playground.js";

const widths = [1440, 1280, 800, 390];
// A long agent description (the built-in default's is long too): the
// agent select must not widen the page.
const config = `
agents:
  demo: {type: demo, delay: 1ms, mcpServers: [refunds, genui], description: "Built-in scripted demo agent (no LLM): say table, record, metrics, chart, form, app or error, or anything else"}
`;
// The keywords with the most to lay out; "side:" ones in side-by-side.
const keywords = ["table", "record", "app", "side:table", "side:record", "side:dashboard", "side:chart"];
const maxFrame = 2400; // the playground's maxHeight for MCP Apps frames

let adapter, browser;
before(async () => {
  adapter = await startAdapter(config);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await adapter?.stop();
});

// views returns, per MCP Apps frame on the page, the outer frame's box and
// its View's document size (the View is the sandbox proxy's child frame).
async function views(page) {
  const out = [];
  for (const h of await page.locator(".pair:not([hidden]) .col.mcp iframe").elementHandles()) {
    const proxy = await h.contentFrame();
    const view = proxy?.childFrames()[0];
    assert.ok(view, "an MCP Apps frame without its View");
    await view.waitForFunction(() => document.readyState === "complete");
    const box = await h.evaluate((f) => ({ height: f.getBoundingClientRect().height, width: f.clientWidth }));
    const doc = await view.evaluate(() => ({
      scrollHeight: document.documentElement.scrollHeight,
      contentHeight: Math.ceil(document.body.getBoundingClientRect().bottom + scrollY + parseFloat(getComputedStyle(document.body).marginBottom)),
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
      background: getComputedStyle(document.body).backgroundColor,
      theme: document.documentElement.dataset.theme || "",
    }));
    out.push({ box, doc });
  }
  return out;
}

// overflows lists the elements (shadow DOM included) drawn past their
// result column: an element is fine when an ancestor inside the column
// clips it (a scrolling table box), or when it lies within the column.
function overflows(page) {
  return page.evaluate(() => {
    const bad = [];
    const parent = (el) => el.assignedSlot || el.parentElement || el.getRootNode().host || null;
    const clips = (el) => ["auto", "scroll", "hidden", "clip"].includes(getComputedStyle(el).overflowX);
    for (const col of document.querySelectorAll(".pair:not([hidden]) .col")) {
      const box = col.getBoundingClientRect();
      const walk = (n) => {
        for (const el of [...(n.shadowRoot ? n.shadowRoot.children : []), ...n.children]) {
          const r = el.getBoundingClientRect();
          let clipped = false;
          for (let a = parent(el); a && a !== col; a = parent(a)) if (clips(a)) { clipped = true; break; }
          if (!clipped && r.width > 0 && (r.right > box.right + 1 || r.left < box.left - 1)) {
            bad.push(`${col.className} > ${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}.${el.className || ""} [${Math.round(r.left)}..${Math.round(r.right)}] past [${Math.round(box.left)}..${Math.round(box.right)}] "${(el.textContent || "").trim().slice(0, 30)}"`);
          }
          walk(el);
        }
      };
      walk(col);
    }
    return bad;
  });
}

// dark says whether a computed background colour is dark (a transparent
// one shows the frame's white).
const dark = (rgb) => {
  const [r, g, b, a] = (rgb.match(/[\d.]+/g) || []).map(Number);
  if (a === 0) return false;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b < 80;
};

for (const theme of ["light", "dark"]) {
  test(`layout at ${widths.join(", ")} px, ${theme}`, async () => {
    const page = await browser.newPage({ viewport: { width: widths[0], height: 900 } });
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(adapter.url + "/");
    await page.waitForFunction(() => window.__playground?.ready);
    await page.selectOption("#theme", theme);
    const problems = [];
    for (const k of keywords) {
      const side = k.startsWith("side:");
      await page.setViewportSize({ width: widths[0], height: 900 });
      await page.locator("#reset").click();
      await page.setChecked("#side", side);
      await say(page, side ? k.slice(5) : k);
      for (const w of widths) {
        await page.setViewportSize({ width: w, height: 900 });
        await page.waitForTimeout(700); // the Views report their new size
        const where = `${k} at ${w} px (${theme})`;
        const m = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth }));
        if (m.scrollWidth > m.innerWidth) problems.push(`${where}: the page scrolls sideways (${m.scrollWidth} > ${m.innerWidth})`);
        for (const o of await overflows(page)) problems.push(`${where}: ${o}`);
        for (const v of await views(page)) {
          if (v.box.height + 1 < Math.min(v.doc.scrollHeight, maxFrame)) problems.push(`${where}: an MCP Apps frame is ${v.box.height} px tall, its document ${v.doc.scrollHeight} px`);
          if (v.box.height > v.doc.contentHeight + 24) problems.push(`${where}: an MCP Apps frame is ${v.box.height} px tall for ${v.doc.contentHeight} px of content`);
          if (v.doc.scrollWidth > v.doc.clientWidth + 1) problems.push(`${where}: an MCP Apps View is ${v.doc.scrollWidth} px wide in a ${v.doc.clientWidth} px frame`);
          if (dark(v.doc.background) !== (theme === "dark")) problems.push(`${where}: an MCP Apps View's background is ${v.doc.background} in the ${theme} theme`);
        }
        if (side) {
          const order = await page.evaluate(() => {
            const p = document.querySelector(".pair:not([hidden]) .cols.both");
            if (!p) return null;
            const a = p.querySelector(".col.a2ui").getBoundingClientRect();
            const c = p.querySelector(".col.mcp").getBoundingClientRect();
            return { a2uiFirst: a.left < c.left || (a.left === c.left && a.top < c.top) };
          });
          if (!order) problems.push(`${where}: no side-by-side pair`);
          else if (!order.a2uiFirst) problems.push(`${where}: MCP Apps before A2UI`);
        }
        if ([1440, 800, 390].includes(w)) await page.screenshot({ path: join(artifacts, `playground-layout-${w}-${theme}-${k.replace(":", "-")}.png`), fullPage: true });
      }
    }
    assert.deepEqual(errors, []);
    assert.deepEqual(problems, []);
    await page.close();
  });
}
