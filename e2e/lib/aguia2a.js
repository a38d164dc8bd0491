// The AG-UI A2A bridge (@ag-ui/a2a 0.0.6, its A2AAgent on the @a2a-js/sdk
// 0.2.5 A2AClient it depends on) served as an AG-UI HTTP endpoint, in
// front of a real A2A agent (@a2a-js/sdk 0.3.14) whose card declares only
// the A2UI v0.8 extension. The bridge speaks v0.8: it sends the extension
// header and turns each v0.8 DataPart of an agent message into an
// a2ui-surface ACTIVITY_SNAPSHOT ({operations: []}) and ACTIVITY_DELTA
// (add /operations/-).
import http from "node:http";
import { randomUUID } from "node:crypto";
import express from "express";
import { EventEncoder } from "@ag-ui/encoder";

export const A2UI_V08_EXT = "https://a2ui.org/a2a-extension/a2ui/v0.8";

// startV08Agent starts the A2A agent: any message gets a working status,
// then a completed status whose message holds a text part and one
// application/json+a2ui DataPart per v0.8 message of ops. It records the
// extension header and the message it received.
export async function startV08Agent(ops) {
  const { DefaultRequestHandler, InMemoryTaskStore } = await import("a2a-sdk-03/server");
  const { agentCardHandler, jsonRpcHandler, UserBuilder } = await import("a2a-sdk-03/server/express");
  const received = [];
  let lastReq = null;
  const executor = {
    cancelTask: async () => {},
    async execute(rc, bus) {
      received.push({ ext: lastReq?.headers?.["x-a2a-extensions"], message: rc.userMessage });
      const ids = { taskId: rc.taskId, contextId: rc.contextId };
      const status = (state, parts, final) =>
        bus.publish({ kind: "status-update", ...ids, status: { state, message: { kind: "message", role: "agent", messageId: randomUUID(), parts, ...ids }, timestamp: new Date().toISOString() }, final });
      if (!rc.task) bus.publish({ kind: "task", id: rc.taskId, contextId: rc.contextId, status: { state: "submitted", timestamp: new Date().toISOString() }, history: [rc.userMessage] });
      status("working", [{ kind: "text", text: "Here is your order." }], false);
      status("completed", [{ kind: "text", text: "Here is your order." }, ...ops.map((m) => ({ kind: "data", data: m, metadata: { mimeType: "application/json+a2ui" } }))], true);
      bus.finished();
    },
  };
  const app = express();
  const server = http.createServer(app);
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${server.address().port}`;
  const card = {
    name: "Coffee agent (A2UI v0.8)", description: "Shows an order", url: `${url}/`, version: "1.0.0", protocolVersion: "0.3.0",
    capabilities: { streaming: true, pushNotifications: false, extensions: [{ uri: A2UI_V08_EXT, required: false }] },
    defaultInputModes: ["text"], defaultOutputModes: ["text"], skills: [{ id: "order", name: "Order", description: "Order", tags: ["order"] }],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use((req, _res, next) => { lastReq = req; next(); });
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: handler }));
  app.use(jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return { url, received, close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) };
}

// startBridge serves @ag-ui/a2a's A2AAgent for the A2A agent at a2aURL as
// an AG-UI endpoint (POST a RunAgentInput, get SSE frames made by
// @ag-ui/encoder), recording the events it emitted.
export async function startBridge(a2aURL) {
  const { A2AAgent } = await import("@ag-ui/a2a");
  const { A2AClient } = await import("@a2a-js/sdk/client");
  const emitted = [];
  const server = http.createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const input = JSON.parse(body);
    const agent = new A2AAgent({ a2aClient: new A2AClient(a2aURL, ".well-known/agent-card.json") });
    const enc = new EventEncoder();
    res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
    agent.run(input).subscribe({
      next: (e) => { emitted.push(e); res.write(enc.encode(e)); },
      error: () => res.end(),
      complete: () => res.end(),
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}`, emitted, close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) };
}
