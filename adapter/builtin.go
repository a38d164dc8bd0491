package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/genui-adapter/genui-adapter/a2ui"
	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/examples/refund-server/refund"
	"github.com/genui-adapter/genui-adapter/mcpapps"
	"github.com/genui-adapter/genui-adapter/mcpapps/dataview"
)

// The built-in, in-process MCP servers: "genui" (the data view),
// "refunds" (the example refund review app the demo agent uses) and
// "a2ui" (render_a2ui: the model authors A2UI surfaces itself). Agents
// bind them by id like external servers.
const (
	refundsServerID   = "refunds"
	authoringServerID = "a2ui"
)

func builtinServer(id string) bool {
	return id == dataview.ServerID || id == refundsServerID || id == authoringServerID
}

func inProcess(s *mcp.Server) func() mcp.Transport {
	return func() mcp.Transport {
		st, ct := mcp.NewInMemoryTransports()
		_, _ = s.Connect(context.Background(), st, nil)
		return ct
	}
}

func builtinServers(v *a2ui.Validator, tk ToolkitConfig, answers *mcpapps.Answers) []mcpapps.ServerConfig {
	return []mcpapps.ServerConfig{
		{ID: dataview.ServerID, A2UI: true, Transport: inProcess(dataview.NewToolkitServer(dataview.Options{
			URLAllowlist: origins(tk.URLAllowlist), HTMLScripts: tk.HTMLScripts, MaxHTMLBytes: tk.MaxHTMLBytes, MaxRows: tk.MaxRows,
			MaxCharts: tk.MaxCharts, MaxSeries: tk.MaxSeries, MaxPoints: tk.MaxPoints, Answers: answers,
		}))},
		{ID: refundsServerID, Transport: inProcess(refund.NewServer())},
		{ID: authoringServerID, Transport: inProcess(authoringServer(v))},
	}
}

// origins normalises configured origins (lower case, no trailing slash).
func origins(list []string) []string {
	var out []string
	for _, o := range list {
		out = append(out, strings.TrimSuffix(strings.ToLower(o), "/"))
	}
	return out
}

// renderList is renderModes as a list ("mcp-apps", "a2ui").
func renderList(in *agui.RunAgentInput, configured []string) []string {
	m := renderModes(in, configured)
	var out []string
	for _, k := range []string{"mcp-apps", "a2ui"} {
		if m[k] {
			out = append(out, k)
		}
	}
	return out
}

// maxRenderErrors bounds the validation errors a failed render returns.
const maxRenderErrors = 20

// authoringServer offers render_a2ui, with the authoring guide (the basic
// catalog's components) as its instructions, which reach the agent as a
// context entry. A valid surface is returned as its operations (the A2UI
// middleware shows them, growing while the arguments streamed); an invalid
// one as an error listing what to fix, for the model's next attempt.
func authoringServer(v *a2ui.Validator) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "a2ui-authoring", Version: "1.0.0"}, &mcp.ServerOptions{Instructions: a2ui.AuthoringGuide()})
	s.AddTool(&mcp.Tool{
		Name:        a2ui.RenderToolName,
		Description: "Render a dynamic A2UI v0.9 surface. The root component must have id 'root'. Use components from the available catalog only.",
		InputSchema: json.RawMessage(a2ui.RenderToolSchema),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ops, errs := v.Author(req.Params.Arguments, "", "")
		if len(errs) > 0 {
			var b strings.Builder
			b.WriteString("The surface is not valid A2UI; fix these and call render_a2ui again:")
			for i, e := range errs {
				if i == maxRenderErrors {
					fmt.Fprintf(&b, "\n(%d more)", len(errs)-i)
					break
				}
				fmt.Fprintf(&b, "\n- %s at %s: %s", e.Rule, e.Path, e.Message)
			}
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, nil
		}
		out, _ := json.Marshal(map[string]any{a2ui.OperationsKey: ops})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out)}}}, nil
	})
	return s
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
