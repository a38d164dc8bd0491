// Real A2A agents for the e2e, written with the official JS SDK: one on
// protocol 0.3 (@a2a-js/sdk 0.3.14) and one on 1.0 (@a2a-js/sdk 1.3.0),
// both speaking the A2UI extension v0.9.1. The same script:
//   "orders"  → a working status with text, an artifact with a text part
//               and an A2UI DataPart (a list with a "pick" button), completed;
//   an A2UI action DataPart → text naming the picked id and an A2UI data
//               model update, completed;
//   "approve" → input-required with a question; the next message on that
//               task → "Approved: <answer>", completed;
//   "fail"    → failed with a message;
//   "slow"    → working for 10 s unless cancelled (tasks/cancel).
// Each agent records what it received (messages, headers).
import express from "express";
import { randomUUID } from "node:crypto";

export const A2UI_EXT = "https://a2ui.org/a2a-extension/a2ui/v0.9.1";
const CATALOG = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json";

export const ordersSurface = [
  { version: "v0.9.1", createSurface: { surfaceId: "orders", catalogId: CATALOG } },
  { version: "v0.9.1", updateComponents: { surfaceId: "orders", components: [
    { id: "root", component: "Column", children: ["title", "pick"] },
    { id: "title", component: "Text", text: { path: "/title" } },
    { id: "pick", component: "Button", child: "pickl", action: { event: { name: "pick", context: { id: "A-1" } } } },
    { id: "pickl", component: "Text", text: "Pick A-1" },
  ] } },
  { version: "v0.9.1", updateDataModel: { surfaceId: "orders", path: "/title", value: "2 open orders" } },
];
// One invalid message in the list: reported, the rest applied.
export const badMessage = { version: "v0.9.1", updateComponents: { surfaceId: "orders", components: [{ id: "x", component: "NoSuchThing" }] } };

function scriptFor(text, data) {
  if (data?.some?.((m) => m?.action)) {
    const a = data.find((m) => m.action).action;
    return { kind: "action", text: `You picked ${a.context?.id} on ${a.surfaceId}.`, a2ui: [{ version: "v0.9.1", updateDataModel: { surfaceId: a.surfaceId, path: "/title", value: "Picked " + a.context?.id } }] };
  }
  if (/approve/.test(text)) return { kind: "ask" };
  if (/fail/.test(text)) return { kind: "fail" };
  if (/slow/.test(text)) return { kind: "slow" };
  return { kind: "orders" };
}

function record(received, req, msg) {
  received.push({ headers: { ext: req?.headers?.["x-a2a-extensions"] ?? req?.headers?.["a2a-extensions"], version: req?.headers?.["a2a-version"], authorization: req?.headers?.authorization }, message: msg });
}

// --- protocol 0.3 ---
async function start03(received, ext) {
  const { DefaultRequestHandler, InMemoryTaskStore } = await import("a2a-sdk-03/server");
  const { agentCardHandler, jsonRpcHandler, UserBuilder } = await import("a2a-sdk-03/server/express");
  const cancelled = new Set();
  const lastReq = { req: null };
  const executor = {
    cancelTask: async (taskId) => { cancelled.add(taskId); received.push({ cancel: taskId }); },
    async execute(rc, bus) {
      const msg = rc.userMessage;
      record(received, lastReq.req, msg);
      const text = msg.parts.filter((p) => p.kind === "text").map((p) => p.text).join(" ");
      const data = msg.parts.filter((p) => p.kind === "data").flatMap((p) => (Array.isArray(p.data) ? p.data : [p.data]));
      const ids = { taskId: rc.taskId, contextId: rc.contextId };
      const agentMsg = (parts) => ({ kind: "message", role: "agent", messageId: randomUUID(), parts, ...ids });
      const status = (state, parts, final = false) => bus.publish({ kind: "status-update", ...ids, status: { state, message: parts ? agentMsg(parts) : undefined, timestamp: new Date().toISOString() }, final });
      if (!rc.task) bus.publish({ kind: "task", id: rc.taskId, contextId: rc.contextId, status: { state: "submitted", timestamp: new Date().toISOString() }, history: [msg] });
      if (rc.task?.status?.state === "input-required") {
        status("completed", [{ kind: "text", text: "Approved: " + text }], true);
        bus.finished();
        return;
      }
      const s = scriptFor(text, data);
      const a2ui = (list) => ({ kind: "data", data: list, metadata: { mimeType: "application/a2ui+json" } });
      switch (s.kind) {
        case "orders":
          status("working", [{ kind: "text", text: "Looking up orders…" }]);
          bus.publish({ kind: "artifact-update", ...ids, artifact: { artifactId: "orders-" + rc.taskId, parts: [{ kind: "text", text: "Here are your orders." }, a2ui([...ordersSurface, ...(text.includes("bad") ? [badMessage] : [])])] }, lastChunk: true });
          status("completed", null, true);
          break;
        case "action":
          status("completed", [{ kind: "text", text: s.text }, a2ui(s.a2ui)], true);
          break;
        case "ask":
          status("input-required", [{ kind: "text", text: "Approve the refund of 42 EUR?" }], true);
          break;
        case "fail":
          status("failed", [{ kind: "text", text: "the orders database is down" }], true);
          break;
        case "slow":
          status("working", [{ kind: "text", text: "Working slowly…" }]);
          for (let i = 0; i < 100 && !cancelled.has(rc.taskId); i++) await new Promise((r) => setTimeout(r, 100));
          status(cancelled.has(rc.taskId) ? "canceled" : "completed", null, true);
          break;
      }
      bus.finished();
    },
  };
  const app = express();
  const server = await listen(app);
  const card = {
    name: "Orders agent (A2A 0.3)", description: "Looks up orders", url: `${server.url}/`, version: "1.0.0", protocolVersion: "0.3.0",
    capabilities: { streaming: true, pushNotifications: false, extensions: [{ uri: ext, required: false, params: { supportedCatalogIds: [CATALOG] } }] },
    defaultInputModes: ["text"], defaultOutputModes: ["text"], skills: [{ id: "orders", name: "Orders", description: "Orders", tags: ["orders"] }],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use((req, _res, next) => { lastReq.req = req; next(); });
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: handler }));
  app.use(jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return server;
}

// --- protocol 1.0 ---
async function start10(received, ext) {
  const sdk = await import("a2a-sdk-1");
  const { DefaultRequestHandler, InMemoryTaskStore, AgentEvent } = await import("a2a-sdk-1/server");
  const { agentCardHandler, jsonRpcHandler, UserBuilder } = await import("a2a-sdk-1/server/express");
  const { TaskState, Role, A2A_PROTOCOL_VERSION } = sdk;
  const cancelled = new Set();
  const lastReq = { req: null };
  const textPart = (t) => ({ content: { $case: "text", value: t }, metadata: undefined, filename: "", mediaType: "text/plain" });
  const dataPart = (d) => ({ content: { $case: "data", value: d }, metadata: { mimeType: "application/a2ui+json" }, filename: "", mediaType: "application/a2ui+json" });
  const executor = {
    cancelTask: async (taskId) => { cancelled.add(taskId); received.push({ cancel: taskId }); },
    async execute(rc, bus) {
      const msg = rc.userMessage;
      record(received, lastReq.req, msg);
      const text = msg.parts.filter((p) => p.content?.$case === "text").map((p) => p.content.value).join(" ");
      const data = msg.parts.filter((p) => p.content?.$case === "data").flatMap((p) => (Array.isArray(p.content.value) ? p.content.value : [p.content.value]));
      const ids = { taskId: rc.taskId, contextId: rc.contextId };
      const agentMsg = (parts) => ({ role: Role.ROLE_AGENT, messageId: randomUUID(), parts, ...ids, extensions: [], metadata: {}, referenceTaskIds: [] });
      const status = (state, parts) => bus.publish(AgentEvent.statusUpdate({ ...ids, status: { state, message: parts ? agentMsg(parts) : undefined, timestamp: new Date().toISOString() }, metadata: {} }));
      const prior = rc.task;
      bus.publish(AgentEvent.task(prior ?? { id: rc.taskId, contextId: rc.contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: new Date().toISOString(), message: undefined }, artifacts: [], history: [msg], metadata: msg.metadata }));
      if (prior?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
        status(TaskState.TASK_STATE_COMPLETED, [textPart("Approved: " + text)]);
        bus.finished();
        return;
      }
      const s = scriptFor(text, data);
      switch (s.kind) {
        case "orders":
          status(TaskState.TASK_STATE_WORKING, [textPart("Looking up orders…")]);
          bus.publish(AgentEvent.artifactUpdate({ ...ids, artifact: { artifactId: "orders-" + rc.taskId, name: "orders", description: "", parts: [textPart("Here are your orders."), dataPart([...ordersSurface, ...(text.includes("bad") ? [badMessage] : [])])], metadata: undefined, extensions: [] }, lastChunk: true, append: false, metadata: undefined }));
          status(TaskState.TASK_STATE_COMPLETED);
          break;
        case "action":
          status(TaskState.TASK_STATE_COMPLETED, [textPart(s.text), dataPart(s.a2ui)]);
          break;
        case "ask":
          status(TaskState.TASK_STATE_INPUT_REQUIRED, [textPart("Approve the refund of 42 EUR?")]);
          break;
        case "fail":
          status(TaskState.TASK_STATE_FAILED, [textPart("the orders database is down")]);
          break;
        case "slow":
          status(TaskState.TASK_STATE_WORKING, [textPart("Working slowly…")]);
          for (let i = 0; i < 100 && !cancelled.has(rc.taskId); i++) await new Promise((r) => setTimeout(r, 100));
          status(cancelled.has(rc.taskId) ? TaskState.TASK_STATE_CANCELED : TaskState.TASK_STATE_COMPLETED);
          break;
      }
      bus.finished();
    },
  };
  const app = express();
  const server = await listen(app);
  const card = {
    name: "Orders agent (A2A 1.0)", description: "Looks up orders",
    supportedInterfaces: [{ url: `${server.url}/`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: A2A_PROTOCOL_VERSION }],
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications: false, extensions: [{ uri: ext, description: "A2UI", required: false, params: { supportedCatalogIds: [CATALOG] } }], extendedAgentCard: false },
    securitySchemes: {}, securityRequirements: [], defaultInputModes: ["text"], defaultOutputModes: ["text"],
    skills: [{ id: "orders", name: "Orders", description: "Orders", tags: ["orders"], examples: [], inputModes: ["text"], outputModes: ["text"], securityRequirements: [] }],
    documentationUrl: "", signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use((req, _res, next) => { lastReq.req = req; next(); });
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: handler }));
  app.use(jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return server;
}

async function listen(app) {
  const http = await import("node:http");
  const server = http.createServer(app);
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) };
}

// startA2A starts the agent of protocol version "0.3" or "1.0"; its card
// declares the A2UI extension ext (default v0.9.1).
export async function startA2A(version, { ext = A2UI_EXT } = {}) {
  const received = [];
  const server = version === "0.3" ? await start03(received, ext) : await start10(received, ext);
  return { ...server, received };
}
