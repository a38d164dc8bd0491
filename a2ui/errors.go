package a2ui

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Stable rule codes of validation errors, aligned with @ag-ui/a2ui-toolkit
// where it has one.
const (
	RuleInvalidJSON        = "invalid_json"
	RuleDuplicateKey       = "duplicate_key"
	RuleTooLarge           = "too_large"
	RuleInvalidEnvelope    = "invalid_envelope"
	RuleInvalidVersion     = "invalid_version"
	RuleUnknownMessage     = "unknown_message"
	RuleSchema             = "schema"
	RuleMissingProp        = "missing_required_prop"
	RuleUnknownProp        = "unknown_prop"
	RuleUnknownComponent   = "unknown_component"
	RuleDuplicateID        = "duplicate_id"
	RuleNoRoot             = "no_root"
	RuleUnresolvedChild    = "unresolved_child"
	RuleChildCycle         = "child_cycle"
	RuleOrphan             = "orphan_component"
	RuleTooDeep            = "too_deep"
	RuleFunctionTooDeep    = "function_too_deep"
	RuleInvalidPath        = "invalid_path"
	RuleRelativePath       = "relative_path_outside_template"
	RuleTemplateRoot       = "template_is_root"
	RuleTemplateTooLarge   = "template_too_large"
	RuleTemplateNotArray   = "template_not_array"
	RuleInvalidWeight      = "weight_outside_row_column"
	RuleTooManyComponents  = "too_many_components"
	RuleSurfaceExists      = "surface_exists"
	RuleUnknownSurface     = "unknown_surface"
	RuleUnsupportedCatalog = "unsupported_catalog"
	RuleUnresolvedBinding  = "unresolved_binding"
	RuleInvalidAction      = "invalid_action"
	RuleInvalidExpression  = "invalid_expression"
	RuleUnsafeURL          = "unsafe_url"
	RuleUnknownSource      = "unknown_source_component"
)

// Error is one validation failure. Its JSON form is an A2UI
// VALIDATION_FAILED error object plus "rule" (a stable code) and "index"
// (the message's position in a batch).
type Error struct {
	Rule      string
	SurfaceID string
	// Path is a JSON Pointer into the message.
	Path    string
	Message string
	Index   int
}

func (e Error) Error() string {
	return fmt.Sprintf("a2ui: message %d: %s at %s: %s", e.Index, e.Rule, e.Path, e.Message)
}

// MarshalJSON implements json.Marshaler.
func (e Error) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Code      string `json:"code"`
		Rule      string `json:"rule"`
		SurfaceID string `json:"surfaceId"`
		Path      string `json:"path"`
		Message   string `json:"message"`
		Index     int    `json:"index"`
	}{"VALIDATION_FAILED", e.Rule, e.SurfaceID, e.Path, e.Message, e.Index})
}

// ClientMessage returns the error as the strict A2UI client-to-server
// message {"version":..., "error":{"code":"VALIDATION_FAILED",...}}, the
// form an agent's generate-validate loop expects.
func (e Error) ClientMessage(version string) []byte {
	if version == "" {
		version = DefaultVersion
	}
	b, _ := json.Marshal(map[string]any{"version": version, "error": map[string]any{
		"code": "VALIDATION_FAILED", "surfaceId": e.SurfaceID, "path": e.Path, "message": e.Rule + ": " + e.Message,
	}})
	return b
}

// pointer joins JSON Pointer segments, escaping ~ and /.
func pointer(segs ...any) string {
	var buf [128]byte
	b := buf[:0]
	for _, s := range segs {
		b = append(b, '/')
		switch x := s.(type) {
		case string:
			for i := 0; i < len(x); i++ {
				switch c := x[i]; c {
				case '~':
					b = append(b, "~0"...)
				case '/':
					b = append(b, "~1"...)
				default:
					b = append(b, c)
				}
			}
		case int:
			b = strconv.AppendInt(b, int64(x), 10)
		default:
			b = fmt.Append(b, x)
		}
	}
	return string(b)
}
