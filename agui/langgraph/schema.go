package langgraph

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"time"
)

// schemaTTL is how long a graph's output keys are kept before they are
// asked for again (a redeployed graph may change them).
const schemaTTL = time.Minute

// outputKeys are the state keys the graph declares as its output
// (GET /assistants/{id}/schemas, output_schema.properties), the only ones
// a STATE_SNAPSHOT shows, as @ag-ui/langgraph filters them: a graph's
// private keys stay on the server. nil when the server cannot say (no
// schema, or one without properties, as for JavaScript graphs without
// type information): then every key is shown, where the official adapter
// shows only messages.
func (a *Agent) outputKeys(ctx context.Context) map[string]bool {
	a.schemaMu.Lock()
	defer a.schemaMu.Unlock()
	if !a.schemaAt.IsZero() && time.Since(a.schemaAt) < schemaTTL {
		return a.schemaKeys
	}
	a.schemaAt, a.schemaKeys = time.Now(), nil
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := a.do(cctx, http.MethodGet, "/assistants/"+url.PathEscape(a.Graph)+"/schemas", nil, nil)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	var s struct {
		Output struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"output_schema"`
	}
	if json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&s) != nil || len(s.Output.Properties) == 0 {
		return nil
	}
	keys := make(map[string]bool, len(s.Output.Properties))
	for k := range s.Output.Properties {
		keys[k] = true
	}
	a.schemaKeys = keys
	return keys
}

// shown is the part of a state object a snapshot shows: the keys in
// keys (all when keys is nil), without messages and interrupts.
func shown(state map[string]json.RawMessage, keys map[string]bool) map[string]json.RawMessage {
	for k := range state {
		if k == "messages" || k == "__interrupt__" || (keys != nil && !keys[k]) {
			delete(state, k)
		}
	}
	return state
}
