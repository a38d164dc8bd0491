package mcpapps

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// AwaitAnswerKey is the _meta key of a tool result that asks the user
// something: the adapter shows its card (and surface) at once and holds
// the tool's result until the user's answer arrives (Answers.Deliver) or
// the wait ends; the answer is the result the agent gets, in the same run.
const AwaitAnswerKey = "genui-adapter/awaitAnswer"

// AppResponseMethod is the request a card sends for an app written the
// qwen-agent way when its View posts {type: "mcp-app-response"}: the
// payload answers the card's tool call.
const AppResponseMethod = "genui-adapter/app-response"

// ErrNoQuestion: nothing waits for an answer to that tool call (the run
// ended, the wait expired, or it runs on another instance).
var ErrNoQuestion = errors.New("this question is no longer open (the run ended or the wait expired); answer in the chat instead")

// Answers is where a tool call waiting for the user's answer meets that
// answer. An entry lives only while its run waits: memory is bounded by
// the runs in flight. Answers are keyed by principal, thread and tool
// call, so a card or surface can answer only the call it was shown for.
type Answers struct {
	mu      sync.Mutex
	waiting map[string]chan json.RawMessage
}

// NewAnswers returns an empty rendezvous.
func NewAnswers() *Answers { return &Answers{waiting: map[string]chan json.RawMessage{}} }

func answerKey(c Caller) string {
	p := c.Principal
	if p == "" {
		p = "anonymous"
	}
	return p + "\x00" + c.ThreadID + "\x00" + c.ToolCallID
}

// Wait blocks until the call c names is answered or ctx ends.
func (a *Answers) Wait(ctx context.Context, c Caller) (json.RawMessage, error) {
	q := a.Open(c)
	defer q.Close()
	return q.Wait(ctx)
}

// Question is an open question: its answer is kept from Open on, so a
// host that answers as soon as it shows the question is not refused.
type Question struct {
	a  *Answers
	k  string
	ch chan json.RawMessage
}

// Open registers the question the call c names; open it before it is
// shown, Wait for its answer, then Close it.
func (a *Answers) Open(c Caller) *Question {
	q := &Question{a: a, k: answerKey(c), ch: make(chan json.RawMessage, 1)}
	a.mu.Lock()
	a.waiting[q.k] = q.ch
	a.mu.Unlock()
	return q
}

// Wait blocks until the question is answered or ctx ends.
func (q *Question) Wait(ctx context.Context) (json.RawMessage, error) {
	select {
	case v := <-q.ch:
		return v, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close ends the question: later answers are refused (ErrNoQuestion).
func (q *Question) Close() {
	q.a.mu.Lock()
	if q.a.waiting[q.k] == q.ch {
		delete(q.a.waiting, q.k)
	}
	q.a.mu.Unlock()
}

// Waiting reports whether a run waits for the answer to the call c names.
func (a *Answers) Waiting(c Caller) bool {
	if a == nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.waiting[answerKey(c)] != nil
}

// ForwardKey is the _meta key of an app tool's result (answer_user with
// no run waiting) whose text the adapter sends to the agent as the user's
// next message, in the run of the surface action that called it.
const ForwardKey = "genui-adapter/forwardToAgent"

// ConcurrentRequestsFeature is the forwardedProps.mcpAppsHost feature of a
// host that sends a card's requests and a surface's actions while a run
// streams (the adapter's bridge does; CopilotKit's renderers wait for the
// run to end). With it, a question's answer is its tool's result in the
// same run; without it, the run goes on at once and the answer comes in
// the next run.
const ConcurrentRequestsFeature = "concurrentRequests"

// Deliver answers the call c names; ErrNoQuestion if nothing waits.
func (a *Answers) Deliver(c Caller, answer json.RawMessage) error {
	if a == nil || c.ToolCallID == "" {
		return ErrNoQuestion
	}
	k := answerKey(c)
	a.mu.Lock()
	ch := a.waiting[k]
	delete(a.waiting, k)
	a.mu.Unlock()
	if ch == nil {
		return ErrNoQuestion
	}
	ch <- answer
	return nil
}

// CallerOf is the Caller the adapter put in a request's _meta (for
// in-process servers, which trust it).
func CallerOf(meta mcp.Meta) (Caller, bool) {
	raw, ok := meta[CallerMetaKey]
	if !ok {
		return Caller{}, false
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return Caller{}, false
	}
	var c Caller
	return c, json.Unmarshal(b, &c) == nil && c.ThreadID != ""
}
