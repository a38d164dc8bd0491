package a2ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"log/slog"
	"maps"
	"regexp"
	"slices"

	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/schemas"
)

// CapabilitiesKey is the forwardedProps key in which an AG-UI client
// declares the A2UI it renders: the official shape keyed by version,
// {"v0.9": {"supportedCatalogIds": [...]}, "v0.8": {...}}, or v0.8's own
// unkeyed {"supportedCatalogIds": [...]}.
const CapabilitiesKey = "a2uiClientCapabilities"

// IssuesEvent is the CUSTOM event that reports, after an ACTIVITY_DELTA
// appending to a surface, what the down-conversion of the appended
// messages could not say ({"messageId": ..., "issues": [...]}).
const IssuesEvent = "a2ui.issues"

var versionKey = regexp.MustCompile(`^v[0-9]+\.[0-9]+(\.[0-9]+)?$`)

// ClientVersion is the A2UI version to emit to a run's client, from
// forwardedProps.a2uiClientCapabilities: "v0.9.1" when it declares
// v0.9.1; "v0.9" when it declares v0.9 and not v0.9.1 (renderers on
// @a2ui/web_core 0.10.4 and older accept only that stamp); "v0.8" when it
// declares v0.8 alone (keyed, or in v0.8's unkeyed shape); "" when it
// declares nothing, or only versions the adapter does not emit (the
// agent's configured version applies). A declaration that is not the
// official shape is an error.
func ClientVersion(in *agui.RunAgentInput) (string, error) {
	raw := in.ForwardedProp(CapabilitiesKey)
	if raw == nil || string(raw) == "null" {
		return "", nil
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(raw, &caps) != nil {
		return "", fmt.Errorf("forwardedProps.%s is not an object", CapabilitiesKey)
	}
	declared := map[string]bool{}
	catalogs := func(at string, b json.RawMessage) error {
		var ids []string
		if json.Unmarshal(b, &ids) != nil {
			return fmt.Errorf("forwardedProps.%s%s.supportedCatalogIds is not a list of strings", CapabilitiesKey, at)
		}
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(caps)) { // the same error every time
		b := caps[k]
		switch {
		case k == "supportedCatalogIds":
			if err := catalogs("", b); err != nil {
				return "", err
			}
			declared[schemas.V08] = true
		case versionKey.MatchString(k):
			var vc map[string]json.RawMessage
			if json.Unmarshal(b, &vc) != nil || vc == nil {
				return "", fmt.Errorf("forwardedProps.%s[%q] is not an object ({\"supportedCatalogIds\": [...]})", CapabilitiesKey, k)
			}
			if ids, ok := vc["supportedCatalogIds"]; ok {
				if err := catalogs(fmt.Sprintf("[%q]", k), ids); err != nil {
					return "", err
				}
			}
			declared[k] = true
		}
	}
	for _, v := range []string{"v0.9.1", "v0.9", schemas.V08} {
		if declared[v] {
			return v, nil
		}
	}
	return "", nil
}

// Emit gives a run's client the A2UI version it renders (ClientVersion):
// every a2ui-surface activity (snapshot or appending delta) on the stream
// is down-converted to v0.8 for a v0.8 client (Validator.Downgrade; what
// v0.8 cannot say listed under a2ui_issues in the snapshot, in a CUSTOM
// a2ui.issues event after a delta, and logged), or its v0.9/v0.9.1
// messages stamped with the version the client declared. A client that
// declares nothing gets the stream as it is. It sits outside Middleware,
// so that it sees every surface: generated, authored, the agent's own,
// an MCP server's, an A2A agent's.
func Emit(v *Validator, log *slog.Logger) agui.Middleware {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return func(next agui.Agent) agui.Agent {
		return agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
			return func(yield func(agui.Event, error) bool) {
				target, err := ClientVersion(req.Input)
				if err != nil {
					// The edge refuses this before the run starts.
					_ = yield(&agui.RunStarted{ThreadID: req.Input.ThreadID, RunID: req.Input.RunID}, nil) &&
						yield(&agui.RunError{Message: err.Error(), Code: "invalid_a2ui_capabilities"}, nil)
					return
				}
				if target == "" {
					agui.PassThrough(next.Run(ctx, req), yield, nil)
					return
				}
				agui.PassThrough(next.Run(ctx, req), yield, func(ev agui.Event) bool {
					switch e := ev.(type) {
					case *agui.ActivitySnapshot:
						if e.ActivityType == ActivityType {
							c := *e
							c.Content = emitContent(v, e.Content, target, log)
							ev = &c
						}
					case *agui.ActivityDelta:
						if e.ActivityType == ActivityType {
							patch, issues := emitPatch(v, e.Patch, target)
							c := *e
							c.Patch = patch
							if !yield(&c, nil) {
								return false
							}
							if len(issues) == 0 {
								return true
							}
							log.Warn("a2ui: surface update sent to a v0.8 client without what v0.8 cannot say", "messageId", e.MessageID, "issues", issues)
							b, _ := json.Marshal(map[string]any{"messageId": e.MessageID, "issues": issues})
							ev = &agui.Custom{Name: IssuesEvent, Value: agui.JSON(b)}
						}
					}
					return yield(ev, nil)
				})
			}
		})
	}
}

// emitContent converts a surface activity's operations for target. A
// lifecycle state (no operations) is left as it is.
func emitContent(v *Validator, content agui.JSON, target string, log *slog.Logger) agui.JSON {
	var c map[string]json.RawMessage
	if json.Unmarshal(content, &c) != nil {
		return content
	}
	raw, ok := c[OperationsKey]
	if !ok {
		return content
	}
	var ops []json.RawMessage
	if json.Unmarshal(raw, &ops) != nil {
		return content
	}
	if target != schemas.V08 {
		c[OperationsKey], _ = json.Marshal(restamp(ops, target))
		b, _ := json.Marshal(c)
		return agui.JSON(b)
	}
	d := v.Downgrade(ops)
	if len(d.Issues) > 0 {
		log.Warn("a2ui: surface sent to a v0.8 client without what v0.8 cannot say", "issues", d.Issues)
	}
	if len(d.Messages) == 0 && len(ops) > 0 {
		return failed(fmt.Sprintf("no message of this surface can be shown in v0.8 (%d issues)", len(d.Issues)), d.Issues)
	}
	if d.Messages == nil {
		d.Messages = []json.RawMessage{}
	}
	c[OperationsKey], _ = json.Marshal(d.Messages)
	if len(d.Issues) > 0 {
		var prior []json.RawMessage
		_ = json.Unmarshal(c[IssuesKey], &prior)
		for _, e := range d.Issues {
			b, _ := json.Marshal(e)
			prior = append(prior, b)
		}
		c[IssuesKey], _ = json.Marshal(prior)
	}
	b, _ := json.Marshal(c)
	return agui.JSON(b)
}

// emitPatch converts the A2UI messages a delta appends to a surface
// (JSON Patch adds to /a2ui_operations/-); other operations pass.
func emitPatch(v *Validator, patch agui.JSON, target string) (agui.JSON, []Error) {
	var ops []map[string]json.RawMessage
	if json.Unmarshal(patch, &ops) != nil {
		return patch, nil
	}
	var issues []Error
	out := make([]map[string]json.RawMessage, 0, len(ops))
	for i, o := range ops {
		var op, path string
		_ = json.Unmarshal(o["op"], &op)
		_ = json.Unmarshal(o["path"], &path)
		if op != "add" || path != "/"+OperationsKey+"/-" {
			out = append(out, o)
			continue
		}
		if target != schemas.V08 {
			o["value"] = restamp([]json.RawMessage{o["value"]}, target)[0]
			out = append(out, o)
			continue
		}
		d := v.Downgrade([]json.RawMessage{o["value"]})
		for _, e := range d.Issues {
			e.Index = i // the patch operation's
			issues = append(issues, e)
		}
		if len(d.Messages) == 1 {
			o["value"] = d.Messages[0]
			out = append(out, o)
		}
	}
	b, _ := json.Marshal(out)
	return agui.JSON(b), issues
}

// restamp gives the v0.9/v0.9.1 messages of ops the version stamp
// target; others (v0.8, unknown) are left as they are.
func restamp(ops []json.RawMessage, target string) []json.RawMessage {
	out := make([]json.RawMessage, len(ops))
	for i, m := range ops {
		out[i] = m
		ver, _, _ := probeVersion(m)
		if ver == target || !slices.Contains(schemas.Versions, ver) {
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(m, &obj) != nil {
			continue
		}
		obj["version"], _ = json.Marshal(target)
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(obj)
		out[i] = bytes.TrimRight(b.Bytes(), "\n")
	}
	return out
}
