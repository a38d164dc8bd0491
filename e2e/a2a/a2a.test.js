// A2A agents behind the adapter's type: a2a backend: real servers written
// with the official @a2a-js/sdk, one per protocol version (0.3.14 speaking
// 0.3, 1.3.0 speaking 1.0), both with the A2UI extension v0.9.1, driven by
// @ag-ui/client 0.0.57, 1.0.0 and 1.0.4.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { startAdapter } from "../lib/adapter.js";
import { runClient } from "../lib/clients.js";
import { startA2A, A2UI_EXT } from "../lib/a2a.js";

const agents = {};
let adapter;
before(async () => {
  agents["0.3"] = await startA2A("0.3");
  agents["1.0"] = await startA2A("1.0");
  agents.v08 = await startA2A("0.3", { ext: "https://a2ui.org/a2a-extension/a2ui/v0.8" });
  adapter = await startAdapter(`agents:
  a08: {type: a2a, url: "${agents.v08.url}"}
  a03: {type: a2a, url: "${agents["0.3"].url}"}
  a10: {type: a2a, url: "${agents["1.0"].url}"}
  elsewhere: {type: a2a, url: "${agents["0.3"].url.replace("127.0.0.1", "localhost")}", headers: {Authorization: "Bearer service-secret"}}
  listed: {type: a2a, url: "${agents["0.3"].url.replace("127.0.0.1", "localhost")}", headers: {Authorization: "Bearer service-secret"}, allowedOrigins: ["${agents["0.3"].url}"]}
`);
});
after(async () => {
  await adapter?.stop();
  for (const a of Object.values(agents)) await a.close();
});

const id = { "0.3": "a03", "1.0": "a10" };
const user = (content) => [{ id: "u-" + randomUUID(), role: "user", content }];
async function raw(agent, body) {
  const res = await fetch(`${adapter.url}/agents/${agent}/run`, { method: "POST", headers: { "content-type": "application/json", accept: "text/event-stream" }, body: JSON.stringify({ tools: [], context: [], state: {}, messages: [], ...body }) });
  assert.equal(res.status, 200);
  return (await res.text()).split("\n").filter((l) => l.startsWith("data:")).map((l) => JSON.parse(l.slice(5)));
}

for (const version of ["0.3", "1.0"]) {
  for (const client of ["0.0.57", "1.0.0", "1.0.4"]) {
    test(`A2A ${version} via ${client}: text, an A2UI surface (the invalid message reported, the rest applied), the extension and context sent`, async () => {
      const threadId = "a2a-" + randomUUID();
      const r = await runClient(client, `${adapter.url}/agents/${id[version]}/run`, { threadId, messages: user("orders bad") });
      assert.deepEqual(r.runErrors, []);
      assert.deepEqual(r.failed, []);
      const texts = r.messages.filter((m) => m.role === "assistant").map((m) => m.content);
      assert.deepEqual(texts, ["Looking up orders…", "Here are your orders."]);
      const surface = r.events.find((e) => e.type === "ACTIVITY_SNAPSHOT" && e.activityType === "a2ui-surface");
      assert.ok(surface, "no surface");
      assert.equal(surface.content.a2ui_operations.length, 3, "the invalid fourth message is dropped");
      assert.ok(r.events.some((e) => e.type === "CUSTOM" && e.name === "a2ui.errors" && e.value.dropped.length === 1));
      const got = agents[version].received.filter((x) => x.message).at(-1);
      assert.equal(got.headers.ext, A2UI_EXT);
      if (version === "1.0") assert.equal(got.headers.version, "1.0");
      const caps = got.message.metadata?.a2uiClientCapabilities ?? got.message.metadata?.fields?.a2uiClientCapabilities;
      assert.ok(caps, JSON.stringify(got.message.metadata));
      // The official client_capabilities.json shape: keyed by version.
      assert.match(JSON.stringify(caps), /"v0\.9".*"supportedCatalogIds".*basic\/catalog\.json/);
      // The same thread is the same A2A context.
      await runClient(client, `${adapter.url}/agents/${id[version]}/run`, { threadId, messages: user("orders") });
      const two = agents[version].received.filter((x) => x.message).slice(-2).map((x) => x.message.contextId);
      assert.equal(two[0], two[1]);
    });
  }

  test(`A2A ${version}: input-required is an interrupt; the resume answers the task`, async () => {
    const threadId = "a2a-" + randomUUID();
    const first = await runClient("1.0.0", `${adapter.url}/agents/${id[version]}/run`, { threadId, messages: user("approve the refund") });
    const fin = first.events.find((e) => e.type === "RUN_FINISHED");
    assert.equal(fin.outcome?.type, "interrupt");
    assert.equal(fin.outcome.interrupts[0].message, "Approve the refund of 42 EUR?");
    const evs = await raw(id[version], { threadId, runId: randomUUID(), resume: [{ interruptId: fin.outcome.interrupts[0].id, status: "resolved", payload: "yes, refund it" }] });
    assert.ok(evs.some((e) => e.type === "TEXT_MESSAGE_CONTENT" && e.delta === "Approved: yes, refund it"), JSON.stringify(evs));
    assert.equal(evs.at(-1).type, "RUN_FINISHED");
    assert.equal(evs.at(-1).outcome, undefined);
  });

  test(`A2A ${version}: an A2UI action goes back as a DataPart; the update is appended to the surface`, async () => {
    const threadId = "a2a-" + randomUUID();
    await runClient("1.0.0", `${adapter.url}/agents/${id[version]}/run`, { threadId, messages: user("orders") });
    const dataModel = { version: "v0.9", surfaces: { orders: { title: "2 open orders", qty: 3 } } };
    const evs = await raw(id[version], { threadId, runId: randomUUID(), forwardedProps: { a2uiAction: { userAction: { name: "pick", surfaceId: "orders", sourceComponentId: "pick", context: { id: "A-1" } } }, a2uiClientDataModel: dataModel } });
    const sent = agents[version].received.filter((x) => x.message).at(-1).message;
    assert.match(JSON.stringify(sent.parts), /"action"/);
    // Data model sync: the client's model of the surface goes with the action.
    assert.match(JSON.stringify(sent.metadata), /a2uiClientDataModel.*"orders".*"qty".*3/);
    assert.ok(evs.some((e) => e.type === "TEXT_MESSAGE_CONTENT" && e.delta === "You picked A-1 on orders."), JSON.stringify(evs));
    const delta = evs.find((e) => e.type === "ACTIVITY_DELTA");
    assert.equal(delta?.messageId, "a2ui-surface-a2a-orders");
    assert.equal(delta.patch[0].value.updateDataModel.value, "Picked A-1");
  });

  test(`A2A ${version}: a failed task is RUN_ERROR with the agent's message; a stopped run cancels the task`, async () => {
    const evs = await raw(id[version], { threadId: "a2a-" + randomUUID(), runId: randomUUID(), messages: user("fail now") });
    assert.equal(evs.at(-1).type, "RUN_ERROR");
    assert.equal(evs.at(-1).code, "a2a_failed");
    assert.equal(evs.at(-1).message, "the orders database is down");
    // Stop: the client goes away mid-task; the agent gets tasks/cancel.
    const before = agents[version].received.filter((x) => x.cancel).length;
    const ac = new AbortController();
    const res = await fetch(`${adapter.url}/agents/${id[version]}/run`, { method: "POST", signal: ac.signal, headers: { "content-type": "application/json", accept: "text/event-stream" }, body: JSON.stringify({ threadId: "a2a-" + randomUUID(), runId: randomUUID(), messages: user("slow please") }) });
    const reader = res.body.getReader();
    let seen = "";
    while (!seen.includes("Working slowly")) seen += new TextDecoder().decode((await reader.read()).value);
    const runId = seen.match(/"runId":"([^"]+)"/)[1];
    const stop = await (await fetch(`${adapter.url}/runs/${runId}/cancel`, { method: "POST" })).json();
    assert.equal(stop.stopped, true);
    ac.abort();
    const end = Date.now() + 10000;
    while (agents[version].received.filter((x) => x.cancel).length === before && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    assert.ok(agents[version].received.filter((x) => x.cancel).length > before, "the A2A task was not cancelled");
  });
}

// The card is the agent's document: the endpoint it names (here
// 127.0.0.1, where the adapter was configured with localhost) is used
// only on the configured origin or one in allowedOrigins, and never with
// the configured headers.
test("A2A: a card naming an endpoint on another origin is refused unless listed, and never gets the credentials", async () => {
  const before = agents["0.3"].received.filter((x) => x.message).length;
  const evs = await raw("elsewhere", { threadId: "a2a-" + randomUUID(), runId: randomUUID(), messages: user("orders") });
  assert.equal(evs.at(-1).type, "RUN_ERROR");
  assert.equal(evs.at(-1).code, "origin_not_allowed");
  assert.equal(agents["0.3"].received.filter((x) => x.message).length, before, "the endpoint was called");
  const ok = await raw("listed", { threadId: "a2a-" + randomUUID(), runId: randomUUID(), messages: user("orders") });
  assert.equal(ok.at(-1).type, "RUN_FINISHED", JSON.stringify(ok.at(-1)));
  const got = agents["0.3"].received.filter((x) => x.message).at(-1);
  assert.equal(got.headers.authorization, undefined, "the configured Authorization left its origin");
});

// The client's a2uiClientCapabilities reach the agent in the A2UI version
// its card declares: "v0.9"-keyed for a v0.9.1 agent (on 0.3 and 1.0),
// v0.8's unkeyed shape for a v0.8 agent; a client with no entry for the
// agent's version is declared with that version's basic catalog.
const BASIC = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json";
const STANDARD = "https://a2ui.org/specification/v0_8/standard_catalog_definition.json";
const SHOP = "https://example.com/catalogs/shop.json";
const capsCases = [
  { agent: "0.3", caps: { "v0.9": { supportedCatalogIds: [SHOP, BASIC] } }, want: { "v0.9": { supportedCatalogIds: [SHOP, BASIC] } } },
  { agent: "1.0", caps: { "v0.9.1": { supportedCatalogIds: [SHOP] } }, want: { "v0.9": { supportedCatalogIds: [SHOP] } } },
  { agent: "0.3", caps: { supportedCatalogIds: [STANDARD] }, want: { "v0.9": { supportedCatalogIds: [BASIC] } } },
  { agent: "v08", caps: { supportedCatalogIds: [STANDARD, SHOP] }, want: { supportedCatalogIds: [STANDARD, SHOP] } },
  { agent: "v08", caps: { "v0.8": { supportedCatalogIds: [SHOP] }, "v0.9": { supportedCatalogIds: [BASIC] } }, want: { supportedCatalogIds: [SHOP] } },
  { agent: "v08", caps: { "v0.9": { supportedCatalogIds: [SHOP] } }, want: { supportedCatalogIds: [STANDARD] } },
];
const agentId = { "0.3": "a03", "1.0": "a10", v08: "a08" };
// fromStruct reads a protobuf Struct (the 1.0 SDK's metadata) as JSON.
const fromStruct = (v) => {
  if (v?.fields) return Object.fromEntries(Object.entries(v.fields).map(([k, x]) => [k, fromStruct(x)]));
  if (v?.kind) {
    const { $case, value } = v.kind;
    if ($case === "structValue") return fromStruct(value);
    if ($case === "listValue") return value.values.map(fromStruct);
    return value;
  }
  if (v?.values && Array.isArray(v.values)) return v.values.map(fromStruct);
  return v;
};
for (const [i, c] of capsCases.entries()) {
  test(`A2A ${c.agent}: the client's a2uiClientCapabilities ${JSON.stringify(c.caps)} reach the agent in its version (${i})`, async () => {
    const r = await runClient("1.0.0", `${adapter.url}/agents/${agentId[c.agent]}/run`, { messages: user("approve it"), forwardedProps: { a2uiClientCapabilities: c.caps } });
    assert.deepEqual(r.runErrors, []);
    const got = agents[c.agent].received.filter((x) => x.message).at(-1);
    if (c.agent === "v08") assert.equal(got.headers.ext, "https://a2ui.org/a2a-extension/a2ui/v0.8");
    const md = got.message.metadata;
    const caps = md?.a2uiClientCapabilities ?? fromStruct(md)?.a2uiClientCapabilities;
    assert.deepEqual(fromStruct(caps), c.want, JSON.stringify(md));
  });
}
