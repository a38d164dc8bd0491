// Package mcpapps brings MCP Apps (tools whose results render as ui://
// HTML resources) to AG-UI runs: a pool of long-lived MCP client sessions,
// a catalogue of each server's tools with their UI resource and visibility,
// the CSP and iframe permission rules of the MCP Apps spec, and the AG-UI
// middleware that injects model-visible tools, executes the agent's calls
// to them as soon as each call ends, emits the "mcp-apps" activity card the
// official @ag-ui/mcp-apps-middleware emits, continues the agent with the
// results, and answers a card's proxied requests with the spec's security
// rules enforced server-side.
//
// # Wire format
//
//	{"type":"ACTIVITY_SNAPSHOT","messageId":"...","activityType":"mcp-apps","replace":true,
//	 "content":{"result":{"content":[...],"structuredContent":{...}},"resourceUri":"ui://server/view",
//	            "serverHash":"...","serverId":"tools","toolInput":{...}}}
//
// A card's requests come back as a run with
// forwardedProps.__proxiedMCPRequest {serverHash|serverId, method, params},
// answered with RUN_STARTED then RUN_FINISHED{result}.
package mcpapps
