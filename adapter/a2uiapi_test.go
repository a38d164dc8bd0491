package adapter

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestA2UIValidateAPI(t *testing.T) {
	ts := newTestServer(t, DefaultConfig())
	cs := `{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"}}`
	ok := `{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Text","text":"hi"}]}}`
	dup := `{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Column","children":["a"]},{"id":"a","component":"Text","text":"x"},{"id":"a","component":"Text","text":"y"}]}}`
	for _, tt := range []struct {
		name, body string
		valid      bool
		n          int
		rule, path string
	}{
		{"one message", cs, true, 1, "", ""},
		{"list", "[" + cs + "," + ok + "]", true, 2, "", ""},
		{"wrapper", `{"messages":[` + cs + "," + ok + "]}", true, 2, "", ""},
		{"jsonl", cs + "\n" + ok + "\n", true, 2, "", ""},
		{"jsonl with a broken line", cs + "\n{\"version\":\n", false, 2, "invalid_json", ""},
		{"duplicate id", "[" + cs + "," + dup + "]", false, 2, "duplicate_id", "/updateComponents/components/2/id"},
		{"update before create", ok, false, 1, "unknown_surface", "/updateComponents/surfaceId"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := post(t, ts.URL+"/a2ui/validate", "application/json", tt.body)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			var got struct {
				Valid    bool
				Messages int
				Errors   []struct{ Code, Rule, Path, Message string }
			}
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatal(err)
			}
			if got.Valid != tt.valid || got.Messages != tt.n {
				t.Fatalf("got %s", body)
			}
			if tt.rule != "" {
				if len(got.Errors) == 0 || got.Errors[0].Rule != tt.rule || got.Errors[0].Code != "VALIDATION_FAILED" || (tt.path != "" && got.Errors[0].Path != tt.path) {
					t.Errorf("errors = %s, want rule %s at %s", body, tt.rule, tt.path)
				}
			}
		})
	}
	for _, body := range []string{"", "   ", "not json at all", `"a string"`} {
		resp, b := post(t, ts.URL+"/a2ui/validate", "application/json", body)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(b, `"error":"bad_request"`) {
			t.Errorf("validate(%q) = %d %s, want 400", body, resp.StatusCode, b)
		}
	}
}

func TestA2UIRenderAPI(t *testing.T) {
	ts := newTestServer(t, DefaultConfig())
	resp, body := post(t, ts.URL+"/a2ui/render?title=Orders&surfaceId=orders", "application/json", `[{"id":1,"total":9.5},{"id":2,"total":3}]`)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	var msgs []json.RawMessage
	if err := json.Unmarshal([]byte(body), &msgs); err != nil || len(msgs) != 3 {
		t.Fatalf("body = %s", body)
	}
	// What render returns, validate accepts.
	_, vb := post(t, ts.URL+"/a2ui/validate?strict=true", "application/json", body)
	if !strings.Contains(vb, `"valid":true`) {
		t.Errorf("rendered surface does not validate: %s", vb)
	}
	resp, body = post(t, ts.URL+"/a2ui/render?format=jsonl&version=v0.9.1", "application/json", `{"a":1}`)
	if resp.Header.Get("Content-Type") != "application/jsonl" || strings.Count(body, "\n") != 3 || !strings.Contains(body, `"version":"v0.9.1"`) {
		t.Errorf("jsonl = %q (%s)", body, resp.Header.Get("Content-Type"))
	}
	for _, tt := range []struct{ q, body, want string }{
		{"", "{not json", "one JSON value"},
		{"?format=xml", "{}", "format must be json or jsonl"},
		{"?version=v0.8", "{}", "version must be"},
		{"?maxRows=-1", "[]", "maxRows"},
	} {
		resp, b := post(t, ts.URL+"/a2ui/render"+tt.q, "application/json", tt.body)
		if resp.StatusCode != 400 || !strings.Contains(b, tt.want) {
			t.Errorf("render%s(%q) = %d %s, want 400 mentioning %q", tt.q, tt.body, resp.StatusCode, b, tt.want)
		}
	}
}
