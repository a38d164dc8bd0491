package a2ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// DefaultVersion is the version string emitted unless configured
// otherwise: every renderer accepts it.
const DefaultVersion = "v0.9"

// Message is one server-to-client A2UI message. It is a closed union of
// *CreateSurface, *UpdateComponents and *UpdateDataModel.
// Each encodes as {"version": V, "<operation>": {...}}.
type Message interface {
	// Surface returns the id of the surface the message is about.
	Surface() string
	json.Marshaler
	isMessage()
}

// CreateSurface creates a surface.
type CreateSurface struct {
	Version       string          `json:"-"`
	SurfaceID     string          `json:"surfaceId"`
	CatalogID     string          `json:"catalogId"`
	Theme         json.RawMessage `json:"theme,omitempty"`
	SendDataModel bool            `json:"sendDataModel,omitempty"`
}

// UpdateComponents upserts components by id.
type UpdateComponents struct {
	Version    string      `json:"-"`
	SurfaceID  string      `json:"surfaceId"`
	Components []Component `json:"components"`
}

// UpdateDataModel replaces the data at Path ("/" or empty: everything).
// A nil Value removes the key (the field is omitted).
type UpdateDataModel struct {
	Version   string `json:"-"`
	SurfaceID string `json:"surfaceId"`
	Path      string `json:"path,omitempty"`
	Value     any    `json:"value,omitempty"`
}

func (m *CreateSurface) Surface() string    { return m.SurfaceID }
func (m *UpdateComponents) Surface() string { return m.SurfaceID }
func (m *UpdateDataModel) Surface() string  { return m.SurfaceID }
func (*CreateSurface) isMessage()           {}
func (*UpdateComponents) isMessage()        {}
func (*UpdateDataModel) isMessage()         {}

func envelope(version, op string, body any) ([]byte, error) {
	if version == "" {
		version = DefaultVersion
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.WriteString(`{"version":`)
	v, _ := json.Marshal(version)
	buf.Write(v)
	buf.WriteString(`,"` + op + `":`)
	buf.Write(b)
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// MarshalJSON implements json.Marshaler.
func (m *CreateSurface) MarshalJSON() ([]byte, error) {
	type w CreateSurface
	return envelope(m.Version, "createSurface", (*w)(m))
}

// MarshalJSON implements json.Marshaler.
func (m *UpdateComponents) MarshalJSON() ([]byte, error) {
	type w UpdateComponents
	return envelope(m.Version, "updateComponents", (*w)(m))
}

// MarshalJSON implements json.Marshaler.
func (m *UpdateDataModel) MarshalJSON() ([]byte, error) {
	type w UpdateDataModel
	return envelope(m.Version, "updateDataModel", (*w)(m))
}

// Action is the client-to-server action a user interaction produces.
type Action struct {
	Name              string          `json:"name"`
	SurfaceID         string          `json:"surfaceId"`
	SourceComponentID string          `json:"sourceComponentId"`
	Timestamp         string          `json:"timestamp"`
	Context           json.RawMessage `json:"context"`
}

// ClientError is the client-to-server error message body.
type ClientError struct {
	Code      string `json:"code"`
	SurfaceID string `json:"surfaceId"`
	Path      string `json:"path,omitempty"`
	Message   string `json:"message"`
}

// operation returns the operation of the decoded message obj: its one key
// isOp accepts ("" when none). A message that carries several is
// refused: several is then its error, naming the message, its surface
// and the keys (sorted, so that the same message always gets the same
// error; a map gives its keys in no fixed order), and op is "". The
// caller adds what becomes of the message to several.Message.
func operation(obj map[string]any, isOp func(string) bool, idx int) (op string, several *Error) {
	n := 0
	for k := range obj {
		if isOp(k) {
			op = k
			n++
		}
	}
	if n <= 1 {
		return op, nil
	}
	ops := make([]string, 0, n)
	for k := range obj {
		if isOp(k) {
			ops = append(ops, k)
		}
	}
	slices.Sort(ops)
	sid := ""
	for _, k := range ops {
		body, _ := obj[k].(map[string]any)
		if s, ok := body["surfaceId"].(string); ok && s != "" {
			sid = s
			break
		}
	}
	on := ""
	if sid != "" {
		on = fmt.Sprintf(" on surface %q", sid)
	}
	return "", &Error{Rule: RuleInvalidEnvelope, SurfaceID: sid, Index: idx,
		Message: fmt.Sprintf("message %d%s carries %d operations (%s): exactly one operation per message", idx, on, n, strings.Join(ops, ", "))}
}
