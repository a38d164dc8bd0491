// The official A2UI renderers in headless Chromium, for the A2UI e2e files:
// @a2ui/lit 0.11.0's v0_9 renderer (a2ui/entry.js, window.renderA2UI) and
// its v0_8 renderer (a2ui/entry08.js, window.renderA2UI08), each on its own
// test page, and what a rendered surface shows (its text, collected through
// shadow roots) and reports (renderer and console errors).
import assert from "node:assert/strict";
import { join } from "node:path";
import { launch, bundle, serveFiles, e2eDir, artifacts } from "./browser.js";

const pages = {
  "v0.9": { path: "/", render: "renderA2UI" },
  "v0.8": { path: "/v08", render: "renderA2UI08" },
};

// startRenderers builds both renderers, serves their pages and launches
// Chromium. render(version, ops, opts) paints ops on a fresh page:
// opts.expect (strings to wait up to 10 s for; without them it waits
// 300 ms), opts.shot (a screenshot name in e2e/artifacts), opts.keep
// (leave the page open: the caller closes it). It resolves to
// { page, errors, consoleErrors, text }.
export async function startRenderers() {
  const files = await serveFiles({
    "/": join(e2eDir, "a2ui", "page.html"),
    "/bundle.js": await bundle("a2ui/entry.js", "a2ui-bundle.js"),
    "/v08": join(e2eDir, "a2ui", "page08.html"),
    "/bundle08.js": await bundle("a2ui/entry08.js", "a2ui-bundle08.js"),
  });
  const browser = await launch();
  async function render(version, ops, { expect, shot, keep } = {}) {
    const p = pages[version];
    const page = await browser.newPage({ viewport: { width: 960, height: 900 } });
    const consoleErrors = [];
    page.on("pageerror", (e) => consoleErrors.push(String(e)));
    page.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()));
    await page.goto(files.url + p.path);
    await page.waitForFunction((fn) => typeof window[fn] === "function", p.render);
    await page.evaluate(([fn, o]) => window[fn](o), [p.render, ops]);
    const visible = (want) => {
      const parts = [];
      const walk = (n) => {
        if (n.nodeType === Node.TEXT_NODE) parts.push(n.textContent);
        if (n.shadowRoot) walk(n.shadowRoot);
        for (const ch of n.childNodes) walk(ch);
      };
      walk(document.getElementById("root"));
      const t = parts.join(" ").replace(/\s+/g, " ");
      return want ? want.every((w) => t.includes(w)) : t;
    };
    // Lit renders asynchronously (markdown included): wait for the data.
    if (expect) await page.waitForFunction(visible, expect, { timeout: 10000 }).catch(() => {});
    else await page.waitForTimeout(300);
    const text = await page.evaluate(visible, null);
    const errors = await page.evaluate(() => window.__a2ui.errors);
    if (shot) await page.screenshot({ path: join(artifacts, `${shot}.png`), fullPage: true });
    if (!keep) await page.close();
    return { page, errors, consoleErrors, text };
  }
  return {
    render,
    close: async () => {
      await browser.close();
      await files.close();
    },
  };
}

// assertRendered: no renderer error, no console error (a missing remote
// resource, an example's image offline, is allowed when missingResources
// is set), and every expected string visible.
export function assertRendered(r, expect, { missingResources = false } = {}) {
  assert.deepEqual(r.errors, [], "renderer errors");
  const console = missingResources ? r.consoleErrors.filter((e) => !e.includes("Failed to load resource")) : r.consoleErrors;
  assert.deepEqual(console, [], "console errors");
  assert.ok(expect.length > 0, "nothing expected");
  for (const want of expect) assert.ok(r.text.includes(want), `"${want}" not visible in:\n${r.text.slice(0, 1200)}`);
}

// surfaceOf is the a2ui-surface activity a client's run ended with,
// checked to be a surface (not a failure report).
export function surfaceOf(got, what = "") {
  assert.deepEqual(got.failed, []);
  const act = got.messages.find((m) => m.role === "activity" && m.activityType === "a2ui-surface");
  assert.ok(act, `no a2ui-surface ${what}`);
  assert.equal(act.content.status, undefined, `surface failed: ${JSON.stringify(act.content).slice(0, 800)}`);
  return act.content;
}

// surfaceEvents is a scripted AG-UI run that carries ops (or a plain
// result) either as the agent's own a2ui-surface activity or as the
// result of a tool call named tool.
export function surfaceEvents(i, name, { ops, result, asTool, tool = "order" }) {
  const evs = [{ type: "RUN_STARTED", threadId: i.threadId, runId: i.runId }];
  if (result || asTool) {
    evs.push(
      { type: "TOOL_CALL_START", toolCallId: `call-${name}`, toolCallName: tool },
      { type: "TOOL_CALL_END", toolCallId: `call-${name}` },
      { type: "TOOL_CALL_RESULT", messageId: `res-${name}`, toolCallId: `call-${name}`, content: JSON.stringify(result ?? { a2ui_operations: ops }) },
    );
  } else {
    evs.push({ type: "ACTIVITY_SNAPSHOT", messageId: `own-${name}`, activityType: "a2ui-surface", replace: true, content: { a2ui_operations: ops } });
  }
  evs.push({ type: "RUN_FINISHED", threadId: i.threadId, runId: i.runId });
  return evs;
}
