// Real A2UI emitters: e2e/python/a2ui_agent.py, a scripted AG-UI endpoint
// on the official Python AG-UI package whose A2UI v0.8, v0.9 and v1.0
// messages the official A2UI agent SDK (a2ui-agent-sdk 0.9.0) builds and
// validates, fronted by the adapter. Each version, as the agent's own
// a2ui-surface activity and as a tool result, reaches a client that
// declares v0.9 (rendered by @a2ui/lit 0.11.0's v0_9 renderer) and one that
// declares only v0.8 (its v0_8 renderer) in headless Chromium: zero
// renderer or console errors, the order's data visible, and what the
// adapter sent accepted by the SDK's own validator. The agent sees the
// client's a2uiClientCapabilities (forwardedProps is passed on).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startAdapter } from "../lib/adapter.js";
import { runClient } from "../lib/clients.js";
import { startA2UIAgent } from "../lib/langgraph-python.js";
import { startRenderers, assertRendered, surfaceOf } from "../lib/a2uipage.js";

const basic = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json";
const standard = "https://a2ui.org/specification/v0_8/standard_catalog_definition.json";
const clients = {
  "v0.9": { caps: { "v0.9": { supportedCatalogIds: [basic] } }, first: "createSurface" },
  "v0.8": { caps: { supportedCatalogIds: [standard] }, first: "beginRendering" },
};
// What the order card shows, whichever version carried it.
const expect = ["Harbor Tea House", "A-1042", "2 x", "Oolong tea", "$9.00", "1 x", "Lemon cake", "$3.50", "Total", "$12.50", "Confirm order"];
const agents = { v08: "v0.8", v09: "v0.9", v10: "v1.0" };

let py, adapter, renderers;

before(async () => {
  py = await startA2UIAgent();
  const lines = [];
  for (const [id, v] of Object.entries(agents)) {
    for (const mode of ["activity", "tool"]) lines.push(`  ${id}-${mode}: {type: agui, url: ${py.url}/${v}/${mode}}`);
  }
  adapter = await startAdapter(`agents:\n${lines.join("\n")}\n`);
  renderers = await startRenderers();
});

after(async () => {
  await renderers?.close();
  await adapter?.stop();
  py?.stop();
});

test("the SDK's payloads are the versions they claim", async () => {
  const get = async (v) => (await fetch(`${py.url}/${v}/messages`)).json();
  const v08 = await get("v0.8");
  assert.deepEqual(v08.map((m) => Object.keys(m)), [["beginRendering"], ["surfaceUpdate"], ["dataModelUpdate"]]);
  const v09 = await get("v0.9");
  assert.deepEqual(v09.map((m) => m.version), ["v0.9", "v0.9", "v0.9"]);
  const v10 = await get("v1.0");
  assert.equal(v10.length, 1);
  assert.equal(v10[0].version, "v1.0");
  assert.ok(v10[0].createSurface.components.length > 5 && v10[0].createSurface.dataModel.items.length === 2, "v1.0 createSurface with inline components and data model");
});

for (const [id, version] of Object.entries(agents)) {
  for (const mode of ["activity", "tool"]) {
    for (const [cv, c] of Object.entries(clients)) {
      test(`SDK ${version} as ${mode} reaches a ${cv} client and @a2ui/lit renders it`, async () => {
        const got = await runClient("1.0.0", `${adapter.url}/agents/${id}-${mode}/run`, { forwardedProps: { a2uiClientCapabilities: c.caps } });
        assert.deepEqual(got.failed, []);
        assert.deepEqual(got.runErrors, []);
        const seen = await (await fetch(`${py.url}/last-capabilities`)).json();
        assert.deepEqual(seen, { version, a2uiClientCapabilities: c.caps }, "the agent got the client's capabilities");
        const content = surfaceOf(got);
        const ops = content.a2ui_operations;
        assert.ok(ops[0][c.first], `starts with ${c.first}: ${JSON.stringify(ops[0])}`);
        for (const op of ops) assert.equal(op.version, cv === "v0.8" ? undefined : "v0.9");
        for (const issue of content.a2ui_issues ?? []) {
          assert.ok(cv === "v0.8" && issue.rule === "not_expressible_in_v08", `only v0.8's lossy reports: ${JSON.stringify(issue)}`);
        }

        // The SDK's own validator accepts what the adapter sent the client.
        const judged = await fetch(`${py.url}/validate/${cv}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(ops) });
        assert.equal(judged.status, 200, `the SDK refuses the adapter's ${cv}: ${await judged.text()}`);

        const r = await renderers.render(cv, ops, { expect, shot: `a2ui-python-${id}-${mode}-${cv}` });
        assertRendered(r, expect, { missingResources: true });
      });
    }
  }
}
