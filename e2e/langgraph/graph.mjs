// Scripted LangGraph graphs (no LLM) served by `langgraphjs dev` for the
// e2e suite: token streaming, parallel tool calls through a ToolNode,
// interrupt/resume and a throwing node.
import { StateGraph, MessagesAnnotation, Annotation, START, END, interrupt } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { AIMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { FakeListChatModel } from "@langchain/core/utils/testing";

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
