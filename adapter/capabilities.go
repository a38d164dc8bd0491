package adapter

import (
	"encoding/json"
	"net/http"
	"slices"

	"github.com/labstack/echo/v5"

	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/agui/a2a"
	"github.com/genui-adapter/genui-adapter/agui/langgraph"
	"github.com/genui-adapter/genui-adapter/mcpapps"
)

// capabilities derives an agent's AG-UI AgentCapabilities from what the
// adapter knows without asking anyone: its configuration (backend type,
// render modes, MCP servers), the MCP tools the pool has listed, and what
// the backend has cached (an A2A agent card's skills, once a run fetched
// it). Only what is known to be true is declared.
func (s *Server) capabilities(a *agentEntry) agui.AgentCapabilities {
	ac := a.cfg
	typ := ac.Type()
	c := agui.AgentCapabilities{
		Identity: &agui.IdentityCapabilities{Name: a.id, Type: typ, Description: ac.Description, Provider: "genui-adapter", Version: Version},
		// Every run is in the run log: resumable from its SSE ids.
		Transport: &agui.TransportCapabilities{Streaming: true, Resumable: true},
		State:     &agui.StateCapabilities{Snapshots: true},
	}
	render := ac.Render
	if len(render) == 0 {
		render = []string{"a2ui"}
	}
	a2uiOn := !ac.A2UI.Disabled && slices.Contains(render, "a2ui")
	mcpAppsOn := len(ac.MCPServers) > 0 || slices.Contains(render, "mcp-apps")
	var mimes []string
	if a2uiOn {
		mimes = append(mimes, "application/a2ui+json")
	}
	if mcpAppsOn {
		mimes = append(mimes, "text/html;profile=mcp-app")
	}
	if mimes != nil {
		c.Output = &agui.OutputCapabilities{SupportedMimeTypes: append([]string{"text/plain"}, mimes...)}
	}
	// The MCP tools offered to the agent (model-visible ones, under the
	// names the agent sees when no client tool takes them), and the
	// servers whose tools bring an app.
	tools := &agui.ToolsCapabilities{Supported: true, ClientProvided: typ != "a2a"}
	tools.Items = mcpapps.OfferedTools(s.pool, ac.MCPServers, nil)
	var apps []string
	for _, id := range ac.MCPServers {
		if slices.ContainsFunc(s.pool.Tools(id), func(t mcpapps.Tool) bool { return t.ResourceURI != "" }) {
			apps = append(apps, id)
		}
	}
	c.Tools = tools
	custom := map[string]any{
		"a2ui":          a2uiOn,
		"mcpApps":       mcpAppsOn,
		"mcpServers":    nonNil(ac.MCPServers),
		"mcpAppServers": nonNil(apps),
		"render":        render,
	}
	switch typ {
	case "langgraph":
		// The Agent Server keeps a thread's state; interrupt() pauses
		// for an answer (forwardedProps.command.resume, or resume).
		c.State.PersistentState = true
		c.HumanInTheLoop = &agui.HumanInTheLoopCapabilities{Supported: true, Interrupts: true}
		if lg, ok := a.backend.(*langgraph.Agent); ok {
			if keys := lg.OutputKeys(); keys != nil {
				custom["langgraphOutputKeys"] = keys
			}
		}
	case "a2a":
		if ag, ok := a.backend.(*a2a.Agent); ok {
			if skills := ag.Skills(); skills != nil {
				custom["a2aSkills"] = skills
			}
		}
	}
	c.Custom = map[string]any{"genui-adapter": custom}
	return c
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// handleCapabilities answers GET /agents/:agentId/capabilities with the
// agent's AgentCapabilities (public, like GET /agents and CopilotKit's
// /info, which carries the same).
func handleCapabilities(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error {
		a, ok := s.agents[c.Param("agentId")]
		if !ok {
			return errAgentNotFound(c.Param("agentId"))
		}
		b, err := json.Marshal(s.capabilities(a))
		if err != nil {
			return err
		}
		return c.JSONBlob(http.StatusOK, b)
	}
}
