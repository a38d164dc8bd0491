// ResumableHttpAgent (examples/resumable-http-agent) with the real
// @ag-ui/client versions: a proxy cuts the connection every few events;
// the plain HttpAgent fails, the resumable one ends with exactly the
// messages of an uncut run.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { Observable } from "rxjs";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { startAdapter } from "../lib/adapter.js";
import { startCutProxy } from "../lib/cutproxy.js";
import { clients, runClient, project } from "../lib/clients.js";
import { withResume } from "../../examples/resumable-http-agent/resumable-http-agent.mjs";

const execFileP = promisify(execFile);
let adapter, proxy;
before(async () => {
  adapter = await startAdapter("agents:\n  demo: {type: demo, delay: 2ms}\n");
  proxy = await startCutProxy(Number(new URL(adapter.url).port), 6, 9);
});
after(async () => {
  await proxy?.close();
  await adapter?.stop();
});

for (const v of Object.keys(clients)) {
  test(`${v}: ResumableHttpAgent survives a cut every 6 events`, async () => {
    const want = await runClient(v, `${adapter.url}/agents/demo/run`);
    assert.deepEqual(want.failed, []);

    const viaProxy = `http://127.0.0.1:${proxy.port}/agents/demo/run`;
    const { stdout } = await execFileP(process.execPath, [new URL("./plain-control.mjs", import.meta.url).pathname, v, viaProxy]);
    assert.equal(JSON.parse(stdout.trim().split("\n").at(-1)).failed, true, "the plain HttpAgent should fail when the connection is cut");

    const Resumable = withResume(clients[v].HttpAgent, Observable);
    const agent = new Resumable({ url: viaProxy, retryDelayMs: 5, maxRetries: 100, initialMessages: [{ id: "u1", role: "user", content: "hello" }] });
    const seen = [];
    const failed = [];
    const before = proxy.cuts();
    await agent.runAgent({}, { onEvent: ({ event }) => seen.push(event.type), onRunFailed: ({ error }) => failed.push(String(error)) });
    assert.deepEqual(failed, []);
    assert.ok(proxy.cuts() - before >= 5, `only ${proxy.cuts() - before} cuts`);
    // Same messages as the uncut run (ids embed the run id: compare shapes).
    const norm = (ms) => JSON.stringify(project(ms)).replaceAll(/[0-9a-f]{8}-[0-9a-f-]{27}/g, "RUN");
    assert.equal(norm(agent.messages), norm(want.messages));
    assert.equal(seen.filter((t) => t === "RUN_STARTED").length, 1, "no event was delivered twice");
    assert.equal(seen.at(-1), "RUN_FINISHED");
  });
}
