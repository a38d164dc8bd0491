// The thread endpoints with the real @copilotkit/core 1.74 client (no
// browser): CopilotKitCore reads threadEndpoints from /info, and the
// thread store its React hook useThreads drives (ɵcreateThreadStore)
// lists a principal's threads page by page, renames, archives and
// deletes them through the adapter's /threads routes, on the memory and
// the Redis run log. Another principal's store sees none of them and
// cannot delete them.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { CopilotKitCore, CopilotKitCoreRuntimeConnectionStatus, ɵcreateThreadStore } from "@copilotkit/core";
import { startAdapter } from "../lib/adapter.js";

// CopilotKitCore connects to its runtime only in a browser (it returns
// early while window is undefined): a bare window, as a page has one.
globalThis.window ??= { location: new URL("http://localhost/"), addEventListener() {}, removeEventListener() {} };

const redisURL = process.env.GENUI_TEST_REDIS || "redis://127.0.0.1:6379/15";
const alice = { Authorization: "Bearer alice-token-123" };
const bob = { Authorization: "Bearer bob-token-12345" };
const adapters = {};

before(async () => {
  const base = `auth: {bearerTokens: {alice: alice-token-123, bob: bob-token-12345}}
agents: {default: {type: demo, description: "demo"}}
`;
  adapters.memory = await startAdapter(base);
  adapters.redis = await startAdapter(base + `runlog: {backend: redis, url: "${redisURL}", prefix: "genui-e2e:${randomBytes(6).toString("hex")}:"}\n`);
});
after(async () => {
  for (const a of Object.values(adapters)) await a.stop();
});

// run runs the demo agent on a thread through the CopilotKit run route
// and reads the stream to its end.
async function run(runtimeUrl, headers, threadId) {
  const res = await fetch(`${runtimeUrl}/agent/default/run`, {
    method: "POST",
    headers: { ...headers, "Content-Type": "application/json", Accept: "text/event-stream" },
    body: JSON.stringify({ threadId, runId: `r-${threadId}`, messages: [{ id: `u-${threadId}`, role: "user", content: "hi" }], tools: [], context: [], state: {}, forwardedProps: {} }),
  });
  assert.equal(res.status, 200);
  const text = await res.text();
  assert.match(text, /RUN_FINISHED/);
}

// until polls the store until f(state) holds.
async function until(store, f, what) {
  const end = Date.now() + 10000;
  while (Date.now() < end) {
    const s = store.getState();
    if (f(s)) return s;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`${what}: ${JSON.stringify(store.getState(), null, 1).slice(0, 2000)}`);
}

const idle = (s) => !s.isLoading && !s.isFetchingNextPage;
const ids = (s) => s.threads.map((t) => t.id);

for (const backend of ["memory", "redis"]) {
  test(`thread list, rename, archive and delete with @copilotkit/core 1.74 (${backend})`, async () => {
    const runtimeUrl = adapters[backend].url + "/api/copilotkit";
    const core = new CopilotKitCore({ runtimeUrl, headers: alice });
    const end = Date.now() + 10000;
    while (core.runtimeConnectionStatus !== CopilotKitCoreRuntimeConnectionStatus.Connected && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(core.threadEndpoints, { list: true, inspect: true, mutations: true, realtimeMetadata: false });

    for (const t of ["t1", "t2", "t3"]) await run(runtimeUrl, alice, t);
    await run(runtimeUrl, bob, "b1");

    const store = ɵcreateThreadStore({ fetch: globalThis.fetch });
    store.start();
    store.setContext({ runtimeUrl, headers: alice, agentId: "default", includeArchived: false, limit: 2 });
    let s = await until(store, (s) => idle(s) && s.threads.length > 0, "first page");
    assert.equal(s.error, null);
    assert.deepEqual(ids(s), ["t3", "t2"]);
    assert.ok(s.nextCursor, "a next page");
    assert.equal(s.threads[0].agentId, "default");
    store.fetchNextPage();
    s = await until(store, (s) => idle(s) && s.threads.length === 3, "second page");
    assert.deepEqual(ids(s), ["t3", "t2", "t1"]);
    assert.equal(s.nextCursor, null);

    await store.renameThread("t1", "Plans");
    await store.archiveThread("t2");
    await store.deleteThread("t3");
    store.refetchThreads();
    s = await until(store, (s) => idle(s) && s.threads.length === 1, "after the mutations");
    assert.deepEqual(ids(s), ["t1"]);
    assert.equal(s.threads[0].name, "Plans");

    // Bob: only his thread; alice's cannot be deleted (404).
    const bobs = ɵcreateThreadStore({ fetch: globalThis.fetch });
    bobs.start();
    bobs.setContext({ runtimeUrl, headers: bob, agentId: "default", includeArchived: true });
    s = await until(bobs, (s) => idle(s) && s.threads.length > 0, "bob's list");
    assert.deepEqual(ids(s), ["b1"]);
    await assert.rejects(bobs.deleteThread("t1"), /404/);
    await store.unarchiveThread("t2");
    store.refetchThreads();
    s = await until(store, (s) => idle(s) && s.threads.length === 2, "alice's after bob's attempt");
    assert.deepEqual(ids(s).sort(), ["t1", "t2"]);
    store.stop();
    bobs.stop();
  });
}
