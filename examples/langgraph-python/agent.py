"""A LangGraph agent written the way CopilotKit + LangGraph apps write it:
CopilotKitState, a model bound to tools, a ToolNode, CopilotKit's helpers.

It runs without an API key: ScriptedChatModel stands in for a chat model
(it calls get_weather, then answers with its result). With a real model,
replace `ScriptedChatModel()` with e.g. `ChatOpenAI(model="gpt-4o-mini")`
(pip install langchain-openai; export OPENAI_API_KEY=...).
"""

import asyncio
import json
from typing import List, Optional

from copilotkit import CopilotKitState
from copilotkit.langgraph import copilotkit_emit_state
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import START, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition


@tool
def get_weather(city: str) -> str:
    """Get the weather in a city."""
    return json.dumps({"city": city, "sky": "sunny", "celsius": 21})


class AgentState(CopilotKitState):
    searches: int


class ScriptedChatModel(BaseChatModel):
    """Calls get_weather for the city the user names, then answers with
    the result, streamed word by word."""

    tools: List[str] = []

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        return self.model_copy(update={"tools": [t.name for t in tools]})

    def _chunks(self, messages) -> List[AIMessageChunk]:
        last = messages[-1]
        if isinstance(last, ToolMessage):
            w = json.loads(last.content)
            text = f"It is {w['sky']} in {w['city']}, {w['celsius']} °C."
            words = text.split(" ")
            return [AIMessageChunk(content=w + (" " if i < len(words) - 1 else "")) for i, w in enumerate(words)]
        city = str(last.content).rsplit(" in ", 1)[-1].strip(" ?.!") if " in " in str(last.content) else "Paris"
        args = json.dumps({"city": city})
        return [AIMessageChunk(content="", tool_call_chunks=[{"id": "call_weather", "name": "get_weather", "args": args, "index": 0}])]

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        msg = None
        for c in self._chunks(messages):
            msg = c if msg is None else msg + c
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=msg.content, tool_calls=msg.tool_calls))])

    async def _astream(self, messages, stop=None, run_manager: Optional[object] = None, **kwargs):
        for c in self._chunks(messages):
            await asyncio.sleep(0.05)
            chunk = ChatGenerationChunk(message=c)
            if run_manager:
                await run_manager.on_llm_new_token(c.content, chunk=chunk)
            yield chunk


async def chat_node(state: AgentState, config: RunnableConfig):
    searches = state.get("searches", 0)
    if isinstance(state["messages"][-1], ToolMessage):
        searches += 1
        await copilotkit_emit_state(config, {"searches": searches})
    model = ScriptedChatModel().bind_tools([get_weather])
    response = await model.ainvoke(state["messages"], config)
    return {"messages": [response], "searches": searches}


graph = (
    StateGraph(AgentState)
    .add_node("chat_node", chat_node)
    .add_node("tools", ToolNode([get_weather]))
    .add_edge(START, "chat_node")
    .add_conditional_edges("chat_node", tools_condition)
    .add_edge("tools", "chat_node")
    .compile()
)
