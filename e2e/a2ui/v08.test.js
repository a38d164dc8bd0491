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
import { e2eDir } from "../lib/browser.js";
import { startRenderers, assertRendered, surfaceOf, surfaceEvents } from "../lib/a2uipage.js";
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

let up, adapter, renderers;

before(async () => {
  const routes = {};
  for (const [name, c] of Object.entries(cases)) routes[`/${name}`] = (i) => sse(surfaceEvents(i, name, { ops: c.ops, asTool: c.as === "tool" }));
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
  test(`a ${c.version ?? "v0.8"} ${name} surface (${c.as}) is rendered by @a2ui/lit v0_9 after conversion`, async () => {
    const got = await runClient("1.0.0", `${adapter.url}/agents/${name}/run`, { threadId: `t-${name}`, runId: `r-${name}` });
    const content = surfaceOf(got, name);
    assert.equal(content.a2ui_issues, undefined, "the official example converts without issues");
    const ops = content.a2ui_operations;
    assert.ok(ops[0].createSurface, "starts with createSurface");
    for (const op of ops) assert.equal(op.version, "v0.9");
    // Every literal and bound string of the example that is text shows.
    const strings = name === "flight" ? flightTexts(c.ops) : c.expect;
    const r = await renderers.render("v0.9", ops, { shot: `a2ui-v08-${name}` });
    assertRendered(r, strings);
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
