"""An MCP App server on FastMCP's apps (FastMCPApp, @app.ui(), the
`fastmcp[apps]` package e2e/python/requirements.txt pins), for the e2e
tests: no LLM, every answer scripted.

fm_counter (@app.ui(), model only) renders a Prefab card through FastMCP's
Prefab renderer (ui://prefab/renderer.html, the self-contained bundle:
PREFAB_BUNDLED_RENDERER=1, so the card loads nothing from a CDN); its
button calls fm_increment (@app.tool(), app only) and shows the count.

Usage: fastmcp_server.py stdio | http PORT | json PORT
  stdio: newline-delimited JSON-RPC on stdin/stdout
  http:  streamable HTTP with sessions and SSE replies, on 127.0.0.1:PORT/mcp
  json:  stateless streamable HTTP answering with plain JSON bodies
"""

import os
import sys

os.environ.setdefault("PREFAB_BUNDLED_RENDERER", "1")

from fastmcp import FastMCP, FastMCPApp  # noqa: E402
from prefab_ui.actions import SetState  # noqa: E402
from prefab_ui.actions.mcp import CallTool  # noqa: E402
from prefab_ui.app import PrefabApp  # noqa: E402
from prefab_ui.components import Button, Column, Text  # noqa: E402
from prefab_ui.rx import RESULT, STATE  # noqa: E402

app = FastMCPApp("Counter")
count = 0


@app.tool()
def fm_increment(step: int = 1) -> int:
    """Add step to the counter (the card's button calls it)."""
    global count
    count += step
    return count


@app.ui()
def fm_counter(label: str = "clicks") -> PrefabApp:
    """Show a counter card."""
    with Column(gap=2) as view:
        Text(f"FastMCP counter: {label}", css_class="font-medium")
        Text(f"Count: {STATE.count}")
        Button(
            "Increment",
            on_click=CallTool(fm_increment, arguments={"step": 1}, on_success=SetState("count", RESULT)),
        )
    return PrefabApp(view=view, state={"count": count, "label": label})


server = FastMCP("py-fastmcp", providers=[app])


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if mode == "stdio":
        server.run(transport="stdio", show_banner=False)
        return
    port = int(sys.argv[2])
    json_mode = mode == "json"
    server.run(
        transport="http",
        host="127.0.0.1",
        port=port,
        path="/mcp",
        json_response=json_mode,
        stateless_http=json_mode,
        show_banner=False,
    )


if __name__ == "__main__":
    main()
