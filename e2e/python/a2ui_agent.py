"""A scripted A2UI agent (no LLM) for the e2e tests of A2UI across versions.

It is an AG-UI endpoint on the official Python AG-UI package
(ag-ui-protocol: its event models and EventEncoder) whose A2UI messages are
made by the official A2UI agent SDK (a2ui-agent-sdk 0.9.0, with a2ui-core
0.4.0):

- v0.9: the component tree is written with the SDK's builder
  (a2ui.builder.v0_9) and flattened by it; the envelopes are
  a2ui.core.schema.v0_9's message models.
- v1.0: the same builder tree, in one a2ui.core.schema.v1_0 createSurface
  message with its components and data model inline.
- v0.8: the SDK has no v0.8 builder, so the components are written in
  v0.8's shape and the envelopes are a2ui.core.schema.v0_8's message models.

Every payload is serialized by the SDK (a2ui.parser.messages.to_message_dicts,
which leaves v0.8's version out) and checked by its validator
(a2ui.utils.validation.validate_payload) against the version's basic
catalog before it is sent; an invalid payload is a 500, never a stream.

POST /{version}/activity sends the surface as the agent's own a2ui-surface
ACTIVITY_SNAPSHOT, POST /{version}/tool as a tool result
({"a2ui_operations": [...]}). GET /ok answers once it serves. GET
/{version}/messages returns the payload itself (what the tests compare).
POST /validate/{version} checks a payload the adapter sent a client with
the same validator.
The request's forwardedProps.a2uiClientCapabilities, if any, is kept and
returned by GET /last-capabilities.

Usage: python a2ui_agent.py PORT
"""

from __future__ import annotations

import json
import sys
from typing import Any

import uvicorn
from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import StreamingResponse

from ag_ui.core import (
    ActivitySnapshotEvent,
    EventType,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from ag_ui.encoder import EventEncoder

from a2ui.builder.v0_9 import (
    Action,
    ActionEvent,
    Button,
    Card,
    Column,
    DataBinding,
    Divider,
    DynamicChildList,
    List,
    Row,
    Text,
)
from a2ui.core import A2uiError
from a2ui.core.basic_catalog import BasicCatalog
from a2ui.core.schema import ProtocolVersion, v0_8, v0_9, v1_0
from a2ui.parser.messages import to_message_dicts
from a2ui.utils.validation import validate_payload

SURFACE = "order-a1042"

# The order every version shows.
ORDER = {
    "store": "Harbor Tea House",
    "number": "A-1042",
    "items": [
        {"name": "Oolong tea", "qty": "2 x", "price": "$9.00"},
        {"name": "Lemon cake", "qty": "1 x", "price": "$3.50"},
    ],
    "total": "$12.50",
}


def tree(headings: bool = True):
    """The order card, written with the SDK's v0.9 builder. v1.0's basic
    Text has only the caption and body variants (headings=False)."""

    def heading(level: str) -> str | None:
        return level if headings else None

    item = Row(
        id="item",
        justify="spaceBetween",
        children=[
            Text(text=DataBinding(path="qty"), variant="caption"),
            Text(text=DataBinding(path="name")),
            Text(text=DataBinding(path="price")),
        ],
    )
    return Card(
        id="root",
        child=Column(
            children=[
                Text(text=DataBinding(path="/store"), variant=heading("h3")),
                Text(text=DataBinding(path="/number"), variant="caption"),
                List(children=DynamicChildList(path="/items", template=item)),
                Divider(),
                Row(
                    justify="spaceBetween",
                    children=[Text(text="Total"), Text(text=DataBinding(path="/total"), variant=heading("h4"))],
                ),
                Button(
                    variant="primary",
                    child=Text(text="Confirm order"),
                    action=Action(event=ActionEvent(name="confirm", context={"order": "A-1042"})),
                ),
            ]
        ),
    )


def v09() -> list:
    catalog = BasicCatalog(ProtocolVersion.V0_9).catalog_id
    return [
        v0_9.CreateSurfaceMessage(createSurface=v0_9.CreateSurface(surfaceId=SURFACE, catalogId=catalog)),
        v0_9.UpdateComponentsMessage(updateComponents=v0_9.UpdateComponents(surfaceId=SURFACE, components=tree().flatten())),
        v0_9.UpdateDataModelMessage(updateDataModel=v0_9.UpdateDataModel(surfaceId=SURFACE, path="/", value=ORDER)),
    ]


def v10() -> list:
    catalog = BasicCatalog(ProtocolVersion.V1_0).catalog_id
    return [
        v1_0.CreateSurfaceMessage(
            createSurface=v1_0.CreateSurface(surfaceId=SURFACE, catalogId=catalog, components=tree(headings=False).flatten(), dataModel=ORDER)
        ),
    ]


def v08() -> list:
    """v0.8: boxed literals, wrapped components, explicit child lists and a
    flat data model (v0.8's adjacency list holds one map level)."""

    def text(id_: str, value: dict, hint: str = "body") -> dict:
        return {"id": id_, "component": {"Text": {"text": value, "usageHint": hint}}}

    def row(id_: str, children: list[str]) -> dict:
        return {"id": id_, "component": {"Row": {"children": {"explicitList": children}, "distribution": "spaceBetween"}}}

    comps = [
        {"id": "root", "component": {"Card": {"child": "main"}}},
        {"id": "main", "component": {"Column": {"children": {"explicitList": ["store", "number", "items", "divider", "total-row", "confirm"]}}}},
        text("store", {"path": "/store"}, "h3"),
        text("number", {"path": "/number"}, "caption"),
        {"id": "items", "component": {"Column": {"children": {"explicitList": ["item1", "item2"]}}}},
        {"id": "divider", "component": {"Divider": {}}},
        row("total-row", ["total-label", "total-value"]),
        text("total-label", {"literalString": "Total"}),
        text("total-value", {"path": "/total"}, "h4"),
        {"id": "confirm", "component": {"Button": {"child": "confirm-text", "primary": True, "action": {"name": "confirm", "context": [{"key": "order", "value": {"literalString": "A-1042"}}]}}}},
        text("confirm-text", {"literalString": "Confirm order"}),
    ]
    contents = [
        {"key": "store", "valueString": ORDER["store"]},
        {"key": "number", "valueString": ORDER["number"]},
        {"key": "total", "valueString": ORDER["total"]},
    ]
    for i, it in enumerate(ORDER["items"], 1):
        comps.append(row(f"item{i}", [f"item{i}-qty", f"item{i}-name", f"item{i}-price"]))
        comps.append(text(f"item{i}-qty", {"path": f"/item{i}/qty"}, "caption"))
        comps.append(text(f"item{i}-name", {"path": f"/item{i}/name"}))
        comps.append(text(f"item{i}-price", {"path": f"/item{i}/price"}))
        contents.append({"key": f"item{i}", "valueMap": [{"key": k, "valueString": v} for k, v in it.items()]})
    return [
        v0_8.BeginRenderingMessage(beginRendering=v0_8.BeginRendering(surfaceId=SURFACE, root="root")),
        v0_8.SurfaceUpdateMessage(surfaceUpdate=v0_8.SurfaceUpdate(surfaceId=SURFACE, components=comps)),
        v0_8.DataModelUpdateMessage(dataModelUpdate=v0_8.DataModelUpdate(surfaceId=SURFACE, path="/", contents=contents)),
    ]


EMITTERS = {
    "v0.8": (v08, ProtocolVersion.V0_8),
    "v0.9": (v09, ProtocolVersion.V0_9),
    "v1.0": (v10, ProtocolVersion.V1_0),
}


def payload(version: str) -> list[dict[str, Any]]:
    """The SDK's wire dicts of one version, checked by the SDK's validator."""
    if version not in EMITTERS:
        raise HTTPException(status_code=404, detail=f"no A2UI version {version}")
    build, protocol = EMITTERS[version]
    msgs = to_message_dicts(build())
    validate_payload([BasicCatalog(protocol)], msgs)
    return msgs


app = FastAPI()
last: dict[str, Any] = {}


@app.get("/ok")
def ok():
    return {"ok": True}


@app.get("/last-capabilities")
def last_capabilities():
    return last


@app.get("/{version}/messages")
def messages(version: str):
    return payload(version)


@app.post("/validate/{version}")
async def validate(version: str, request: Request):
    """Checks a payload (a list of messages) with the SDK's validator
    against the version's basic catalog: 200 {"ok": true}, or 422 with the
    SDK's error."""
    if version not in EMITTERS:
        raise HTTPException(status_code=404, detail=f"no A2UI version {version}")
    try:
        validate_payload([BasicCatalog(EMITTERS[version][1])], await request.json())
    except A2uiError as e:
        raise HTTPException(status_code=422, detail=str(e))
    return {"ok": True}


@app.post("/{version}/{mode}")
async def run(version: str, mode: str, request: Request):
    body = RunAgentInput.model_validate(await request.json())
    if mode not in ("activity", "tool"):
        raise HTTPException(status_code=404, detail=f"no mode {mode}")
    msgs = payload(version)
    props = body.forwarded_props if isinstance(body.forwarded_props, dict) else {}
    last.clear()
    last.update({"version": version, "a2uiClientCapabilities": props.get("a2uiClientCapabilities")})
    enc = EventEncoder(accept=request.headers.get("accept"))
    tid, rid = body.thread_id, body.run_id
    events = [RunStartedEvent(type=EventType.RUN_STARTED, thread_id=tid, run_id=rid)]
    if mode == "tool":
        call = f"call-{rid}"
        events += [
            ToolCallStartEvent(type=EventType.TOOL_CALL_START, tool_call_id=call, tool_call_name="show_order"),
            ToolCallEndEvent(type=EventType.TOOL_CALL_END, tool_call_id=call),
            ToolCallResultEvent(
                type=EventType.TOOL_CALL_RESULT,
                message_id=f"res-{rid}",
                tool_call_id=call,
                content=json.dumps({"a2ui_operations": msgs}),
            ),
        ]
    else:
        events.append(
            ActivitySnapshotEvent(
                type=EventType.ACTIVITY_SNAPSHOT,
                message_id=f"ui-{rid}",
                activity_type="a2ui-surface",
                content={"a2ui_operations": msgs},
                replace=True,
            )
        )
    events.append(RunFinishedEvent(type=EventType.RUN_FINISHED, thread_id=tid, run_id=rid))

    async def stream():
        for e in events:
            yield enc.encode(e)

    return StreamingResponse(stream(), media_type=enc.get_content_type())


if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
