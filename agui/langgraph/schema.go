package langgraph

import (
	"context"
	"encoding/json"
	"errors"
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
// shows only messages. Once the server has given keys, a refresh it
// cannot answer (unreachable, a 5xx, a timeout) keeps them: a server
// down or overloaded for a moment does not turn the filter off.
func (a *Agent) outputKeys(ctx context.Context) map[string]bool {
	a.schemaMu.Lock()
	defer a.schemaMu.Unlock()
	if !a.schemaAt.IsZero() && time.Since(a.schemaAt) < schemaTTL {
		return a.schemaKeys
	}
	a.schemaAt = time.Now()
	if keys, ok := a.fetchOutputKeys(ctx); ok || a.schemaKeys == nil {
		a.schemaKeys = keys
	}
	return a.schemaKeys
}

// fetchOutputKeys asks the server for the output keys; ok is false when
// it could not answer.
func (a *Agent) fetchOutputKeys(ctx context.Context) (keys map[string]bool, ok bool) {
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := a.do(cctx, http.MethodGet, "/assistants/"+url.PathEscape(a.Graph)+"/schemas", nil, nil)
	if err != nil {
		return nil, false
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		return nil, false
	case resp.StatusCode != http.StatusOK:
		return nil, true
	}
	var s struct {
		Output struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"output_schema"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&s); err != nil {
		// A body cut short (the read timed out) is no answer.
		return nil, !errors.Is(err, io.ErrUnexpectedEOF) && cctx.Err() == nil
	}
	if len(s.Output.Properties) == 0 {
		return nil, true
	}
	keys = make(map[string]bool, len(s.Output.Properties))
	for k := range s.Output.Properties {
		keys[k] = true
	}
	return keys, true
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
