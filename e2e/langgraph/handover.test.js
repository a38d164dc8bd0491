// A rolling restart hands LangGraph runs over: three instances of the real
// binary share Redis in front of a real LangGraph Agent Server
// (`langgraphjs dev` serving graph.mjs's paced graph). SIGTERM stops the
// instance that runs three clients' runs mid-stream; another instance
// takes each run over (the Agent Server's run is rejoined, not
// restarted), and each client, resuming with Last-Event-ID through the
// third instance, gets every event of its run exactly once, ending with
// RUN_FINISHED: the same events as an uninterrupted run of the graph.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { startAdapter } from "../lib/adapter.js";
import { startLangGraph } from "../lib/langgraph.js";

const redisURL = process.env.GENUI_TEST_REDIS || "redis://127.0.0.1:6379/15";

let lg, instances;
before(async () => {
  lg = await startLangGraph({ server: "pinned" });
  const yaml = `runlog: {backend: redis, url: "${redisURL}", prefix: "handover-${randomBytes(4).toString("hex")}:"}
shutdownGrace: 30s
agents:
  paced: {type: langgraph, url: "${lg.url}", graph: paced}
`;
  instances = await Promise.all([0, 1, 2].map(() => startAdapter(yaml, { logLevel: "info" })));
});
after(async () => {
  for (const a of instances ?? []) await a.stop();
  lg?.stop();
});

// sse reads an SSE response, calling onEvent(id, event) for each event
// (stop reading when it returns true), until the stream ends.
async function sse(res, onEvent) {
  assert.equal(res.status, 200, await (res.status === 200 ? "" : res.text()));
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  let buf = "";
  for (;;) {
    let chunk;
    try {
      chunk = await reader.read();
    } catch {
      return; // the instance went away
    }
    if (chunk.done) return;
    buf += dec.decode(chunk.value, { stream: true });
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const id = block.match(/^id: ?(.*)$/m)?.[1];
      const data = block.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart()).join("\n");
      if (!data) continue;
      if (onEvent(Number(id), JSON.parse(data))) {
        reader.cancel().catch(() => {});
        return;
      }
    }
  }
}

const terminal = (e) => e.type === "RUN_FINISHED" || e.type === "RUN_ERROR";

function start(a, threadId, runId) {
  return fetch(`${a.url}/agents/paced/run`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ threadId, runId, messages: [{ id: "u-" + runId, role: "user", content: "go" }], tools: [], context: [], state: {}, forwardedProps: {} }),
  });
}

// shape is what two runs of the graph share: each event's type and text,
// not its ids.
const shape = (events) => events.map((e) => [e.type, e.delta ?? e.code ?? ""].join(" ").trim());

test("runs handed over at SIGTERM go on through another instance, every event once", async () => {
  try {
    await handedOver();
  } catch (e) {
    // The instances' logs say who ended what: keep them with the failure.
    const tail = (x) => x.logs().split("\n").filter((l) => /handed over|taken over|owner|claim|lease|runId/.test(l)).slice(-40).join("\n");
    e.message += "\n" + instances.map((x, i) => `--- instance ${"abc"[i]}\n${tail(x)}`).join("\n");
    throw e;
  }
});

async function handedOver() {
  const [a, b, c] = instances;
  // The graph's uninterrupted run, for comparison, alongside.
  const whole = [];
  const wholeDone = start(b, "t-" + randomUUID(), "whole-" + randomUUID()).then((res) => sse(res, (_, e) => (whole.push(e), terminal(e))));

  // Three runs on a, stopped (SIGTERM) once each has streamed five deltas.
  const moved = [0, 1, 2].map(() => ({ runId: "moved-" + randomUUID(), seen: new Map(), lastId: 0, deltas: 0 }));
  let stopped;
  const mid = () => moved.every((r) => r.deltas >= 5);
  await Promise.all(moved.map(async (r) => {
    await sse(await start(a, "t-" + randomUUID(), r.runId), (id, e) => {
      assert.ok(!r.seen.has(id), `event ${id} twice from the owner`);
      r.seen.set(id, e);
      r.lastId = id;
      if (e.type === "TEXT_MESSAGE_CONTENT") r.deltas++;
      if (!stopped && mid()) stopped = a.stop(); // SIGTERM
      return terminal(e);
    });
  }));
  await stopped;
  for (const r of moved) assert.ok(![...r.seen.values()].some(terminal), "the draining instance ended its streams without ending the runs");
  assert.equal(a.logs().match(/run handed over/g)?.length, moved.length, a.logs());

  // Each client resumes through c with Last-Event-ID.
  await Promise.all(moved.map(async (r) => {
    const res = await fetch(`${c.url}/runs/${r.runId}/events`, { headers: { accept: "text/event-stream", "last-event-id": String(r.lastId) } });
    await sse(res, (id, e) => {
      assert.ok(!r.seen.has(id), `event ${id} again after the resume`);
      r.seen.set(id, e);
      return terminal(e);
    });
  }));
  await wholeDone;
  assert.equal(whole.at(-1).type, "RUN_FINISHED");
  const contents = whole.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").length;
  assert.ok(contents > 20, `the paced graph streams many deltas (${contents})`);
  for (const r of moved) {
    const ids = [...r.seen.keys()];
    assert.deepEqual(ids, ids.map((_, i) => i + 1), "every sequence number once, in order");
    assert.deepEqual(shape([...r.seen.values()]), shape(whole), "the events of the uninterrupted run");
  }
  // Each run was taken over once, by b or c.
  assert.equal((b.logs() + c.logs()).match(/run taken over/g)?.length, moved.length);
  const taken = async (x) => Number((await (await fetch(`${x.url}/metrics`)).text()).match(/^genui_runs_taken_over_total\{agent="paced"\} (\d+)$/m)?.[1] ?? 0);
  assert.equal((await taken(b)) + (await taken(c)), moved.length, "genui_runs_taken_over_total");
}

// kill -9 of the instance running three runs mid-stream: its last
// checkpoints stay in Redis; once its lease lapsed, the instance the
// clients resume through offers each run for a take-over, another
// instance rejoins the Agent Server's run from the checkpoint, and each
// client gets every event of its run exactly once, ending with
// RUN_FINISHED: the same events as an uninterrupted run.
for (const unread of [false, true]) {
  const name = unread
    ? "runs nobody reads when their instance is killed are taken over all the same; clients that come back later get every event once"
    : "runs of an instance killed with SIGKILL are taken over from their checkpoints, every event once";
  test(name, () => killTest(unread));
}

// killTest runs killed with three instances of their own; unread: the
// clients leave with the instance and come back only once the live
// instances took the runs over by themselves.
async function killTest(unread) {
  const yaml = `runlog: {backend: redis, url: "${redisURL}", prefix: "killed-${randomBytes(4).toString("hex")}:", leaseTTL: 1s}
agents:
  paced: {type: langgraph, url: "${lg.url}", graph: paced}
`;
  const trio = await Promise.all([0, 1, 2].map(() => startAdapter(yaml, { logLevel: "info" })));
  try {
    let timer;
    const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("the runs did not end within 60 s")), 60000)));
    await Promise.race([killed(trio, unread), late]).finally(() => clearTimeout(timer));
  } catch (e) {
    const tail = (x) => x.logs().split("\n").filter((l) => /taken over|offered|owner|claim|lease|runId/.test(l)).slice(-40).join("\n");
    e.message += "\n" + trio.map((x, i) => `--- instance ${"abc"[i]}\n${tail(x)}`).join("\n");
    throw e;
  } finally {
    for (const x of trio) await x.stop();
  }
}

async function killed([a, b, c], unread) {
  const whole = [];
  const wholeDone = start(b, "t-" + randomUUID(), "whole-" + randomUUID()).then((res) => sse(res, (_, e) => (whole.push(e), terminal(e))));
  const moved = [0, 1, 2].map(() => ({ runId: "killed-" + randomUUID(), seen: new Map(), lastId: 0, deltas: 0 }));
  let killedAt;
  const mid = () => moved.every((r) => r.deltas >= 5);
  await Promise.all(moved.map(async (r) => {
    await sse(await start(a, "t-" + randomUUID(), r.runId), (id, e) => {
      assert.ok(!r.seen.has(id), `event ${id} twice from the owner`);
      r.seen.set(id, e);
      r.lastId = id;
      if (e.type === "TEXT_MESSAGE_CONTENT") r.deltas++;
      if (!killedAt && mid()) {
        killedAt = Date.now();
        a.child.kill("SIGKILL");
      }
      return terminal(e);
    });
  }));
  assert.ok(killedAt, "the runs streamed five deltas each");
  for (const r of moved) assert.ok(![...r.seen.values()].some(terminal), "the killed instance ended no run");
  const takenOver = () => (b.logs() + c.logs()).match(/run taken over/g)?.length ?? 0;
  if (unread) {
    // No reader anywhere: the live instances' reapers find the runs.
    for (const until = Date.now() + 30000; takenOver() < moved.length && Date.now() < until; ) await new Promise((r) => setTimeout(r, 200));
    assert.equal(takenOver(), moved.length, "runs taken over with no reader within 30 s");
  }

  await Promise.all(moved.map(async (r) => {
    const res = await fetch(`${c.url}/runs/${r.runId}/events`, { headers: { accept: "text/event-stream", "last-event-id": String(r.lastId) } });
    await sse(res, (id, e) => {
      assert.ok(!r.seen.has(id), `event ${id} again after the resume`);
      r.seen.set(id, e);
      return terminal(e);
    });
  }));
  await wholeDone;
  assert.equal(whole.at(-1).type, "RUN_FINISHED");
  for (const r of moved) {
    const ids = [...r.seen.keys()];
    assert.deepEqual(ids, ids.map((_, i) => i + 1), "every sequence number once, in order");
    assert.deepEqual(shape([...r.seen.values()]), shape(whole), "the events of the uninterrupted run");
  }
  assert.equal(takenOver(), moved.length);
}
