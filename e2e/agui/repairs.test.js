// `genui-adapter check` names, for each rule an upstream breaks, the
// @ag-ui/client versions the unrepaired stream breaks. Here each real client
// is fed one-fault streams directly, and the clients that fail must be
// exactly those check names (for a null field, which clients fail depends
// on the field: they must be among those named).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binary } from "../lib/adapter.js";
import { clients, runClient } from "../lib/clients.js";

const S = '{"type":"RUN_STARTED","threadId":"t","runId":"r"}';
const F = '{"type":"RUN_FINISHED","threadId":"t","runId":"r"}';
const step = (extra) => [`{"type":"STEP_STARTED","stepName":"s"${extra}}`, '{"type":"STEP_FINISHED","stepName":"s"}'];
const faults = {
  bad_usage: [S, '{"type":"RUN_FINISHED","threadId":"t","runId":"r","usage":"lots"}'],
  float_timestamp: [S, ...step(',"timestamp":1.5'), F],
  bad_timestamp: [S, ...step(',"timestamp":"x"'), F],
  bad_metadata: [S, ...step(',"metadata":"x"'), F],
  outcome_unknown: [S, '{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"weird"}}'],
  outcome_cancelled: [S, '{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"cancelled"}}'],
  unknown_event: [S, '{"type":"FOO_BAR"}', F],
  missing_run_started: [...step(""), F],
  tool_result_object: [S, '{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"x"}', '{"type":"TOOL_CALL_END","toolCallId":"c"}', '{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":{"a":1}}', F],
  null_parent: [S, '{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"x","parentMessageId":null}', '{"type":"TOOL_CALL_END","toolCallId":"c"}', F],
  null_role: [S, '{"type":"TEXT_MESSAGE_START","messageId":"m","role":null}', '{"type":"TEXT_MESSAGE_END","messageId":"m"}', F],
  empty_error: [S, '{"type":"RUN_ERROR"}'],
  duplicate_start: [S, S, F],
  orphan_content: [S, '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}', F],
  open_at_finish: [S, '{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}', F],
  after_terminal: [S, F, ...step("")],
};
const subset = new Set(["null_parent"]);

let srv, url, dir;
const streams = {};
before(async () => {
  srv = http.createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(streams[req.url.slice(1)] ?? "");
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${srv.address().port}`;
  dir = mkdtempSync(join(tmpdir(), "genui-repairs-"));
});
after(() => srv?.close());

// named runs check on the recording and returns the client versions it
// says the stream breaks.
function named(name) {
  const file = join(dir, `${name}.sse`);
  writeFileSync(file, streams[name]);
  const r = spawnSync(binary(), ["check", file], { encoding: "utf8" });
  const out = new Set();
  for (const m of r.stdout.matchAll(/breaks @ag-ui\/client ([0-9., ]+)/g)) {
    for (const v of m[1].split(",")) out.add(v.trim());
  }
  return { versions: [...out].sort(), stdout: r.stdout };
}

for (const [name, events] of Object.entries(faults)) {
  test(`check names the clients a raw ${name} stream breaks`, async () => {
    streams[name] = events.map((e) => `data: ${e}\n\n`).join("");
    const { versions, stdout } = named(name);
    assert.ok(versions.length > 0, `check names no client for ${name}:\n${stdout}`);
    const failing = [];
    for (const v of Object.keys(clients)) {
      const r = await runClient(v, `${url}/${name}`, { threadId: "t", runId: "r" });
      if (r.failed.length > 0 || r.rejected) failing.push(v);
    }
    failing.sort();
    if (subset.has(name)) {
      assert.ok(failing.length > 0 && failing.every((v) => versions.includes(v)), `${name}: clients failing ${failing}, check names ${versions}\n${stdout}`);
    } else {
      assert.deepEqual(failing, versions, `${name}: the clients that fail, against those check names\n${stdout}`);
    }
  });
}
