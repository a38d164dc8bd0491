"""Python graphs served by the LangGraph Agent Server (`langgraph dev`) for
the e2e suite, written the way CopilotKit + LangGraph apps write them, with
a deterministic chat model (no network LLM).

The same graphs are served by the official Python AG-UI endpoint
(reference.py) so the adapter can be compared with it.
"""

import asyncio
import json
from typing import Any, List, Optional

from copilotkit import CopilotKitState
from copilotkit.langgraph import (
    copilotkit_customize_config,
    copilotkit_emit_message,
    copilotkit_emit_state,
    copilotkit_exit,
)
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import interrupt
from typing_extensions import TypedDict


class ScriptedChatModel(BaseChatModel):
    """A chat model that streams a scripted answer chosen from the last
    message: after a tool result it answers with the result; to a user
    message, with a tool call when tools are bound, else with `answer`
    (word by word). `tool_calls` scripts a tool call streamed as argument
    fragments, as providers stream them."""

    answer: str = "Hello from LangGraph, streamed token by token."
    tool_calls: Optional[List[dict]] = None
    bound_tools: List[str] = []

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        names = [getattr(t, "name", None) or t.get("name") for t in tools]
        return self.model_copy(update={"bound_tools": names})

    def _chunks(self, messages: List[BaseMessage]) -> List[AIMessageChunk]:
        last = messages[-1] if messages else None
        if isinstance(last, ToolMessage):
            return [AIMessageChunk(content=w) for w in _words(f"The tool said: {last.content}")]
        calls = self.tool_calls
        if calls is None and "get_weather" in self.bound_tools:
            city = "Paris"
            if isinstance(last, HumanMessage) and isinstance(last.content, str) and "in " in last.content:
                city = last.content.rsplit("in ", 1)[1].strip(" ?.!") or city
            calls = [{"id": "call_weather", "name": "get_weather", "args": {"city": city}}]
        if calls:
            chunks = []
            for i, c in enumerate(calls):
                args = json.dumps(c["args"])
                half = len(args) // 2
                chunks.append(AIMessageChunk(content="", tool_call_chunks=[{"id": c["id"], "name": c["name"], "args": args[:half], "index": i}]))
                chunks.append(AIMessageChunk(content="", tool_call_chunks=[{"id": None, "name": None, "args": args[half:], "index": i}]))
            return chunks
        return [AIMessageChunk(content=w) for w in _words(self.answer)]

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        msg = None
        for c in self._chunks(messages):
            msg = c if msg is None else msg + c
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=msg.content, tool_calls=msg.tool_calls))])

    async def _astream(self, messages, stop=None, run_manager: Optional[AsyncCallbackManagerForLLMRun] = None, **kwargs):
        for c in self._chunks(messages):
            await asyncio.sleep(0.005)
            chunk = ChatGenerationChunk(message=c)
            if run_manager:
                await run_manager.on_llm_new_token(c.content if isinstance(c.content, str) else "", chunk=chunk)
            yield chunk


def _words(text: str) -> List[str]:
    parts = text.split(" ")
    return [p + (" " if i < len(parts) - 1 else "") for i, p in enumerate(parts)]


# chat: the model streams its answer token by token.
async def chat_node(state: CopilotKitState, config: RunnableConfig):
    response = await ScriptedChatModel().ainvoke(state["messages"], config)
    return {"messages": [response]}


chat = StateGraph(CopilotKitState).add_node("chat_node", chat_node).add_edge(START, "chat_node").add_edge("chat_node", END).compile()


# tools: the model calls a tool, a ToolNode runs it, the model answers.
@tool
def get_weather(city: str) -> str:
    """Get the weather in a city."""
    return json.dumps({"city": city, "sky": "sunny", "celsius": 21})


async def agent_node(state: CopilotKitState, config: RunnableConfig):
    model = ScriptedChatModel().bind_tools([get_weather])
    return {"messages": [await model.ainvoke(state["messages"], config)]}


tools = (
    StateGraph(CopilotKitState)
    .add_node("agent", agent_node)
    .add_node("tools", ToolNode([get_weather]))
    .add_edge(START, "agent")
    .add_conditional_edges("agent", tools_condition)
    .add_edge("tools", "agent")
    .compile()
)


# approve: pauses for a human decision, then answers with it.
async def ask_node(state: CopilotKitState, config: RunnableConfig):
    decision = interrupt({"question": "Refund order A-1?"})
    return {"messages": [AIMessage(content="Decision: " + json.dumps(decision, separators=(",", ":")))]}


approve = StateGraph(CopilotKitState).add_node("ask", ask_node).add_edge(START, "ask").add_edge("ask", END).compile()


# helpers: CopilotKit's Python helpers inside a node: an emitted message and
# state, a model call hidden from the user (emit_messages=False), a
# predicted state key (emit_intermediate_state) and exit.
class HelperState(CopilotKitState):
    progress: float
    steps: List[str]


async def work_node(state: HelperState, config: RunnableConfig):
    await copilotkit_emit_message(config, "Working on it")
    await copilotkit_emit_state(config, {"progress": 0.5})
    quiet = ScriptedChatModel(answer="internal notes nobody should see")
    await quiet.ainvoke(state["messages"], copilotkit_customize_config(config, emit_messages=False))
    planner = ScriptedChatModel(tool_calls=[{"id": "call_plan", "name": "write_plan", "args": {"steps": ["a", "b"]}}])
    await planner.ainvoke(
        state["messages"],
        copilotkit_customize_config(config, emit_intermediate_state=[{"state_key": "steps", "tool": "write_plan", "tool_argument": "steps"}]),
    )
    await copilotkit_exit(config)
    return {"progress": 1, "steps": ["a", "b"], "messages": [AIMessage(content="Done.")]}


helpers = StateGraph(HelperState).add_node("work", work_node).add_edge(START, "work").add_edge("work", END).compile()


# nested: a research subgraph (its own model streams) inside a parent that
# then summarises.
async def search_node(state: MessagesState, config: RunnableConfig):
    return {"messages": [await ScriptedChatModel(answer="Found three sources.").ainvoke(state["messages"], config)]}


research = StateGraph(MessagesState).add_node("search", search_node).add_edge(START, "search").add_edge("search", END).compile()


async def summary_node(state: CopilotKitState, config: RunnableConfig):
    return {"messages": [AIMessage(content="Summary: three sources.")]}


nested = (
    StateGraph(CopilotKitState)
    .add_node("research", research)
    .add_node("summary", summary_node)
    .add_edge(START, "research")
    .add_edge("research", "summary")
    .add_edge("summary", END)
    .compile()
)


# fail: the node raises.
async def boom_node(state: CopilotKitState, config: RunnableConfig):
    raise ValueError("graph exploded on purpose")


fail = StateGraph(CopilotKitState).add_node("boom", boom_node).add_edge(START, "boom").add_edge("boom", END).compile()


# private: a key the graph keeps to itself, hidden by its input and output
# schemas (LangGraph's "private state").
class PrivateInput(CopilotKitState):
    topic: str


class PrivateOutput(CopilotKitState):
    answer: str


class PrivateOverall(PrivateInput, PrivateOutput):
    secret: str


async def think_node(state: PrivateOverall, config: RunnableConfig):
    return {"secret": "s3cr3t-scratchpad", "answer": "42"}


async def reply_node(state: PrivateOverall, config: RunnableConfig):
    return {"messages": [AIMessage(content="The answer is " + state["answer"] + ".")]}


private = (
    StateGraph(PrivateOverall, input_schema=PrivateInput, output_schema=PrivateOutput)
    .add_node("think", think_node)
    .add_node("reply", reply_node)
    .add_edge(START, "think")
    .add_edge("think", "reply")
    .add_edge("reply", END)
    .compile()
)

GRAPHS = {"chat": chat, "tools": tools, "approve": approve, "helpers": helpers, "nested": nested, "fail": fail, "private": private}
