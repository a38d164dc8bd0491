package mcpapps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

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
// ended, or the wait expired), on this instance or, with a Relay, on any.
var ErrNoQuestion = errors.New("this question is no longer open (the run ended or the wait expired); answer in the chat instead")

// MaxAnswerBytes is the default cap on an answer (its JSON): a choice or
// a form's values (Answers.MaxBytes sets another). A relayed answer crosses Redis as an escaped string (up to six times
// its size), and a message over the pub/sub output buffer of the
// instance it goes to (Redis's default hard limit is 32 MiB) makes Redis
// drop that instance's subscription, with every answer in flight to it.
const MaxAnswerBytes = 256 << 10

// ErrAnswerTooLarge: an answer over the cap, refused; the question stays
// open.
var ErrAnswerTooLarge = errors.New("the answer is larger than this service takes (toolkit.maxAnswerBytes); shorten it")

// Relay carries answers between instances that share a run log, so that
// an answer given through any instance reaches the run that waits for it
// on another. Keys are opaque to it (Answers names a question by
// principal, thread and tool call). Implementations are safe for
// concurrent use; they hand the answers they bring to Answers.Receive.
type Relay interface {
	// Open announces that this instance waits for the answer to key,
	// for at most ttl.
	Open(ctx context.Context, key string, ttl time.Duration) error
	// Close withdraws this instance's announcement for key, if it is
	// still there.
	Close(ctx context.Context, key string) error
	// Waiting reports whether some instance waits for the answer to key.
	Waiting(ctx context.Context, key string) (bool, error)
	// Deliver hands answer to the instance that waits for key (which
	// then no longer waits for it) and reports whether one took it.
	Deliver(ctx context.Context, key string, answer []byte) (bool, error)
}

// Answers is where a tool call waiting for the user's answer meets that
// answer. An entry lives only while its run waits: memory is bounded by
// the runs in flight. Answers are keyed by principal, thread and tool
// call, so a card or surface can answer only the call it was shown for.
// With a Relay, an answer this instance does not wait for goes to the
// instance that does.
type Answers struct {
	// MaxBytes caps an answer's JSON (0: MaxAnswerBytes); set it before
	// the first Deliver.
	MaxBytes int
	relay    Relay // nil: this instance only
	mu       sync.Mutex
	waiting  map[string]chan json.RawMessage
}

// NewAnswers returns an empty rendezvous; relay (nil: none) reaches the
// questions of other instances.
func NewAnswers(relay Relay) *Answers {
	return &Answers{relay: relay, waiting: map[string]chan json.RawMessage{}}
}

func answerKey(c Caller) string {
	p := c.Principal
	if p == "" {
		p = "anonymous"
	}
	return p + "\x00" + c.ThreadID + "\x00" + c.ToolCallID
}

// relayGrace is how much longer than its wait a question stays announced
// to other instances: time for the run to show it before it waits. Close
// withdraws it at once; the TTL only matters when an instance dies.
const relayGrace = 10 * time.Second

// Wait blocks until the call c names is answered or ctx ends (for at most
// wait, for other instances).
func (a *Answers) Wait(ctx context.Context, c Caller, wait time.Duration) (json.RawMessage, error) {
	q, _ := a.Open(ctx, c, wait)
	defer q.Close(ctx)
	return q.Wait(ctx)
}

// Question is an open question: its answer is kept from Open on, so a
// host that answers as soon as it shows the question is not refused.
type Question struct {
	a  *Answers
	k  string
	ch chan json.RawMessage
}

// Open registers the question the call c names, which its run waits for
// at most wait; open it before it is shown, Wait for its answer, then
// Close it. The question is always open on this instance; an error says
// that the Relay could not announce it, so that only answers given
// through this instance reach it.
func (a *Answers) Open(ctx context.Context, c Caller, wait time.Duration) (*Question, error) {
	q := &Question{a: a, k: answerKey(c), ch: make(chan json.RawMessage, 1)}
	a.mu.Lock()
	a.waiting[q.k] = q.ch
	a.mu.Unlock()
	if a.relay == nil {
		return q, nil
	}
	if err := a.relay.Open(ctx, q.k, wait+relayGrace); err != nil {
		return q, fmt.Errorf("answers from other instances cannot reach this question: %w", err)
	}
	return q, nil
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

// Close ends the question: later answers are refused (ErrNoQuestion),
// here and, with a Relay, through every instance. It withdraws it even
// when ctx has ended (the run was cancelled).
func (q *Question) Close(ctx context.Context) {
	q.a.mu.Lock()
	cur := q.a.waiting[q.k]
	if cur == q.ch {
		delete(q.a.waiting, q.k)
	}
	q.a.mu.Unlock()
	// A newer question with the same key keeps its announcement.
	if q.a.relay != nil && (cur == q.ch || cur == nil) {
		// Best effort: if it fails, the announcement expires with its
		// TTL, and an answer it brings meanwhile finds no question.
		_ = q.a.relay.Close(context.WithoutCancel(ctx), q.k)
	}
}

// Waiting reports whether a run waits for the answer to the call c names,
// on this instance or, with a Relay, on any.
func (a *Answers) Waiting(ctx context.Context, c Caller) bool {
	if a == nil {
		return false
	}
	k := answerKey(c)
	a.mu.Lock()
	here := a.waiting[k] != nil
	a.mu.Unlock()
	if here || a.relay == nil {
		return here
	}
	ok, err := a.relay.Waiting(ctx, k)
	return ok && err == nil
}

// Receive hands an answer a Relay brought from another instance to the
// question key names, and reports whether one here took it. It does not
// block.
func (a *Answers) Receive(key string, answer []byte) bool {
	a.mu.Lock()
	ch := a.waiting[key]
	delete(a.waiting, key)
	a.mu.Unlock()
	if ch == nil {
		return false
	}
	ch <- json.RawMessage(answer)
	return true
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

// Deliver answers the call c names: on this instance if its run waits
// here, else, with a Relay, on the instance whose run waits for it.
// ErrNoQuestion if none waits; ErrAnswerTooLarge over MaxBytes;
// another error if the Relay failed.
func (a *Answers) Deliver(ctx context.Context, c Caller, answer json.RawMessage) error {
	if a == nil || c.ToolCallID == "" {
		return ErrNoQuestion
	}
	max := a.MaxBytes
	if max <= 0 {
		max = MaxAnswerBytes
	}
	if len(answer) > max {
		return ErrAnswerTooLarge
	}
	k := answerKey(c)
	if a.Receive(k, answer) {
		if a.relay != nil {
			// Answered: withdrawn from the other instances at once, so
			// that a second answer through one is told none waits (not
			// "delivered" and dropped). Best effort, as Close's.
			_ = a.relay.Close(context.WithoutCancel(ctx), k)
		}
		return nil
	}
	if a.relay == nil {
		return ErrNoQuestion
	}
	ok, err := a.relay.Deliver(ctx, k, answer)
	switch {
	case err != nil:
		return fmt.Errorf("the answer cannot reach the instance whose run waits for it: %w", err)
	case !ok:
		return ErrNoQuestion
	}
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
