// A2UI v0.8 from an agent (the official v0.8 examples, as a tool result and
// as the agent's own activity), and an official v1.0 example, reach the
// client converted to v0.9.1 and are rendered by the official @a2ui/lit
// 0.11.0 v0_9 renderer in headless Chromium: zero renderer errors and the
// example's data visible.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { startAdapter } from "../lib/adapter.js";
import { startUpstream } from "../lib/upstream.js";
import { runClient } from "../lib/clients.js";
import { launch, bundle, serveFiles, e2eDir, artifacts } from "../lib/browser.js";
import { sse } from "../agui/scenarios.js";

const example = (name) => JSON.parse(readFileSync(join(e2eDir, "..", "schemas", "testdata", "v0_8", name), "utf8"));
const cases = {
  coffee: { ops: example("basic/13_coffee-order.json"), as: "tool", expect: ["Sunrise Coffee", "Oat Milk Latte", "Grande, Extra Shot", "Chocolate Croissant", "$11.66"] },
  login: { ops: example("minimal/4_login_form.json"), as: "activity", expect: ["Login", "Username", "Password"] },
  flight: { ops: example("basic/01_flight-status.json"), as: "activity", expect: [] },
  v10coffee: {
    version: "v1.0",
    ops: JSON.parse(readFileSync(join(e2eDir, "..", "schemas", "testdata", "v1_0", "13_coffee-order.json"), "utf8")).messages,
    as: "activity",
    expect: ["Sunrise Coffee", "Oat Milk Latte", "Grande, Extra Shot", "Chocolate Croissant", "$11.66", "Purchase"],
  },
};

let up, adapter, browser, files;

before(async () => {
  const routes = {};
  for (const [name, c] of Object.entries(cases)) {
    routes[`/${name}`] = (i) => {
      const evs = [{ type: "RUN_STARTED", threadId: i.threadId, runId: i.runId }];
      if (c.as === "tool") {
        evs.push(
          { type: "TOOL_CALL_START", toolCallId: `call-${name}`, toolCallName: "order" },
          { type: "TOOL_CALL_END", toolCallId: `call-${name}` },
          { type: "TOOL_CALL_RESULT", messageId: `res-${name}`, toolCallId: `call-${name}`, content: JSON.stringify({ a2ui_operations: c.ops }) },
        );
      } else {
        evs.push({ type: "ACTIVITY_SNAPSHOT", messageId: `own-${name}`, activityType: "a2ui-surface", replace: true, content: { a2ui_operations: c.ops } });
      }
      evs.push({ type: "RUN_FINISHED", threadId: i.threadId, runId: i.runId });
      return sse(evs);
    };
  }
  up = await startUpstream(routes);
  const agents = Object.keys(cases).map((n) => `  ${n}: {type: agui, url: ${up.url}/${n}}`).join("\n");
  adapter = await startAdapter(`agents:\n${agents}\n`);
  const js = await bundle("a2ui/entry.js", "a2ui-bundle.js");
  files = await serveFiles({ "/": join(e2eDir, "a2ui", "page.html"), "/bundle.js": js });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await files?.close();
  await adapter?.stop();
  await up?.close();
});

for (const [name, c] of Object.entries(cases)) {
  test(`a ${c.version ?? "v0.8"} ${name} surface (${c.as}) is rendered by @a2ui/lit v0_9 after conversion`, async () => {
    const got = await runClient("1.0.0", `${adapter.url}/agents/${name}/run`, { threadId: `t-${name}`, runId: `r-${name}` });
    assert.deepEqual(got.failed, []);
    const act = got.messages.find((m) => m.role === "activity" && m.activityType === "a2ui-surface");
    assert.ok(act, `no a2ui-surface for ${name}`);
    assert.equal(act.content.status, undefined, `surface failed: ${JSON.stringify(act.content).slice(0, 800)}`);
    assert.equal(act.content.a2ui_issues, undefined, "the official example converts without issues");
    const ops = act.content.a2ui_operations;
    assert.ok(ops[0].createSurface, "starts with createSurface");
    for (const op of ops) assert.equal(op.version, "v0.9");

    const page = await browser.newPage({ viewport: { width: 960, height: 900 } });
    const consoleErrors = [];
    page.on("pageerror", (e) => consoleErrors.push(String(e)));
    page.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()));
    await page.goto(files.url + "/");
    await page.waitForFunction(() => typeof window.renderA2UI === "function");
    await page.evaluate((o) => window.renderA2UI(o), ops);
    await page.waitForTimeout(300);
    const r = await page.evaluate(() => {
      const parts = [];
      const walk = (n) => {
        if (n.nodeType === Node.TEXT_NODE) parts.push(n.textContent);
        if (n.shadowRoot) walk(n.shadowRoot);
        for (const ch of n.childNodes) walk(ch);
      };
      walk(document.getElementById("root"));
      return { errors: window.__a2ui.errors, text: parts.join(" ").replace(/\s+/g, " ") };
    });
    await page.screenshot({ path: join(artifacts, `a2ui-v08-${name}.png`), fullPage: true });
    await page.close();
    assert.deepEqual(r.errors, [], "renderer errors");
    assert.deepEqual(consoleErrors, [], "console errors");
    // Every literal and bound string of the example that is text shows.
    const strings = name === "flight" ? flightTexts(c.ops) : c.expect;
    assert.ok(strings.length > 0);
    for (const want of strings) assert.ok(r.text.includes(want), `"${want}" not visible in:\n${r.text.slice(0, 800)}`);
  });
}

// flightTexts lists the data model's strings of the flight example (what
// its Text components bind).
function flightTexts(ops) {
  const out = [];
  const walk = (entries) => {
    for (const e of entries) {
      if (typeof e.valueString === "string" && e.valueString.trim()) out.push(e.valueString);
      if (e.valueMap) walk(e.valueMap);
    }
  };
  for (const m of ops) if (m.dataModelUpdate) walk(m.dataModelUpdate.contents);
  return out;
}
