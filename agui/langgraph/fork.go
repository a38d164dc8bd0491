package langgraph

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/genui-adapter/genui-adapter/agui"
)

// maxStateBytes bounds a thread state or history read for a fork.
const maxStateBytes = 32 << 20

// forkPoint finds where an edited or regenerated conversation forks: when
// the client sends fewer messages than the thread holds and its last user
// message is one the thread already has (the client cut the conversation
// back to it, perhaps editing it), the run starts from the checkpoint
// before that message, as @ag-ui/langgraph does, instead of appending to
// the end. "" means no fork.
func (a *Agent) forkPoint(ctx context.Context, req *agui.Request, tid string, in *agui.RunAgentInput) (string, error) {
	var lastUser string
	n := 0
	for _, m := range in.Messages {
		if m.Role == agui.RoleSystem || m.Role == agui.RoleDeveloper || m.Role == agui.RoleActivity || m.Role == agui.RoleReasoning {
			continue
		}
		n++
		if m.Role == agui.RoleUser {
			lastUser = m.ID
		}
	}
	if lastUser == "" {
		return "", nil
	}
	resp, err := a.call(ctx, req, http.MethodGet, "/threads/"+tid+"/state", nil, nil, "thread state")
	if err != nil {
		return "", err
	}
	var state struct {
		Values struct {
			Messages []lcMessage `json:"messages"`
		} `json:"values"`
	}
	err = json.NewDecoder(io.LimitReader(resp.Body, maxStateBytes)).Decode(&state)
	resp.Body.Close()
	if err != nil {
		return "", nil // a thread with no state yet
	}
	held, has := 0, false
	for _, m := range state.Values.Messages {
		if m.Type != "system" {
			held++
		}
		has = has || m.ID == lastUser
	}
	if held <= n || !has {
		return "", nil
	}
	// The newest checkpoint without that message is the one before it.
	resp, err = a.call(ctx, req, http.MethodPost, "/threads/"+tid+"/history", map[string]any{"limit": 1000}, nil, "thread history")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var history []struct {
		Values struct {
			Messages []struct {
				ID string `json:"id"`
			} `json:"messages"`
		} `json:"values"`
		Checkpoint struct {
			ID string `json:"checkpoint_id"`
		} `json:"checkpoint"`
	}
	if json.NewDecoder(io.LimitReader(resp.Body, maxStateBytes)).Decode(&history) != nil {
		return "", nil
	}
	for _, h := range history { // newest first
		found := false
		for _, m := range h.Values.Messages {
			if m.ID == lastUser {
				found = true
				break
			}
		}
		if !found {
			return h.Checkpoint.ID, nil
		}
	}
	return "", nil
}
