"""An MCP App server on the official Python SDK's MCP Apps extension
(mcp.server.apps, the `mcp` package e2e/python/requirements.txt pins), for
the e2e tests: no LLM, every answer scripted.

Tools: py_show (model and app; renders ui://py/view.html with its input
and whether the client negotiated MCP Apps) and py_tick (app only: the
View's button calls it). The View's HTML is read from the file named by
PY_VIEW_HTML; its _meta.ui.csp allows connections to PY_CONNECT_ORIGIN only.

Usage: official_server.py stdio | http PORT | json PORT
  stdio: newline-delimited JSON-RPC on stdin/stdout
  http:  streamable HTTP with sessions and SSE replies, on 127.0.0.1:PORT/mcp
  json:  stateless streamable HTTP answering with plain JSON bodies
"""

import os
import sys
from typing import TypedDict

from mcp.server.apps import Apps, ResourceCsp, client_supports_apps
from mcp.server.mcpserver import Context, MCPServer

VIEW_URI = "ui://py/view.html"

apps = Apps()
ticks = 0


class Shown(TypedDict):
    greeting: str
    appsNegotiated: bool  # noqa: N815 (the wire name)
    sdk: str


class Ticked(TypedDict):
    ticks: int


@apps.tool(resource_uri=VIEW_URI, description="Show the Python card with a greeting")
def py_show(ctx: Context, name: str = "world") -> Shown:
    return {"greeting": f"hello {name}", "appsNegotiated": client_supports_apps(ctx), "sdk": "mcp"}


@apps.tool(resource_uri=VIEW_URI, visibility=["app"], description="Count a click on the card (the View calls it)")
def py_tick(step: int = 1) -> Ticked:
    global ticks
    ticks += step
    return {"ticks": ticks}


with open(os.environ["PY_VIEW_HTML"], encoding="utf-8") as f:
    apps.add_html_resource(
        VIEW_URI,
        f.read(),
        name="py-view",
        csp=ResourceCsp(connect_domains=[os.environ["PY_CONNECT_ORIGIN"]]),
        prefers_border=True,
    )

server = MCPServer("py-official", version="1.0.0", extensions=[apps], log_level="WARNING")


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if mode == "stdio":
        server.run("stdio")
        return
    port = int(sys.argv[2])
    json_mode = mode == "json"
    server.run(
        "streamable-http",
        host="127.0.0.1",
        port=port,
        json_response=json_mode,
        stateless_http=json_mode,
    )


if __name__ == "__main__":
    main()
