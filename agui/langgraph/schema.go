package langgraph

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/genui-adapter/genui-adapter/agui"
)

// schemaTTL is how long a graph's output keys are kept before they are
// asked for again (a redeployed graph may change them).
const schemaTTL = time.Minute

// outputKeys are the state keys the graph declares as its output
// (GET /assistants/{id}/schemas, output_schema.properties), the only ones
// a STATE_SNAPSHOT shows, as @ag-ui/langgraph filters them: a graph's
// private keys stay on the server (the Python server itself streams them
// in "values" once the "events" mode is asked for). nil when the server
// cannot say (no schema, or one without properties, as for JavaScript
// graphs without type information): then every key is shown, where the
// official adapter shows only messages. Once the server has given keys,
// a refresh it cannot answer (unreachable, a 5xx or 429, a timeout)
// keeps them: a server down or overloaded for a moment does not turn the
// filter off.
func (a *Agent) outputKeys(ctx context.Context, req *agui.Request) map[string]bool {
	a.schemaMu.Lock()
	defer a.schemaMu.Unlock()
	if !a.schemaAt.IsZero() && time.Since(a.schemaAt) < schemaTTL {
		return a.schemaKeys
	}
	a.schemaAt = time.Now()
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	keys, status := a.schemaOf(cctx, req, a.Graph)
	if status == http.StatusUnprocessableEntity {
		// The Python server's route takes only an assistant id (a UUID),
		// not a graph id: ask it for the graph's assistant.
		if id := a.assistantOf(cctx, req); id != "" && id != a.Graph {
			keys, status = a.schemaOf(cctx, req, id)
		}
	}
	answered := status != 0 && status < 500 && status != http.StatusTooManyRequests
	if answered || a.schemaKeys == nil {
		a.schemaKeys = keys
	}
	return a.schemaKeys
}

// OutputKeys returns the output keys the graph declared, as last read
// from its schema (sorted); nil before a run read it, or when the server
// declares none. It never asks the server.
func (a *Agent) OutputKeys() []string {
	a.schemaMu.Lock()
	defer a.schemaMu.Unlock()
	if a.schemaKeys == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(a.schemaKeys))
}

// schemaOf reads the output keys of assistant id, with the server's HTTP
// status (0 when it could not be reached, or its answer was cut short).
func (a *Agent) schemaOf(ctx context.Context, req *agui.Request, id string) (keys map[string]bool, status int) {
	resp, err := a.do(ctx, req, http.MethodGet, "/assistants/"+url.PathEscape(id)+"/schemas", nil, nil)
	if err != nil {
		return nil, 0
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, resp.StatusCode
	}
	var s struct {
		Output struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"output_schema"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&s); err != nil && ctx.Err() != nil {
		return nil, 0 // the read timed out: no answer
	} else if err != nil || len(s.Output.Properties) == 0 {
		return nil, resp.StatusCode
	}
	keys = make(map[string]bool, len(s.Output.Properties))
	for k := range s.Output.Properties {
		keys[k] = true
	}
	return keys, resp.StatusCode
}

// assistantOf is the id of an assistant of the graph a.Graph names
// (POST /assistants/search), "" when the server names none.
func (a *Agent) assistantOf(ctx context.Context, req *agui.Request) string {
	resp, err := a.do(ctx, req, http.MethodPost, "/assistants/search", map[string]any{"graph_id": a.Graph, "limit": 1}, nil)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var found []struct {
		ID string `json:"assistant_id"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&found) != nil || len(found) == 0 {
		return ""
	}
	return found[0].ID
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
