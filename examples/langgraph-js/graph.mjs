// A LangGraph.js agent for the genui-adapter quickstart: it looks up
// orders with a tool (its JSON result shows as an A2UI table), asks a
// human before a refund (interrupt), and reports progress with
// CopilotKit's helpers. The model is a scripted stand-in so the example
// runs with no API key: replace `model` with a real chat model, e.g.
//   import { ChatOpenAI } from "@langchain/openai";
//   const model = new ChatOpenAI({ model: "gpt-4o-mini" }).bindTools(tools);
import { StateGraph, MessagesAnnotation, START, END, interrupt } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { AIMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { copilotkitEmitState } from "@copilotkit/sdk-js/langgraph";

const listOrders = tool(async ({ status }) => JSON.stringify([
  { id: "A-1", customer: "Ada", total: 42.5, status },
  { id: "A-2", customer: "Grace", total: 17, status },
]), { name: "list_orders", description: "List orders by status", schema: { type: "object", properties: { status: { type: "string" } } } });
const refund = tool(async ({ order }) => {
  const decision = interrupt({ question: `Refund order ${order}?`, order });
  return decision?.approved ? `Order ${order} refunded.` : `Refund of ${order} declined.`;
}, { name: "refund", description: "Refund an order (asks a human first)", schema: { type: "object", properties: { order: { type: "string" } } } });
const tools = [listOrders, refund];

// The scripted model: "refund" asks for a refund, anything else lists
// the open orders; after a tool ran it sums up.
const model = {
  async invoke(messages) {
    const last = messages.at(-1);
    if (last.getType() === "tool") return new AIMessage({ content: "Done: " + String(last.content).slice(0, 200) });
    const text = String(last.content).toLowerCase();
    const call = text.includes("refund")
      ? { id: "call_refund_" + messages.length, name: "refund", args: { order: "A-1" } }
      : { id: "call_orders_" + messages.length, name: "list_orders", args: { status: "open" } };
    return new AIMessage({ content: "", tool_calls: [call] });
  },
};

export const agent = new StateGraph(MessagesAnnotation)
  .addNode("agent", async (s, config) => {
    await copilotkitEmitState(config, { thinking: true });
    return { messages: [await model.invoke(s.messages)] };
  })
  .addNode("tools", new ToolNode(tools))
  .addEdge(START, "agent")
  .addConditionalEdges("agent", (s) => (s.messages.at(-1).tool_calls?.length ? "tools" : END))
  .addEdge("tools", "agent")
  .compile();
