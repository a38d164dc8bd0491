package adapter

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
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
		// Not a wrapper, so what it holds is judged, not left unread.
		{"messages given twice", `{"messages":[` + ok + `],"messages":[` + cs + `]}`, false, 1, "duplicate_key", "/messages"},
		{"a message with a messages key", `{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"other"},"messages":[]}`, false, 1, "unknown_message", "/messages"},
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

// /a2ui/validate judges a document in its own version and says which:
// the official v0.8 coffee order is valid v0.8; a v0.8 document with a
// component outside the v0.8 catalog, or mixed with v0.9 on one surface,
// is not, and the error names the message and the rule.
func TestA2UIValidateAPIVersions(t *testing.T) {
	ts := newTestServer(t, DefaultConfig())
	coffee, err := os.ReadFile(filepath.Join("..", "schemas", "testdata", "v0_8", "basic", "13_coffee-order.json"))
	if err != nil {
		t.Fatal(err)
	}
	begin := `{"beginRendering":{"surfaceId":"s","root":"r"}}`
	for _, tt := range []struct {
		name, body, version string
		valid               bool
		rule                string
		index               int
	}{
		{"official v0.8", string(coffee), "v0.8", true, "", 0},
		{"v0.9", `{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"}}`, "v0.9", true, "", 0},
		{"v0.8 unknown component", "[" + begin + `,{"surfaceUpdate":{"surfaceId":"s","components":[{"id":"r","component":{"Map":{}}}]}}]`, "v0.8", false, "unknown_component", 1},
		{"v0.8 without a root", "[" + begin + `,{"surfaceUpdate":{"surfaceId":"s","components":[{"id":"x","component":{"Divider":{}}}]}}]`, "v0.8", false, "no_root", 1},
		{"mixed", "[" + begin + `,{"version":"v0.9","updateDataModel":{"surfaceId":"s","value":{}}}]`, "mixed", false, "mixed_versions", 1},
		{"v0.9.1", `{"version":"v0.9.1","createSurface":{"surfaceId":"s","catalogId":"https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"}}`, "v0.9.1", true, "", 0},
		{"v1.0", `{"version":"v1.0","createSurface":{"surfaceId":"s","catalogId":"https://a2ui.org/specification/v1_0/catalogs/basic/catalog.json","components":[{"id":"root","component":"Text","text":"hi"}]}}`, "v1.0", true, "", 0},
		{"a v1.0 renderer function call", `{"version":"v1.0","callRendererFunction":{"call":"openUrl","args":{"url":"https://example.com"}}}`, "v1.0", false, "v10_function_refused", 0},
		{"a version the adapter does not know is named", `{"version":"v2.0","createSurface":{"surfaceId":"s","catalogId":"https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"}}`, "v2.0", false, "invalid_version", 0},
		{"an unknown version beside a known one", "[" + begin + `,{"version":"v2.0","deleteSurface":{"surfaceId":"t"}}]`, "mixed", false, "invalid_version", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, body := post(t, ts.URL+"/a2ui/validate", "application/json", tt.body)
			var got struct {
				Valid   bool
				Version string
				Errors  []struct {
					Rule  string
					Index int
				}
			}
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatal(err)
			}
			if got.Valid != tt.valid || got.Version != tt.version {
				t.Fatalf("got %s", body)
			}
			if tt.rule != "" && (len(got.Errors) == 0 || got.Errors[0].Rule != tt.rule || got.Errors[0].Index != tt.index) {
				t.Errorf("errors = %s, want %s at message %d", body, tt.rule, tt.index)
			}
		})
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

// The A2UI caps are configuration (a2uiLimits): a surface over
// maxComponents, a message over maxMessageBytes, is refused by
// /a2ui/validate, strict or not, as by every stream.
func TestA2UILimitsConfigured(t *testing.T) {
	cfg := DefaultConfig()
	cfg.A2UILimits = A2UILimits{MaxComponents: 2, MaxMessageBytes: 4096}
	ts := newTestServer(t, cfg)
	cs := `{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"}}`
	three := `{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Column","children":["a","b"]},{"id":"a","component":"Text","text":"x"},{"id":"b","component":"Text","text":"y"}]}}`
	big := `{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Text","text":"` + strings.Repeat("x", 5000) + `"}]}}`
	for _, tc := range []struct{ name, body, rule string }{
		{"three components", "[" + cs + "," + three + "]", "too_many_components"},
		{"a 5 KB message", "[" + cs + "," + big + "]", "too_large"},
	} {
		for _, q := range []string{"", "?strict=true"} {
			resp, body := post(t, ts.URL+"/a2ui/validate"+q, "application/json", tc.body)
			if resp.StatusCode != 200 || !strings.Contains(body, `"valid":false`) || !strings.Contains(body, `"rule":"`+tc.rule+`"`) {
				t.Errorf("%s%s: %d %s, want it refused with %s", tc.name, q, resp.StatusCode, body, tc.rule)
			}
		}
	}
}
