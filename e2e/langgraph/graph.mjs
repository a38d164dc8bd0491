// Scripted LangGraph graphs (no LLM) served by `langgraphjs dev` for the
// e2e suite: token streaming, parallel tool calls through a ToolNode,
// interrupt/resume (one; two in one step; two in parallel tool calls), a
// throwing node, a reasoning stream, a subgraph, a graph that shows the
// configurable it was given and CopilotKit's helpers.
import { StateGraph, MessagesAnnotation, Annotation, START, END, interrupt } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { AIMessage, AIMessageChunk } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ChatGenerationChunk } from "@langchain/core/outputs";
import { copilotkitCustomizeConfig, copilotkitEmitMessage, copilotkitEmitState, copilotkitEmitToolCall, copilotkitExit } from "@copilotkit/sdk-js/langgraph";

// ScriptedChatModel streams the chunks it is given exactly as they are
// (FakeStreamingChatModel drops tool_call_chunks and ids), as a provider
// streams them: tool call chunks, reasoning blocks.
class ScriptedChatModel extends BaseChatModel {
  constructor(chunks) { super({}); this.chunks = chunks; }
  _llmType() { return "scripted"; }
  async _generate() { throw new Error("stream only"); }
  async *_streamResponseChunks(_messages, _options, runManager) {
    for (const message of this.chunks) {
      await new Promise((r) => setTimeout(r, 5));
      const chunk = new ChatGenerationChunk({ message, text: typeof message.content === "string" ? message.content : "" });
      yield chunk;
      await runManager?.handleLLMNewToken(chunk.text, undefined, undefined, undefined, undefined, { chunk });
    }
  }
}

// chat: a fake chat model streams its answer token by token.
export const chat = new StateGraph(MessagesAnnotation)
  .addNode("model", async (s) => {
    const model = new FakeListChatModel({ responses: ["Hello from LangGraph, streamed token by token."] });
    return { messages: [await model.invoke(s.messages)] };
  })
  .addEdge(START, "model").addEdge("model", END).compile();

// tools: one AI message with two parallel tool calls, a ToolNode whose
// tools return JSON, state beside the messages, a custom event, an answer.
const listOrders = tool(async ({ status }) => JSON.stringify([
  { id: "A-1", customer: "Ada", total: 42.5, status },
  { id: "A-2", customer: "Grace", total: 17, status },
]), { name: "list_orders", description: "List orders", schema: { type: "object", properties: { status: { type: "string" } } } });
const getTotals = tool(async () => JSON.stringify({ orders: 2, revenue: 59.5 }),
  { name: "get_totals", description: "Totals", schema: { type: "object", properties: {} } });
const State = Annotation.Root({ ...MessagesAnnotation.spec, step: Annotation() });
export const tools = new StateGraph(State)
  .addNode("plan", async (_s, config) => {
    config.writer?.({ planning: true });
    return {
      step: "planned",
      messages: [new AIMessage({ content: "", tool_calls: [
        { id: "call_orders", name: "list_orders", args: { status: "open" } },
        { id: "call_totals", name: "get_totals", args: {} },
      ] })],
    };
  })
  .addNode("tools", new ToolNode([listOrders, getTotals]))
  .addNode("answer", async () => ({ step: "answered", messages: [new AIMessage({ content: "Two open orders, 59.5 in total." })] }))
  .addEdge(START, "plan").addEdge("plan", "tools").addEdge("tools", "answer").addEdge("answer", END).compile();

// approve: pauses for a human decision, then answers with it.
export const approve = new StateGraph(MessagesAnnotation)
  .addNode("ask", async () => {
    const decision = interrupt({ question: "Refund order A-1?" });
    return { messages: [new AIMessage({ content: "Decision: " + JSON.stringify(decision) })] };
  })
  .addEdge(START, "ask").addEdge("ask", END).compile();

// slow: streams one token every 100 ms for a minute, so a test can stop it.
export const slow = new StateGraph(MessagesAnnotation)
  .addNode("model", async (s) => {
    const model = new FakeListChatModel({ responses: ["tick ".repeat(600)], sleep: 100 });
    return { messages: [await model.invoke(s.messages)] };
  })
  .addEdge(START, "model").addEdge("model", END).compile();

// paced: streams some seventy characters, one every 60 ms, and finishes: a run long
// enough to be handed over mid-stream (handover.test.js), short enough to
// be read whole.
export const paced = new StateGraph(MessagesAnnotation)
  .addNode("model", async (s) => {
    const model = new FakeListChatModel({ responses: [Array.from({ length: 20 }, (_, i) => `t${i} `).join("")], sleep: 60 });
    return { messages: [await model.invoke(s.messages)] };
  })
  .addEdge(START, "model").addEdge("model", END).compile();

// mcp: calls a tool the client (the adapter's MCP Apps middleware)
// offered in the "ag-ui" input channel, then answers with its result.
const McpState = Annotation.Root({ ...MessagesAnnotation.spec, "ag-ui": Annotation() });
export const mcp = new StateGraph(McpState)
  .addNode("agent", async (s) => {
    const last = s.messages.at(-1);
    if (last?.getType?.() === "tool") {
      const text = typeof last.content === "string" ? last.content : JSON.stringify(last.content);
      return { messages: [new AIMessage({ content: "Policy says: " + text.slice(0, 60) })] };
    }
    const names = (s["ag-ui"]?.tools ?? []).map((t) => t.name);
    const policy = names.find((n) => n.endsWith("refund_policy"));
    if (!policy) return { messages: [new AIMessage({ content: "No policy tool among: " + names.join(", ") })] };
    return { messages: [new AIMessage({ content: "", tool_calls: [{ id: "call_policy_" + s.messages.length, name: policy, args: {} }] })] };
  })
  .addEdge(START, "agent").addEdge("agent", END).compile();

// fail: the node throws.
export const fail = new StateGraph(MessagesAnnotation)
  .addNode("boom", async () => { throw new Error("graph exploded on purpose"); })
  .addEdge(START, "boom").addEdge("boom", END).compile();

// reason: a reasoning model's stream: reasoning blocks first, then the
// answer (the shape OpenAI's reasoning summaries take in LangChain).
export const reason = new StateGraph(MessagesAnnotation)
  .addNode("model", async (s) => {
    const model = new ScriptedChatModel([
      new AIMessageChunk({ id: "reasoned", content: [{ type: "reasoning", summary: [{ type: "summary_text", text: "The user greets; " }] }] }),
      new AIMessageChunk({ id: "reasoned", content: [{ type: "reasoning", summary: [{ type: "summary_text", text: "answer politely." }] }] }),
      new AIMessageChunk({ id: "reasoned", content: "Hello, " }),
      new AIMessageChunk({ id: "reasoned", content: "after thinking." }),
    ]);
    return { messages: [await model.invoke(s.messages)] };
  })
  .addEdge(START, "model").addEdge("model", END).compile();

// nested: a research subgraph (its own model streams) inside a parent
// that then summarises.
const research = new StateGraph(MessagesAnnotation)
  .addNode("search", async (s) => {
    const model = new FakeListChatModel({ responses: ["Found three sources."] });
    return { messages: [await model.invoke(s.messages)] };
  })
  .addEdge(START, "search").addEdge("search", END).compile();
export const nested = new StateGraph(MessagesAnnotation)
  .addNode("research", research)
  .addNode("summary", async () => ({ messages: [new AIMessage({ content: "Summary: three sources." })] }))
  .addEdge(START, "research").addEdge("research", "summary").addEdge("summary", END).compile();

// whoami: answers with the principal and the configurable keys it got.
export const whoami = new StateGraph(MessagesAnnotation)
  .addNode("answer", async (_s, config) => {
    const c = config?.configurable ?? {};
    const seen = Object.fromEntries(["genui_principal", "model", "user_id"].filter((k) => k in c).map((k) => [k, c[k]]));
    return { messages: [new AIMessage({ content: "configurable: " + JSON.stringify(seen) })] };
  })
  .addEdge(START, "answer").addEdge("answer", END).compile();

// helpers: @copilotkit/sdk-js's LangGraph helpers inside a node (the real
// package, pinned; its zod 3 peer is overridden to the zod 4 the rest of
// the tree uses, which its LangGraph helpers do not touch): emit a
// message, a tool call and state, a model call hidden from the user
// (emitMessages: false), a predicted state key (emitIntermediateState),
// and exit.
const HelperState = Annotation.Root({ ...MessagesAnnotation.spec, progress: Annotation(), steps: Annotation() });
export const helpers = new StateGraph(HelperState)
  .addNode("work", async (s, config) => {
    await copilotkitEmitMessage(config, "Working on it");
    await copilotkitEmitToolCall(config, "show_progress", { percent: 50 }, { toolCallId: "emit-call-1" });
    await copilotkitEmitState(config, { progress: 0.5 });
    const quiet = new FakeListChatModel({ responses: ["internal notes nobody should see"] });
    await quiet.invoke(s.messages, copilotkitCustomizeConfig(config, { emitMessages: false }));
    const planner = new ScriptedChatModel([
      new AIMessageChunk({ id: "plan-msg", content: "", tool_call_chunks: [{ id: "call_plan", name: "write_plan", args: '{"steps":', index: 0 }] }),
      new AIMessageChunk({ id: "plan-msg", content: "", tool_call_chunks: [{ args: '["a","b"]}', index: 0 }] }),
    ]);
    await planner.invoke(s.messages, copilotkitCustomizeConfig(config, { emitIntermediateState: [{ tool: "write_plan", toolArgument: "steps", stateKey: "steps" }] }));
    await copilotkitExit(config);
    return { progress: 1, steps: ["a", "b"], messages: [new AIMessage({ content: "Done." })] };
  })
  .addEdge(START, "work").addEdge("work", END).compile();

// parallel: two branches ask for a decision in the same step; the join
// answers with both (each interrupt is resumed by its id).
const Decisions = Annotation.Root({ ...MessagesAnnotation.spec, decisions: Annotation({ reducer: (a, b) => ({ ...a, ...b }), default: () => ({}) }) });
const sorted = (o) => JSON.stringify(Object.fromEntries(Object.entries(o).sort()));
export const parallel = new StateGraph(Decisions)
  .addNode("refund", async () => ({ decisions: { refund: interrupt({ question: "Refund order A-1?" }) } }))
  .addNode("ship", async () => ({ decisions: { ship: interrupt({ question: "Ship order A-2?" }) } }))
  .addNode("answer", async (s) => ({ messages: [new AIMessage({ content: "Decisions: " + sorted(s.decisions) })] }))
  .addEdge(START, "refund").addEdge(START, "ship").addEdge(["refund", "ship"], "answer").addEdge("answer", END).compile();

// gated: one AI message with two tool calls, run in parallel by a
// ToolNode whose tools each ask for approval before they act.
const gatedTool = (name) => tool(async ({ order }) => JSON.stringify({ tool: name, order, decision: interrupt({ tool: name, order }) }),
  { name, description: name, schema: { type: "object", properties: { order: { type: "string" } } } });
export const gated = new StateGraph(MessagesAnnotation)
  .addNode("plan", async () => ({ messages: [new AIMessage({ content: "", tool_calls: [
    { id: "call_refund", name: "refund", args: { order: "A-1" } },
    { id: "call_cancel", name: "cancel", args: { order: "A-2" } },
  ] })] }))
  .addNode("tools", new ToolNode([gatedTool("refund"), gatedTool("cancel")]))
  .addNode("answer", async (s) => ({ messages: [new AIMessage({ content: "Done: " + s.messages.filter((m) => m.getType() === "tool").map((m) => m.content).join(" | ") })] }))
  .addEdge(START, "plan").addEdge("plan", "tools").addEdge("tools", "answer").addEdge("answer", END).compile();
