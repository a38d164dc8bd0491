// A client that declares only A2UI v0.8 (forwardedProps.a2uiClientCapabilities,
// keyed or in v0.8's unkeyed shape) gets every surface down-converted to
// v0.8: a generated tool-result surface, official v0.9.1 examples the
// agent sends as its own activity, and an official v0.8 example that is
// converted up on the way in, and an official v1.0 example likewise. The official @a2ui/lit 0.11.0 v0_8 renderer
// paints each in headless Chromium: zero renderer errors, the data visible.
// A client that declares v0.9 but not v0.9.1 gets the "v0.9" stamp.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { startAdapter } from "../lib/adapter.js";
import { startUpstream } from "../lib/upstream.js";
import { runClient } from "../lib/clients.js";
import { e2eDir } from "../lib/browser.js";
import { startRenderers, assertRendered, surfaceOf, surfaceEvents } from "../lib/a2uipage.js";
import { sse } from "../agui/scenarios.js";

const testdata = join(e2eDir, "..", "schemas", "testdata");
const v091 = (name) => JSON.parse(readFileSync(join(testdata, "examples", "basic", name), "utf8")).messages;
const v08 = (name) => JSON.parse(readFileSync(join(testdata, "v0_8", name), "utf8"));
const standard = "https://a2ui.org/specification/v0_8/standard_catalog_definition.json";
const unkeyed = { supportedCatalogIds: [standard] };
const keyed = { "v0.8": { supportedCatalogIds: [standard] } };

const cases = {
  generated: {
    result: [{ id: "A-1", item: "Oolong tea", total: 12.5 }, { id: "A-2", item: "Lemon cake", total: 3 }],
    caps: unkeyed,
    expect: ["List orders", "A-1", "Oolong tea", "12.5", "Lemon cake"],
  },
  coffee: {
    ops: v091("13_coffee-order.json"),
    caps: keyed,
    expect: ["Sunrise Coffee", "Oat Milk Latte", "Grande, Extra Shot", "Chocolate Croissant", "Subtotal", "11.66", "Purchase"],
  },
  tracks: {
    ops: v091("18_track-list.json"),
    caps: unkeyed,
    expect: ["Focus Flow", "Weightless", "Marconi Union", "8:09", "Clair de Lune", "Debussy", "play"],
  },
  v10in: {
    ops: JSON.parse(readFileSync(join(testdata, "v1_0", "13_coffee-order.json"), "utf8")).messages,
    caps: unkeyed,
    expect: ["Sunrise Coffee", "Oat Milk Latte", "Grande, Extra Shot", "Chocolate Croissant", "Subtotal", "11.66", "Purchase"],
  },
  v08in: {
    ops: v08("basic/13_coffee-order.json"),
    asTool: true,
    caps: keyed,
    expect: ["Sunrise Coffee", "Oat Milk Latte", "Chocolate Croissant", "$11.66"],
  },
};

let up, adapter, renderers;

before(async () => {
  const routes = {};
  for (const [name, c] of Object.entries(cases)) routes[`/${name}`] = (i) => sse(surfaceEvents(i, name, { ...c, tool: "list_orders" }));
  up = await startUpstream(routes);
  const agents = Object.keys(cases).map((n) => `  ${n}: {type: agui, url: ${up.url}/${n}}`).join("\n");
  adapter = await startAdapter(`agents:\n${agents}\n`);
  renderers = await startRenderers();
});

after(async () => {
  await renderers?.close();
  await adapter?.stop();
  await up?.close();
});

for (const [name, c] of Object.entries(cases)) {
  test(`a v0.8 client gets the ${name} surface in v0.8 and @a2ui/lit v0_8 renders it`, async () => {
    const got = await runClient("1.0.0", `${adapter.url}/agents/${name}/run`, { forwardedProps: { a2uiClientCapabilities: c.caps } });
    const content = surfaceOf(got, name);
    const ops = content.a2ui_operations;
    assert.ok(ops[0].beginRendering, `starts with beginRendering: ${JSON.stringify(ops[0])}`);
    for (const op of ops) {
      assert.equal(op.version, undefined, "v0.8 messages carry no version");
      assert.ok(op.beginRendering || op.surfaceUpdate || op.dataModelUpdate, `a v0.8 operation: ${JSON.stringify(op).slice(0, 200)}`);
    }
    for (const issue of content.a2ui_issues ?? []) {
      assert.ok(["not_expressible_in_v08", "v08_not_expressible", "v10_not_expressible"].includes(issue.rule), `only lossy reports: ${JSON.stringify(issue)}`);
    }
    const r = await renderers.render("v0.8", ops, { expect: c.expect, shot: `a2ui-emit-v08-${name}` });
    assertRendered(r, c.expect, { missingResources: true });
  });
}

test("a client that declares v0.9 and not v0.9.1 gets the v0.9 stamp on a v0.9.1 surface", async () => {
  const ops = v091("13_coffee-order.json").map((m) => ({ ...m, version: "v0.9.1" }));
  cases.coffee.ops = ops;
  const got = await runClient("1.0.0", `${adapter.url}/agents/coffee/run`, { forwardedProps: { a2uiClientCapabilities: { "v0.9": { supportedCatalogIds: ["https://a2ui.org/specification/v0_9/basic_catalog.json"] } } } });
  const act = got.messages.find((m) => m.role === "activity" && m.activityType === "a2ui-surface");
  assert.ok(act && act.content.a2ui_operations.length === 3, JSON.stringify(act?.content).slice(0, 400));
  for (const op of act.content.a2ui_operations) assert.equal(op.version, "v0.9");
});

test("a malformed a2uiClientCapabilities is a 400 before the stream", async () => {
  const res = await fetch(`${adapter.url}/agents/coffee/run`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ threadId: "t", runId: "r", messages: [], forwardedProps: { a2uiClientCapabilities: { "v0.8": "all" } } }),
  });
  assert.equal(res.status, 400);
  const body = await res.json();
  assert.equal(body.error, "invalid_a2ui_capabilities");
  assert.match(body.message, /a2uiClientCapabilities\["v0.8"\] is not an object/);
});
