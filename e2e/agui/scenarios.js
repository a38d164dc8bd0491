// Upstream scenarios. Each has `raw(input)`: the frames the upstream sends
// to the adapter (often broken on purpose), and `clean(input)`: the events a
// correct upstream would have sent, which the test streams straight to the
// same client version as the reference. `error` is the RUN_ERROR code the
// client must see, if any. Frames made with the official encoder where it
// can express them; raw text for what it won't produce.
import { EventEncoder } from "@ag-ui/encoder";

const enc = new EventEncoder();
export const sse = (events) => events.map((e) => enc.encodeSSE(e)).join("");
const raw = (o) => `data: ${JSON.stringify(o)}\n\n`;

const started = (i) => ({ type: "RUN_STARTED", threadId: i.threadId, runId: i.runId });
const finished = (i) => ({ type: "RUN_FINISHED", threadId: i.threadId, runId: i.runId });

function fullRun(i) {
  return [
    started(i),
    { type: "STEP_STARTED", stepName: "answer" },
    { type: "REASONING_START", messageId: "rs1" },
    { type: "REASONING_MESSAGE_START", messageId: "rm1", role: "reasoning" },
    { type: "REASONING_MESSAGE_CONTENT", messageId: "rm1", delta: "Looking up orders." },
    { type: "REASONING_MESSAGE_END", messageId: "rm1" },
    { type: "REASONING_END", messageId: "rs1" },
    { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "Here are " },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "your orders: ünïcødé ✓" },
    { type: "TEXT_MESSAGE_END", messageId: "m1" },
    { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "list_orders", parentMessageId: "m1" },
    { type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: '{"status":' },
    { type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: '"open"}' },
    { type: "TOOL_CALL_END", toolCallId: "c1" },
    { type: "TOOL_CALL_RESULT", messageId: "t1", toolCallId: "c1", content: JSON.stringify([{ id: 1, total: 9.5 }]) },
    { type: "STATE_SNAPSHOT", snapshot: { orders: 1, filters: { status: "open" } } },
    { type: "STATE_DELTA", delta: [{ op: "replace", path: "/orders", value: 2 }] },
    { type: "ACTIVITY_SNAPSHOT", messageId: "act1", activityType: "progress", content: { pct: 50 }, replace: true },
    { type: "ACTIVITY_DELTA", messageId: "act1", activityType: "progress", patch: [{ op: "replace", path: "/pct", value: 100 }] },
    { type: "CUSTOM", name: "note", value: { a: 1 } },
    { type: "STEP_FINISHED", stepName: "answer" },
    finished(i),
  ];
}

const truncMsg = "upstream agent ended the stream without RUN_FINISHED or RUN_ERROR";

export const scenarios = {
  full_run: { raw: (i) => sse(fullRun(i)), clean: fullRun },
  crlf: { raw: (i) => sse(fullRun(i)).replaceAll("\n", "\r\n"), clean: fullRun },
  comments_and_fields: {
    raw: (i) => ": hello\n\nretry: 1000\n\n" + fullRun(i).map((e, n) => `event: ${e.type}\nid: ${n}\n` + raw(e)).join(": ping\n\n"),
    clean: fullRun,
  },
  multiline_data: {
    raw: (i) => fullRun(i).map((e) => "data: " + JSON.stringify(e, null, 1).split("\n").join("\ndata: ") + "\n\n").join(""),
    clean: fullRun,
  },
  nulls: {
    raw: (i) =>
      raw({ ...started(i), parentRunId: null }) +
      raw({ type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant", name: null, metadata: null }) +
      raw({ type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "hi", rawEvent: null }) +
      raw({ type: "TEXT_MESSAGE_END", messageId: "m1" }) +
      raw({ type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "x", parentMessageId: null }) +
      raw({ type: "TOOL_CALL_END", toolCallId: "c1" }) +
      raw({ ...finished(i), outcome: null, result: null }),
    clean: (i) => [
      started(i),
      { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "hi" },
      { type: "TEXT_MESSAGE_END", messageId: "m1" },
      { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "x" },
      { type: "TOOL_CALL_END", toolCallId: "c1" },
      finished(i),
    ],
  },
  unknown_types: {
    raw: (i) => raw(started(i)) + raw({ type: "META", metaType: "x", payload: {} }) + raw({ type: "TEXT_MESSAGE_START", messageId: "m1" }) +
      raw({ type: "FUTURE_EVENT", x: 1 }) + raw({ type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "ok" }) + raw({ type: "TEXT_MESSAGE_END", messageId: "m1" }) + raw(finished(i)),
    clean: (i) => [started(i), { type: "TEXT_MESSAGE_START", messageId: "m1" }, { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "ok" }, { type: "TEXT_MESSAGE_END", messageId: "m1" }, finished(i)],
  },
  thinking_events: {
    raw: (i) => raw(started(i)) + raw({ type: "THINKING_START", title: "plan" }) + raw({ type: "THINKING_TEXT_MESSAGE_START" }) +
      raw({ type: "THINKING_TEXT_MESSAGE_CONTENT", delta: "step 1" }) + raw({ type: "THINKING_TEXT_MESSAGE_END" }) + raw({ type: "THINKING_END" }) +
      raw({ type: "TEXT_MESSAGE_START", messageId: "m1" }) + raw({ type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "done" }) + raw({ type: "TEXT_MESSAGE_END", messageId: "m1" }) + raw(finished(i)),
    clean: (i) => [
      started(i),
      { type: "REASONING_START", messageId: `${i.runId}-reasoning-1` },
      { type: "REASONING_MESSAGE_START", messageId: `${i.runId}-reasoning-message-2`, role: "reasoning" },
      { type: "REASONING_MESSAGE_CONTENT", messageId: `${i.runId}-reasoning-message-2`, delta: "step 1" },
      { type: "REASONING_MESSAGE_END", messageId: `${i.runId}-reasoning-message-2` },
      { type: "REASONING_END", messageId: `${i.runId}-reasoning-1` },
      { type: "TEXT_MESSAGE_START", messageId: "m1" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "done" },
      { type: "TEXT_MESSAGE_END", messageId: "m1" },
      finished(i),
    ],
  },
  chunk_events: {
    raw: (i) => sse([
      started(i),
      { type: "TEXT_MESSAGE_CHUNK", messageId: "m1", role: "assistant", delta: "Hel" },
      { type: "TEXT_MESSAGE_CHUNK", messageId: "m1", delta: "lo" },
      { type: "TOOL_CALL_CHUNK", toolCallId: "c1", toolCallName: "search", parentMessageId: "m1", delta: '{"q":' },
      { type: "TOOL_CALL_CHUNK", toolCallId: "c1", delta: '"x"}' },
      { type: "TOOL_CALL_RESULT", messageId: "t1", toolCallId: "c1", content: "found" },
      finished(i),
    ]),
    clean: (i) => [
      started(i),
      { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "Hel" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "lo" },
      { type: "TEXT_MESSAGE_END", messageId: "m1" },
      { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "search", parentMessageId: "m1" },
      { type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: '{"q":' },
      { type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: '"x"}' },
      { type: "TOOL_CALL_END", toolCallId: "c1" },
      { type: "TOOL_CALL_RESULT", messageId: "t1", toolCallId: "c1", content: "found" },
      finished(i),
    ],
  },
  missing_terminal: {
    raw: (i) => sse([started(i), { type: "TEXT_MESSAGE_START", messageId: "m1" }, { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "partial" }]),
    clean: (i) => [started(i), { type: "TEXT_MESSAGE_START", messageId: "m1" }, { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "partial" }, { type: "RUN_ERROR", message: truncMsg, code: "upstream_truncated" }],
    error: "upstream_truncated",
  },
  double_terminal: {
    raw: (i) => sse([started(i), { type: "TEXT_MESSAGE_START", messageId: "m1" }, { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "a" }, { type: "TEXT_MESSAGE_END", messageId: "m1" }, finished(i), { type: "RUN_ERROR", message: "late" }, finished(i)]),
    clean: (i) => [started(i), { type: "TEXT_MESSAGE_START", messageId: "m1" }, { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "a" }, { type: "TEXT_MESSAGE_END", messageId: "m1" }, finished(i)],
  },
  open_text_at_finish: {
    raw: (i) => sse([started(i), { type: "STEP_STARTED", stepName: "s" }, { type: "TEXT_MESSAGE_START", messageId: "m1" }, { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "unfinished" }, { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "t" }, finished(i)]),
    clean: (i) => [started(i), { type: "STEP_STARTED", stepName: "s" }, { type: "TEXT_MESSAGE_START", messageId: "m1" }, { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "unfinished" }, { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "t" }, { type: "TOOL_CALL_END", toolCallId: "c1" }, { type: "TEXT_MESSAGE_END", messageId: "m1" }, { type: "STEP_FINISHED", stepName: "s" }, finished(i)],
  },
  missing_run_started_and_wrong_ids: {
    raw: (i) => sse([{ type: "TEXT_MESSAGE_START", messageId: "m1" }, { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "x" }, { type: "TEXT_MESSAGE_END", messageId: "m1" }, { type: "RUN_FINISHED", threadId: "other", runId: "other" }]),
    clean: (i) => [started(i), { type: "TEXT_MESSAGE_START", messageId: "m1" }, { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "x" }, { type: "TEXT_MESSAGE_END", messageId: "m1" }, finished(i)],
  },
  subagents_and_cancelled: {
    raw: (i) => raw(started(i)) + raw({ type: "SUBAGENT_STARTED", subagentRunId: "sa", name: "helper" }) + raw({ type: "TEXT_MESSAGE_START", messageId: "m1", subagentRunId: "sa" }) +
      raw({ type: "TEXT_MESSAGE_END", messageId: "m1", subagentRunId: "sa" }) + raw({ type: "SUBAGENT_FINISHED", subagentRunId: "sa" }) + raw({ ...finished(i), outcome: { type: "cancelled" } }),
    clean: (i) => [started(i), { type: "CUSTOM", name: "SUBAGENT_STARTED", value: { type: "SUBAGENT_STARTED", subagentRunId: "sa", name: "helper" } }, { type: "TEXT_MESSAGE_START", messageId: "m1" }, { type: "TEXT_MESSAGE_END", messageId: "m1" }, { type: "CUSTOM", name: "SUBAGENT_FINISHED", value: { type: "SUBAGENT_FINISHED", subagentRunId: "sa" } }, finished(i)],
  },
  tool_result_shapes_and_timestamps: {
    raw: (i) => raw(started(i)) + raw({ type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "t", timestamp: 1732900000000.5 }) + raw({ type: "TOOL_CALL_END", toolCallId: "c1", timestamp: "now" }) +
      raw({ type: "TOOL_CALL_RESULT", messageId: "t1", toolCallId: "c1", content: [{ type: "text", text: "line 1" }, { type: "text", text: "line 2" }] }) +
      raw({ type: "TOOL_CALL_RESULT", messageId: "t2", toolCallId: "c1", content: { rows: [1] } }) + raw(finished(i)),
    clean: (i) => [started(i), { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "t", timestamp: 1732900000000 }, { type: "TOOL_CALL_END", toolCallId: "c1" }, { type: "TOOL_CALL_RESULT", messageId: "t1", toolCallId: "c1", content: "line 1\nline 2" }, { type: "TOOL_CALL_RESULT", messageId: "t2", toolCallId: "c1", content: '{"rows":[1]}' }, finished(i)],
  },
  huge_event: {
    // 12 MiB in one event: above the adapter's 10 MiB cap (and the clients').
    raw: (i) => [sse([started(i), { type: "TEXT_MESSAGE_START", messageId: "m1" }]), "data: " + JSON.stringify({ type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "x".repeat(12 << 20) }) + "\n\n", sse([{ type: "TEXT_MESSAGE_END", messageId: "m1" }, finished(i)])],
    clean: (i) => [started(i), { type: "TEXT_MESSAGE_START", messageId: "m1" }, { type: "RUN_ERROR", message: "upstream sent an event larger than the configured limit", code: "upstream_event_too_large" }],
    error: "upstream_event_too_large",
  },
  garbage: {
    raw: (i) => sse([started(i)]) + "data: {this is not json\n\n" + sse([finished(i)]),
    clean: (i) => [started(i), { type: "RUN_ERROR", message: "upstream sent data that is not an AG-UI event", code: "upstream_invalid" }],
    error: "upstream_invalid",
  },
};
