"""The reference the adapter is compared with: the official Python AG-UI
endpoint (ag-ui-langgraph's add_langgraph_fastapi_endpoint) serving the
graphs of agent.py in-process, each as CopilotKit's Python docs serve a
LangGraph agent (copilotkit.LangGraphAGUIAgent, an in-memory checkpointer).

Usage: python reference.py PORT   (agents at /agents/{graph} and
/agents/{graph}-outcome, GET /ok)
"""

import sys

import uvicorn
from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint
from copilotkit import LangGraphAGUIAgent
from fastapi import FastAPI
from langgraph.checkpoint.memory import MemorySaver

from agent import GRAPHS

app = FastAPI()


@app.get("/ok")
def ok():
    return {"ok": True}


for name, graph in GRAPHS.items():
    compiled = graph.builder.compile(checkpointer=MemorySaver())
    add_langgraph_fastapi_endpoint(app, LangGraphAGUIAgent(name=name, graph=compiled), path=f"/agents/{name}")
    # The same graph ending an interrupted run with AG-UI 1.0's
    # RUN_FINISHED outcome (opt-in in ag-ui-langgraph; CopilotKit's
    # subclass does not take the switch).
    outcome = LangGraphAgent(name=name, graph=compiled, emit_interrupt_outcome=True)
    add_langgraph_fastapi_endpoint(app, outcome, path=f"/agents/{name}-outcome")

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
