// The @ag-ui/client versions a frontend may run, and a helper that
// runs one HttpAgent and records everything a test asserts on.
import { randomUUID } from "node:crypto";
import * as c057 from "agui-client-0057";
import * as c059 from "agui-client-0059";
import * as c100 from "agui-client-100";
import * as c104 from "agui-client-104";

export const clients = { "0.0.57": c057, "0.0.59": c059, "1.0.0": c100, "1.0.4": c104 };

// Console lines the clients print when they reject or rewrite something.
const warnings = [];
for (const level of ["warn", "error", "log", "info", "debug"]) {
  const orig = console[level].bind(console);
  console[level] = (...args) => {
    const line = args.map((a) => (typeof a === "string" ? a : a?.message ?? JSON.stringify(a))).join(" ");
    if (line.includes("[ag-ui]")) warnings.push(line);
    orig(...args);
  };
}

// runClient runs the agent at url with client version v and returns
// {messages, state, events, runErrors, failed, warnings, result}.
export async function runClient(v, url, { threadId = `thread-${randomUUID()}`, runId = randomUUID(), messages, forwardedProps } = {}) {
  const { HttpAgent } = clients[v];
  const agent = new HttpAgent({
    url,
    threadId,
    initialMessages: messages ?? [{ id: "u1", role: "user", content: "hello" }],
  });
  const seen = { events: [], runErrors: [], failed: [] };
  const before = warnings.length;
  let result;
  let rejected;
  try {
    result = await agent.runAgent(
      { runId, ...(forwardedProps ? { forwardedProps } : {}) },
      {
        onEvent: ({ event }) => { seen.events.push(event); },
        onRunErrorEvent: ({ event }) => { seen.runErrors.push(event); },
        onRunFailed: ({ error }) => { seen.failed.push(String(error?.message ?? error)); },
      },
    );
  } catch (e) {
    rejected = e;
  }
  return {
    ...seen,
    rejected,
    result,
    messages: agent.messages,
    state: agent.state,
    warnings: warnings.slice(before),
  };
}

// project keeps what a user sees of a message list, in a stable shape.
export function project(messages) {
  return messages.map((m) => {
    const o = { id: m.id, role: m.role };
    if (m.content !== undefined && m.content !== "") o.content = m.content;
    if (m.toolCalls?.length) o.toolCalls = m.toolCalls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }));
    if (m.toolCallId) o.toolCallId = m.toolCallId;
    if (m.activityType) o.activityType = m.activityType;
    return o;
  });
}
