package adapter

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/examples/refund-server/refund"
	"github.com/genui-adapter/genui-adapter/mcpapps"
	"github.com/genui-adapter/genui-adapter/mcpapps/dataview"
)

// The built-in, in-process MCP servers: "genui" (the data view) and
// "refunds" (the example refund review app the demo agent uses). Agents
// bind them by id like external servers.
const refundsServerID = "refunds"

func builtinServer(id string) bool { return id == dataview.ServerID || id == refundsServerID }

func inProcess(s *mcp.Server) func() mcp.Transport {
	return func() mcp.Transport {
		st, ct := mcp.NewInMemoryTransports()
		_, _ = s.Connect(context.Background(), st, nil)
		return ct
	}
}

func builtinServers() []mcpapps.ServerConfig {
	return []mcpapps.ServerConfig{
		{ID: dataview.ServerID, Transport: inProcess(dataview.NewServer())},
		{ID: refundsServerID, Transport: inProcess(refund.NewServer())},
	}
}

// renderModes says how this run shows structured results: the agent's
// render config, unless the run asks otherwise in
// forwardedProps.genuiRender (the playground's side-by-side mode).
func renderModes(in *agui.RunAgentInput, configured []string) map[string]bool {
	modes := configured
	if raw := in.ForwardedProp("genuiRender"); raw != nil {
		var asked []string
		if json.Unmarshal(raw, &asked) == nil {
			modes = asked
		}
	}
	if len(modes) == 0 {
		modes = []string{"a2ui"}
	}
	out := map[string]bool{}
	for _, m := range modes {
		out[m] = true
	}
	return out
}
