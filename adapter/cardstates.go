package adapter

import (
	"context"

	"github.com/genui-adapter/genui-adapter/adapter/runs"
)

// defaultMaxCardStates is mcpApps.maxCardStates's default.
const defaultMaxCardStates = 32

// cardStates keeps MCP Apps cards' states on their threads in the run
// log (mcpapps.CardStates), so a reload or another instance hands them
// back. A card's capability names no principal when the service has no
// authentication; its thread is then the anonymous principal's.
type cardStates struct {
	runs *runs.Manager
	max  int
}

func (c cardStates) SaveCardState(ctx context.Context, principal, thread, card string, state []byte) error {
	max := c.max
	if principal == "" {
		principal = anonymous
	}
	if max <= 0 {
		max = defaultMaxCardStates
	}
	return c.runs.SaveCardState(ctx, principal, thread, card, state, max)
}

func (c cardStates) CardState(ctx context.Context, principal, thread, card string) ([]byte, error) {
	if principal == "" {
		principal = anonymous
	}
	return c.runs.CardState(ctx, principal, thread, card)
}
