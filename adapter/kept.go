package adapter

import (
	"context"
	"time"

	"github.com/genui-adapter/genui-adapter/agui"
)

// threadKeeper is a backend that keeps its threads' conversations itself
// (a LangGraph thread's state): a thread the run log no longer holds
// (after a restart, or past retention) is rebuilt from it.
type threadKeeper interface {
	// ThreadMessages is the conversation of the client's thread for
	// principal (agui.Request.Principal); nil when the backend has no
	// such thread.
	ThreadMessages(ctx context.Context, principal, threadID string) ([]agui.Message, error)
}

// keptTimeout bounds asking the backends for a thread.
const keptTimeout = 5 * time.Second

// keptMessages is the conversation of a thread the run log does not hold,
// from the backend of agentID, or (agentID "") from the first agent's, in
// id order, that has it. A backend that fails is logged and skipped: the
// thread then shows as new, as it would without it.
func (s *Server) keptMessages(ctx context.Context, principal, threadID, agentID string) []agui.Message {
	if !s.authenticated() {
		principal = "" // as runs see it (runs.Request.UpstreamPrincipal)
	}
	ctx, cancel := context.WithTimeout(ctx, keptTimeout)
	defer cancel()
	for _, id := range s.cfg.agentIDs() {
		a := s.agents[id]
		if a == nil || a.keeper == nil || (agentID != "" && id != agentID) {
			continue
		}
		msgs, err := a.keeper.ThreadMessages(ctx, principal, threadID)
		if err != nil {
			s.logger.WarnContext(ctx, "cannot rebuild the thread from its backend", "agent", id, "threadId", threadID, "error", err)
			continue
		}
		if len(msgs) > 0 {
			return msgs
		}
	}
	return nil
}
