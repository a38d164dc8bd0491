import { StateGraph, MessagesAnnotation, Annotation, START, END, interrupt } from "@langchain/langgraph";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";

// chat: a streaming model answers in chunks.
const model = new FakeListChatModel({ responses: ["Hello from LangGraph"] });
export const chat = new StateGraph(MessagesAnnotation)
  .addNode("model", async (s) => ({ messages: [await model.invoke(s.messages)] }))
  .addEdge(START, "model").addEdge("model", END).compile();

// tools: a tool call, its result, a final answer, state and a custom event.
const State = Annotation.Root({ ...MessagesAnnotation.spec, rows: Annotation() });
export const tools = new StateGraph(State)
  .addNode("plan", async () => ({ messages: [new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "list_orders", args: { status: "open" } }] })] }))
  .addNode("act", async (_s, config) => {
    config.writer?.({ progress: 1 });
    return { rows: [{ id: 1 }], messages: [new ToolMessage({ content: '{"orders":[{"id":1}]}', tool_call_id: "call_1" })] };
  })
  .addNode("answer", async () => ({ messages: [new AIMessage({ content: "One open order." })] }))
  .addEdge(START, "plan").addEdge("plan", "act").addEdge("act", "answer").addEdge("answer", END).compile();

// approve: pauses for a human decision, then answers with it.
export const approve = new StateGraph(MessagesAnnotation)
  .addNode("ask", async () => {
    const ok = interrupt({ question: "Refund order 1?" });
    return { messages: [new AIMessage({ content: "decision: " + JSON.stringify(ok) })] };
  })
  .addEdge(START, "ask").addEdge("ask", END).compile();

// fail: the node throws.
export const fail = new StateGraph(MessagesAnnotation)
  .addNode("boom", async () => { throw new Error("graph exploded"); })
  .addEdge(START, "boom").addEdge("boom", END).compile();
