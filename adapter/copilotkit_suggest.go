package adapter

import (
	"context"
	"fmt"

	"github.com/labstack/echo/v5"

	"github.com/genui-adapter/genui-adapter/adapter/runs"
	"github.com/genui-adapter/genui-adapter/agui"
)

// CopilotKit's suggestions (agent/:id/suggest): the same RunAgentInput and
// SSE as a run, but the agent is run directly, as CopilotRuntime 1.75
// does: no thread, no run-log record, no history, nothing to resume, and
// only the normalisers around the backend (the client forces its
// copilotkitSuggest tool; A2UI and MCP tools would be dead weight).
// Bounded by copilotkit.suggestTimeout and copilotkit.maxSuggestBytes.

func handleCPKSuggest(s *Server) echo.HandlerFunc { return cpkAgentRoute(s, s.suggest) }

// suggest runs agent id directly with body (a RunAgentInput) and streams
// its events.
func (s *Server) suggest(c *echo.Context, id string, body []byte) error {
	a, in, err := s.admit(c, id, body)
	if err != nil {
		return err
	}
	principal := principalOf(c)
	kc := s.cfg.CopilotKit
	req := runs.DirectRequest{
		Principal: principal, AgentID: a.id, Agent: a.direct, Input: in,
		Header:  c.Request().Header,
		Stats:   &runStats{m: s.metrics, agent: a.id, runID: in.RunID, logger: s.logger, accepted: accepted(c)},
		Tracer:  s.tracing.Tracer(),
		Span:    s.tracing.Run(c.Request().Header, "genui.agent", a.id, "genui.thread_id", in.ThreadID, "genui.run_id", in.RunID, "genui.direct", "suggest"),
		Timeout: kc.suggestTimeout(),
		TimeoutFailure: &agui.RunFailure{Code: "suggest_timeout",
			Message: fmt.Sprintf("the suggestion run did not end within %s (copilotkit.suggestTimeout)", kc.suggestTimeout())},
		MaxBytes: kc.maxSuggestBytes(),
		TooLargeFailure: &agui.RunFailure{Code: "suggest_too_large",
			Message: fmt.Sprintf("the suggestion run's events passed %d bytes (copilotkit.maxSuggestBytes)", kc.maxSuggestBytes())},
	}
	if s.authenticated() {
		req.UpstreamPrincipal = principal
	}
	d, err := s.runs.StartDirect(req)
	if err != nil {
		return runsError(err, in.RunID)
	}
	s.stream(c, nil, func(ctx context.Context, sink *sseSink) { d.Serve(ctx, sink) })
	return nil
}
