// The AG-UI A2A bridge carrying A2UI v0.8 through the adapter:
// @ag-ui/a2a 0.0.6's A2AAgent, served as an AG-UI endpoint, in front of a
// real A2A agent (@a2a-js/sdk 0.3.14) that declares only the A2UI v0.8
// extension and answers with the official v0.8 coffee-order example, one
// DataPart per message. The bridge's surface ({operations: []} built by
// ACTIVITY_DELTAs) reaches a client that declares v0.9 as one converted
// v0.9 snapshot (rendered by @a2ui/lit 0.11.0's v0_9 renderer) and a
// v0.8-only client in v0.8 (its v0_8 renderer), the data visible.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { startAdapter } from "../lib/adapter.js";
import { runClient } from "../lib/clients.js";
import { startV08Agent, startBridge, A2UI_V08_EXT } from "../lib/aguia2a.js";
import { launch, bundle, serveFiles, e2eDir, artifacts } from "../lib/browser.js";

const ops = JSON.parse(readFileSync(join(e2eDir, "..", "schemas", "testdata", "v0_8", "basic", "13_coffee-order.json"), "utf8"));
const expect = ["Sunrise Coffee", "Oat Milk Latte", "Grande, Extra Shot", "Chocolate Croissant", "$11.66"];
const clients = {
  "v0.9": { caps: { "v0.9": { supportedCatalogIds: ["https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"] } }, page: "/", render: "renderA2UI", first: "createSurface" },
  "v0.8": { caps: { supportedCatalogIds: ["https://a2ui.org/specification/v0_8/standard_catalog_definition.json"] }, page: "/v08", render: "renderA2UI08", first: "beginRendering" },
};

let agent, bridge, adapter, browser, files;

before(async () => {
  agent = await startV08Agent(ops);
  bridge = await startBridge(agent.url);
  adapter = await startAdapter(`agents:\n  bridge: {type: agui, url: ${bridge.url}}\n`);
  files = await serveFiles({
    "/": join(e2eDir, "a2ui", "page.html"),
    "/bundle.js": await bundle("a2ui/entry.js", "a2ui-bundle.js"),
    "/v08": join(e2eDir, "a2ui", "page08.html"),
    "/bundle08.js": await bundle("a2ui/entry08.js", "a2ui-bundle08.js"),
  });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await files?.close();
  await adapter?.stop();
  await bridge?.close();
  await agent?.close();
});

for (const [cv, c] of Object.entries(clients)) {
  test(`@ag-ui/a2a's v0.8 surface reaches a ${cv} client through the adapter and @a2ui/lit renders it`, async () => {
    const before = bridge.emitted.length;
    const got = await runClient("1.0.0", `${adapter.url}/agents/bridge/run`, { forwardedProps: { a2uiClientCapabilities: c.caps } });
    assert.deepEqual(got.failed, []);
    assert.deepEqual(got.runErrors, []);
    assert.equal(agent.received.at(-1).ext, A2UI_V08_EXT, "the bridge speaks the v0.8 extension");
    // What the bridge emitted: an empty "operations" snapshot, then deltas.
    const emitted = bridge.emitted.slice(before).filter((e) => e.activityType === "a2ui-surface");
    assert.deepEqual(emitted.map((e) => e.type), ["ACTIVITY_SNAPSHOT", "ACTIVITY_DELTA", "ACTIVITY_DELTA", "ACTIVITY_DELTA"]);
    assert.deepEqual(emitted[0].content, { operations: [] });
    // What the client got: one snapshot of the whole surface, in its version.
    const acts = got.events.filter((e) => e.activityType === "a2ui-surface");
    assert.deepEqual(acts.map((e) => e.type), ["ACTIVITY_SNAPSHOT"]);
    const act = got.messages.find((m) => m.role === "activity" && m.activityType === "a2ui-surface");
    assert.equal(act.content.status, undefined, `surface failed: ${JSON.stringify(act.content).slice(0, 800)}`);
    const out = act.content.a2ui_operations;
    assert.ok(out[0][c.first], `starts with ${c.first}: ${JSON.stringify(out[0])}`);

    const page = await browser.newPage({ viewport: { width: 960, height: 900 } });
    const consoleErrors = [];
    page.on("pageerror", (e) => consoleErrors.push(String(e)));
    page.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()));
    await page.goto(files.url + c.page);
    await page.waitForFunction((fn) => typeof window[fn] === "function", c.render);
    await page.evaluate(([fn, o]) => window[fn](o), [c.render, out]);
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
    await page.waitForFunction(visible, expect, { timeout: 10000 }).catch(() => {});
    const shown = await page.evaluate(visible, null);
    const errors = await page.evaluate(() => window.__a2ui.errors);
    await page.screenshot({ path: join(artifacts, `a2ui-aguia2a-${cv}.png`), fullPage: true });
    await page.close();
    assert.deepEqual(errors, [], "renderer errors");
    assert.deepEqual(consoleErrors.filter((e) => !e.includes("Failed to load resource")), [], "console errors");
    for (const want of expect) assert.ok(shown.includes(want), `"${want}" not visible in:\n${shown.slice(0, 1200)}`);
  });
}
