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
import { e2eDir } from "../lib/browser.js";
import { startRenderers, assertRendered, surfaceOf } from "../lib/a2uipage.js";

const ops = JSON.parse(readFileSync(join(e2eDir, "..", "schemas", "testdata", "v0_8", "basic", "13_coffee-order.json"), "utf8"));
const expect = ["Sunrise Coffee", "Oat Milk Latte", "Grande, Extra Shot", "Chocolate Croissant", "$11.66"];
const clients = {
  "v0.9": { caps: { "v0.9": { supportedCatalogIds: ["https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"] } }, first: "createSurface" },
  "v0.8": { caps: { supportedCatalogIds: ["https://a2ui.org/specification/v0_8/standard_catalog_definition.json"] }, first: "beginRendering" },
};

let agent, bridge, adapter, renderers;

before(async () => {
  agent = await startV08Agent(ops);
  bridge = await startBridge(agent.url);
  adapter = await startAdapter(`agents:\n  bridge: {type: agui, url: ${bridge.url}}\n`);
  renderers = await startRenderers();
});

after(async () => {
  await renderers?.close();
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
    const out = surfaceOf(got).a2ui_operations;
    assert.ok(out[0][c.first], `starts with ${c.first}: ${JSON.stringify(out[0])}`);

    const r = await renderers.render(cv, out, { expect, shot: `a2ui-aguia2a-${cv}` });
    assertRendered(r, expect, { missingResources: true });
  });
}
