package mcpapps

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/genui-adapter/genui-adapter/agui"
)

// A card's capability is what lets its View call back: a signed,
// expiring token minted when the adapter emits the card, naming the
// server, the resource, the tool call the card belongs to, the principal
// and thread of the run, and the server's app-callable tools. It travels
// as the card's serverHash, which stock renderers (CopilotKit's) already
// echo back unchanged in __proxiedMCPRequest, so no frontend change is
// needed. A proxied request must carry a valid capability for its server
// and its conversation.

// capPrefix starts every capability token (and tells it from a plain
// server hash).
const capPrefix = "gcap1."

// Capability is what a card may do.
type Capability struct {
	Server    string   `json:"s"`
	Resource  string   `json:"r"`
	ToolCall  string   `json:"c,omitempty"`
	Tool      string   `json:"n,omitempty"` // the tool whose card this is
	Principal string   `json:"p"`
	Thread    string   `json:"t"`
	Tools     []string `json:"a,omitempty"` // app-callable tools at mint time
	Expires   int64    `json:"e"`           // Unix seconds
}

// Errors of Capabilities.Check.
var (
	ErrNoCapability      = errors.New("the request carries no card capability")
	ErrForgedCapability  = errors.New("the card capability is not valid")
	ErrExpiredCapability = errors.New("the card capability has expired")
	ErrForeignCapability = errors.New("the card capability belongs to another conversation")
)

// Capabilities mints and checks card capabilities. Safe for concurrent
// use.
type Capabilities struct {
	key []byte
	ttl time.Duration
	now func() time.Time
}

// NewCapabilities signs with key (instances behind one load balancer need
// the same key; empty: a random key) and mints capabilities valid for ttl
// (default 24 h).
func NewCapabilities(key []byte, ttl time.Duration) *Capabilities {
	if len(key) == 0 {
		key = make([]byte, 32)
		_, _ = rand.Read(key)
	} else {
		// Domain separation from the other uses of a shared secret.
		m := hmac.New(sha256.New, key)
		m.Write([]byte("genui-adapter/card-capability"))
		key = m.Sum(nil)
	}
	if ttl <= 0 {
		ttl = 24 * time.Hour
	}
	return &Capabilities{key: key, ttl: ttl, now: time.Now}
}

// IsCapability reports whether a serverHash is a capability token (valid
// or not).
func IsCapability(s string) bool { return strings.HasPrefix(s, capPrefix) }

func (c *Capabilities) sign(payload []byte) string {
	m := hmac.New(sha256.New, c.key)
	m.Write(payload)
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// Mint signs a capability, setting its expiry.
func (c *Capabilities) Mint(cp Capability) string {
	cp.Expires = c.now().Add(c.ttl).Unix()
	payload, _ := json.Marshal(cp)
	return capPrefix + base64.RawURLEncoding.EncodeToString(payload) + "." + c.sign(payload)
}

// Check verifies a token's signature and expiry.
func (c *Capabilities) Check(tok string) (Capability, error) {
	if tok == "" {
		return Capability{}, ErrNoCapability
	}
	rest, ok := strings.CutPrefix(tok, capPrefix)
	if !ok {
		return Capability{}, ErrNoCapability
	}
	p, sig, ok := strings.Cut(rest, ".")
	payload, err := base64.RawURLEncoding.DecodeString(p)
	if !ok || err != nil || !hmac.Equal([]byte(sig), []byte(c.sign(payload))) {
		return Capability{}, ErrForgedCapability
	}
	var cp Capability
	if json.Unmarshal(payload, &cp) != nil || cp.Server == "" {
		return Capability{}, ErrForgedCapability
	}
	if c.now().Unix() > cp.Expires {
		return cp, ErrExpiredCapability
	}
	return cp, nil
}

// CheckFor verifies a token for a request made by principal on thread.
func (c *Capabilities) CheckFor(tok, principal, thread string) (Capability, error) {
	cp, err := c.Check(tok)
	if err != nil {
		return cp, err
	}
	if cp.Principal != principal || cp.Thread != thread {
		return cp, ErrForeignCapability
	}
	return cp, nil
}

// mintFor mints the capability of a card of server showing resource for
// tool call toolCall in principal's run on thread.
func (c *Capabilities) mintFor(p *Pool, server, resource, tool, toolCall, principal, thread string) string {
	var tools []string
	for _, t := range p.Tools(server) {
		if t.AppVisible() {
			tools = append(tools, t.Name)
		}
	}
	return c.Mint(Capability{Server: server, Resource: resource, ToolCall: toolCall, Tool: tool, Principal: principal, Thread: thread, Tools: tools})
}

// Card is the content of an "mcp-apps" activity: what the stock renderers
// read, plus the tool call the card belongs to.
type Card struct {
	// Result is absent while the tool runs (a loading card).
	Result      any    `json:"result,omitempty"`
	ResourceURI string `json:"resourceUri"`
	// ServerHash is the card's capability (see Capabilities).
	ServerHash string `json:"serverHash"`
	ServerID   string `json:"serverId"`
	ToolInput  any    `json:"toolInput,omitempty"`
	ToolCallID string `json:"toolCallId,omitempty"`
	// Tool is the name of the tool whose card this is, in the capability
	// only (the View's logs name it).
	Tool string `json:"-"`
	// Status is the loading card's phase (hosts that asked for loading
	// cards): "input-streaming" (PartialArguments grows by
	// ACTIVITY_DELTA), "input-available" (ToolInput complete, the tool
	// runs). A card with a Result is final and has no status.
	Status           string `json:"status,omitempty"`
	PartialArguments string `json:"partialArguments,omitempty"`
	// AppData is the data of an app written the qwen-agent way: the host
	// answers the View's {type: "mcp-app-ready"} with {type:
	// "mcp-app-data", payload: AppData}.
	AppData any `json:"appData,omitempty"`
	// PreferredFrameSize is such an app's [width, height] in CSS pixels
	// (_meta "mcpui.dev/ui-preferred-frame-size").
	PreferredFrameSize []float64 `json:"preferredFrameSize,omitempty"`
}

// CardMessageID is the activity message id of the card of a tool call:
// the loading card and the final one are the same message.
func CardMessageID(toolCallID string) string { return "mcp-apps-" + toolCallID }

// CardEvent builds the activity of a card, minting its capability for
// principal's run on thread.
func (c *Capabilities) CardEvent(p *Pool, messageID string, card Card, principal, thread string) agui.Event {
	card.ServerHash = c.mintFor(p, card.ServerID, card.ResourceURI, card.Tool, card.ToolCallID, principal, thread)
	content, _ := json.Marshal(card)
	t := true
	return &agui.ActivitySnapshot{MessageID: messageID, ActivityType: ActivityType, Content: agui.JSON(content), Replace: &t}
}

// Renew re-signs the capability of a stored card for principal on thread
// (a thread replayed after a reload), keeping its claims; content that is
// not such a card, or is someone else's, is returned unchanged.
func (c *Capabilities) Renew(content []byte, principal, thread string) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(content, &m) != nil {
		return content
	}
	var tok string
	if json.Unmarshal(m["serverHash"], &tok) != nil || !IsCapability(tok) {
		return content
	}
	cp, err := c.Check(tok)
	if (err != nil && !errors.Is(err, ErrExpiredCapability)) || cp.Principal != principal || cp.Thread != thread {
		return content
	}
	fresh, _ := json.Marshal(c.Mint(cp))
	m["serverHash"] = fresh
	out, err := json.Marshal(m)
	if err != nil {
		return content
	}
	return out
}

// allows reports whether the capability lets its card call tool now.
func (cp Capability) allows(tool string) bool { return slices.Contains(cp.Tools, tool) }

func (cp Capability) String() string {
	return fmt.Sprintf("card of %s %s (tool %s, call %s)", cp.Server, cp.Resource, cp.Tool, cp.ToolCall)
}
