// The official server-basic-vanillajs MCP App behind the adapter: an
// upstream agent that calls its get-time tool once (and ends the run that
// follows the tool's result), and the adapter config that serves it to
// agent "apps", for host pages at pageOrigin.
import { fileURLToPath } from "node:url";
import { startUpstream } from "./upstream.js";
import { sse } from "../agui/scenarios.js";

const nm = fileURLToPath(new URL("../node_modules/@modelcontextprotocol/", import.meta.url));

export function startBasicAppUpstream() {
  return startUpstream({
    "/agent": (i) => i.messages.some((m) => m.role === "tool")
      ? sse([{ type: "RUN_STARTED", threadId: i.threadId, runId: i.runId }, { type: "RUN_FINISHED", threadId: i.threadId, runId: i.runId }])
      : sse([
        { type: "RUN_STARTED", threadId: i.threadId, runId: i.runId },
        { type: "TOOL_CALL_START", toolCallId: "t1", toolCallName: "get-time" },
        { type: "TOOL_CALL_END", toolCallId: "t1" },
        { type: "RUN_FINISHED", threadId: i.threadId, runId: i.runId },
      ]),
  });
}

// basicAppConfig is the adapter's YAML; extra is more top-level YAML.
export function basicAppConfig(upstreamUrl, pageOrigin, extra = "") {
  return `cors: {origins: ["${pageOrigin}"]}
mcpServers:
  basic: {command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(nm + "server-basic-vanillajs/dist/index.js")}, "--stdio"]}
${extra}agents:
  apps: {type: agui, url: "${upstreamUrl}/agent", mcpServers: [basic], a2ui: {disabled: true}}
`;
}
