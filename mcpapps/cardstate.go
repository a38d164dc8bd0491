package mcpapps

import (
	"context"
	"encoding/json"
	"fmt"
)

// Per-card state that survives a reload (ext-apps #417, #465): a card's
// View's last ui/update-model-context is kept per card instance (the
// tool call its capability names), for the principal and thread the
// capability is bound to, and handed back when the card is shown again.
const (
	// CardStateMethod is the proxied request the host bridge sends when it
	// mounts a card, to get the card's kept state back: the result is
	// {"modelContext": <the last ui/update-model-context params> | null}.
	CardStateMethod = "genui-adapter/card-state"
	// DefaultMaxCardStateBytes is Config.MaxCardStateBytes's default.
	DefaultMaxCardStateBytes = 16 << 10
)

// CardStates keeps the state of cards. A card is named by the principal
// and thread of its capability and its tool call id; nothing is shared
// across them.
type CardStates interface {
	SaveCardState(ctx context.Context, principal, thread, card string, state []byte) error
	CardState(ctx context.Context, principal, thread, card string) ([]byte, error)
}

// cardState answers ui/update-model-context (kept) and CardStateMethod
// (handed back) for the card cp names. Without a store the first is
// answered and not kept, the second has nothing.
func cardState(ctx context.Context, cfg Config, cp *Capability, method string, params json.RawMessage) (any, error) {
	if cp == nil || cp.ToolCall == "" {
		return nil, fmt.Errorf("%s needs the card's capability", method)
	}
	if method == CardStateMethod {
		if cfg.CardStates == nil {
			return map[string]any{"modelContext": nil}, nil
		}
		b, err := cfg.CardStates.CardState(ctx, cp.Principal, cp.Thread, cp.ToolCall)
		if err != nil {
			return nil, err
		}
		if len(b) == 0 {
			return map[string]any{"modelContext": nil}, nil
		}
		return map[string]any{"modelContext": json.RawMessage(b)}, nil
	}
	max := cfg.MaxCardStateBytes
	if max <= 0 {
		max = DefaultMaxCardStateBytes
	}
	if len(params) > max {
		return nil, cardStateRefused{fmt.Sprintf("the model context is %d bytes, larger than %d bytes (mcpApps.maxCardStateBytes)", len(params), max)}
	}
	if !json.Valid(params) || len(params) == 0 || params[0] != '{' {
		return nil, cardStateRefused{"ui/update-model-context needs params {content?, structuredContent?}"}
	}
	if cfg.CardStates != nil {
		if err := cfg.CardStates.SaveCardState(ctx, cp.Principal, cp.Thread, cp.ToolCall, params); err != nil {
			return nil, err
		}
	}
	return map[string]any{}, nil
}

// cardStateRefused is a card-state request refused for its params.
type cardStateRefused struct{ msg string }

func (e cardStateRefused) Error() string { return e.msg }
