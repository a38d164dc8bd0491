package adapter

// Answers to questions runs wait for (ask_user) given through another
// instance than the run's, on a real Redis.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/genui-adapter/genui-adapter/adapter/runlog"
	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/mcpapps"
)

// twoAskers serves the demo agent with the genui toolkit twice, on one
// Redis prefix and card key, with toolkit.answerWait wait.
func twoAskers(t *testing.T, wait time.Duration) (a, b *adoptedServer) {
	prefix := randomPrefix()
	mk := func(name string) *adoptedServer {
		return serveYAML(t, twoPrincipals+fmt.Sprintf(`instanceId: %s
runlog: {backend: redis, url: "%s", prefix: "%s"}
mcpApps: {capabilityKey: answers-test-capability-key}
toolkit: {answerWait: %s}
agents: {demo: {type: demo, mcpServers: [genui]}}
`, name, testRedisURL(), prefix, wait))
	}
	return mk("asker-a"), mk("asker-b")
}

// startRunAs is startRun with the principal's headers.
func startRunAs(t *testing.T, url, body string, hdr map[string]string) *stream {
	t.Helper()
	resp := doReq(t, "POST", url, body, hdr)
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("POST %s = %d %s", url, resp.StatusCode, b)
	}
	return readStream(resp)
}

// twoRelays opens a Redis run log under a fresh prefix and the answer
// relays of two instances, "a" and "b", each listening until stop is
// called (deferred by the caller, so that its leak check runs after).
func twoRelays(t *testing.T, ctx context.Context) (rl *runlog.Redis, a, b *mcpapps.Answers, stop func()) {
	t.Helper()
	rl, err := runlog.NewRedis(ctx, testRedisURL(), runlog.RedisOptions{Prefix: randomPrefix()})
	if err != nil {
		t.Fatal(err)
	}
	var stops []func()
	stop = func() {
		for _, f := range stops {
			f()
		}
		rl.Close()
	}
	answers := map[string]*mcpapps.Answers{}
	for _, inst := range []string{"a", "b"} {
		relay := rl.AnswerRelay(inst)
		answers[inst] = mcpapps.NewAnswers(relay)
		lctx, cancel := context.WithCancel(ctx)
		done, err := relay.Listen(lctx, answers[inst].Receive)
		if err != nil {
			cancel()
			stop()
			t.Fatal(err)
		}
		stops = append(stops, func() { cancel(); <-done })
	}
	return rl, answers["a"], answers["b"], stop
}

// activity waits for the run's first activity snapshot of type typ.
func (s *stream) activity(t *testing.T, typ string) *agui.ActivitySnapshot {
	t.Helper()
	return s.until(t, func(ev agui.Event) bool {
		a, ok := ev.(*agui.ActivitySnapshot)
		return ok && a.ActivityType == typ
	}).(*agui.ActivitySnapshot)
}

// postAs posts body to url as hdr's principal: the status and the body.
func postAs(t *testing.T, url, body string, hdr map[string]string) (int, string) {
	t.Helper()
	r := doReq(t, "POST", url, body, hdr)
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return r.StatusCode, string(b)
}

// TestAnswersReachTheirRunOnAnyInstance: with two instances sharing the
// Redis run log, a question's answer given through the instance that does
// not run the waiting run reaches that run within a second (through the
// card and through the form); another principal cannot answer it; an
// answer after the wait ended is told no run waits; and a thread whose
// wait expired, or whose waiting run was cancelled, takes its next turn.
func TestAnswersReachTheirRunOnAnyInstance(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, leaks) }) // after the servers' cleanups
	const wait = 3 * time.Second
	a, b := twoAskers(t, wait)
	host := map[string]any{"mcpAppsHost": map[string]any{"concurrentRequests": true}}
	cardHost := map[string]any{"genuiRender": []string{"mcp-apps"}, "mcpAppsHost": map[string]any{"concurrentRequests": true}}
	proxied := func(base, thread, hash, answer string, who map[string]string) (int, string) {
		fp := map[string]any{"__proxiedMCPRequest": map[string]any{"serverHash": hash, "serverId": "genui", "method": "tools/call", "params": map[string]any{"name": "answer_user", "arguments": map[string]any{"answer": answer}}}}
		body, _ := json.Marshal(map[string]any{"threadId": thread, "runId": fmt.Sprintf("px-%d", time.Now().UnixNano()), "messages": []any{}, "forwardedProps": fp})
		return postAs(t, base+"/agents/demo/run", string(body), who)
	}
	serverHash := func(card *agui.ActivitySnapshot) string {
		var c struct {
			ServerHash string `json:"serverHash"`
		}
		_ = json.Unmarshal(card.Content, &c)
		return c.ServerHash
	}

	// The card's answer, through B, to alice's run on A.
	s := startRunAs(t, a.URL+"/agents/demo/run", sayBody("card", "c1", "ask", cardHost), alice)
	hash := serverHash(s.activity(t, "mcp-apps"))
	if _, out := proxied(b.URL, "card", hash, "Basic", bob); strings.Contains(out, `delivered`) || !strings.Contains(out, `"code":-32600`) {
		t.Errorf("bob answered alice's question with her card's capability: %s", out)
	}
	sent := time.Now()
	if code, out := proxied(b.URL, "card", hash, "Enterprise", alice); code != 200 || !strings.Contains(out, `"delivered":true`) {
		t.Fatalf("alice's answer through B = %d %s", code, out)
	}
	if rest := s.rest(t); !strings.Contains(rest, `you answered "Enterprise"`) || !strings.Contains(rest, "RUN_FINISHED") {
		t.Errorf("the waiting run on A: %s", rest)
	}
	if d := time.Since(sent); d > time.Second {
		t.Errorf("the run on A finished %s after the answer through B, want within 1s", d)
	}
	if _, out := proxied(b.URL, "card", hash, "Pro", alice); !strings.Contains(out, `"delivered":false`) || !strings.Contains(out, "No run waits") {
		t.Errorf("a second answer through B: %s", out)
	}

	// The form's answer (a surface action alongside the waiting run),
	// through B, to alice's run on A.
	s = startRunAs(t, a.URL+"/agents/demo/run", sayBody("form", "f1", "ask", host), alice)
	var content struct {
		Ops []map[string]map[string]any `json:"a2ui_operations"`
	}
	_ = json.Unmarshal(s.activity(t, "a2ui-surface").Content, &content)
	sid, _ := content.Ops[0]["createSurface"]["surfaceId"].(string)
	action := func(who map[string]string, answer string) (int, string) {
		fp := map[string]any{"a2uiAction": map[string]any{"userAction": map[string]any{"name": "answer_user", "surfaceId": sid, "sourceComponentId": "send", "context": map[string]any{"answer": []string{answer}, "mode": "single"}}}}
		body, _ := json.Marshal(map[string]any{"threadId": "form", "runId": fmt.Sprintf("act-%d", time.Now().UnixNano()), "messages": []any{}, "forwardedProps": fp})
		return postAs(t, b.URL+"/agents/demo/run", string(body), who)
	}
	if code, out := action(bob, "Basic"); code == 200 && !strings.Contains(out, "RUN_ERROR") {
		t.Errorf("bob's action on alice's surface through B = %d %s", code, out)
	}
	sent = time.Now()
	if code, out := action(alice, "Pro"); code != 200 || !strings.Contains(out, "Answered: Pro") || !strings.Contains(out, "RUN_FINISHED") {
		t.Fatalf("alice's form answer through B = %d %s", code, out)
	}
	if rest := s.rest(t); !strings.Contains(rest, `you answered "Pro"`) {
		t.Errorf("the waiting run on A: %s", rest)
	}
	if d := time.Since(sent); d > time.Second {
		t.Errorf("the run on A finished %s after the form's answer through B, want within 1s", d)
	}

	// No answer within answerWait: the run on A goes on without one and
	// ends; an answer through B is then told no run waits, and the
	// thread's next turn through B runs (not 409 thread_busy).
	s = startRunAs(t, a.URL+"/agents/demo/run", sayBody("late", "l1", "ask", cardHost), alice)
	hash = serverHash(s.activity(t, "mcp-apps"))
	if rest := s.rest(t); !strings.Contains(rest, fmt.Sprintf("did not answer within %s", wait)) || !strings.Contains(rest, "RUN_FINISHED") {
		t.Fatalf("the unanswered run: %s", rest)
	}
	if _, out := proxied(b.URL, "late", hash, "Basic", alice); !strings.Contains(out, `"delivered":false`) {
		t.Errorf("an answer after the wait ended: %s", out)
	}
	if code, out := postAs(t, b.URL+"/agents/demo/run", sayBody("late", "l2", "kpis", nil), alice); code != 200 || !strings.Contains(out, "RUN_FINISHED") {
		t.Errorf("the next turn after the wait expired = %d %s", code, out)
	}

	// The waiting run cancelled through B: it ends at once, its question
	// closes everywhere, and the thread takes its next turn.
	s = startRunAs(t, a.URL+"/agents/demo/run", sayBody("gone", "g1", "ask", cardHost), alice)
	hash = serverHash(s.activity(t, "mcp-apps"))
	sent = time.Now()
	if code, out := postAs(t, b.URL+"/runs/g1/cancel", "", alice); code/100 != 2 {
		t.Fatalf("cancel through B = %d %s", code, out)
	}
	s.until(t, func(ev agui.Event) bool { return ev.Type() == agui.TypeRunError || ev.Type() == agui.TypeRunFinished })
	if d := time.Since(sent); d > time.Second {
		t.Errorf("the cancelled run ended %s after the cancel, want within 1s", d)
	}
	if _, out := proxied(b.URL, "gone", hash, "Basic", alice); !strings.Contains(out, `"delivered":false`) {
		t.Errorf("an answer after the run was cancelled: %s", out)
	}
	if code, out := postAs(t, b.URL+"/agents/demo/run", sayBody("gone", "g2", "kpis", nil), alice); code != 200 || !strings.Contains(out, "RUN_FINISHED") {
		t.Errorf("the next turn after the cancel = %d %s", code, out)
	}
}

// TestAnswerRelayIsPerPrincipal: through the relay, a question is answered
// only under the principal, thread and tool call it was opened for, once,
// and not after it closed; a run cancelled while it waits withdraws it;
// an answer to the question of an instance that is gone is not delivered.
func TestAnswerRelayIsPerPrincipal(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rl, a, b, stop := twoRelays(t, ctx)
	defer stop()
	alice := mcpapps.Caller{Principal: "alice", ThreadID: "t", ToolCallID: "q1"}
	q, err := a.Open(ctx, alice, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []mcpapps.Caller{{Principal: "bob", ThreadID: "t", ToolCallID: "q1"}, {ThreadID: "t", ToolCallID: "q1"}, {Principal: "alice", ThreadID: "t2", ToolCallID: "q1"}, {Principal: "alice", ThreadID: "t", ToolCallID: "q2"}} {
		if b.Waiting(ctx, c) {
			t.Errorf("%+v: B says a run waits", c)
		}
		if err := b.Deliver(ctx, c, json.RawMessage(`"x"`)); !errors.Is(err, mcpapps.ErrNoQuestion) {
			t.Errorf("%+v answered alice's question through B: %v", c, err)
		}
	}
	if !b.Waiting(ctx, alice) {
		t.Fatal("B does not see alice's question on A")
	}
	if err := b.Deliver(ctx, alice, json.RawMessage(`"B"`)); err != nil {
		t.Fatalf("alice's answer through B: %v", err)
	}
	wctx, wcancel := context.WithTimeout(ctx, time.Second)
	got, err := q.Wait(wctx)
	wcancel()
	if err != nil || string(got) != `"B"` {
		t.Fatalf("the question on A got %s, %v; want \"B\"", got, err)
	}
	if err := b.Deliver(ctx, alice, json.RawMessage(`"again"`)); !errors.Is(err, mcpapps.ErrNoQuestion) {
		t.Errorf("a second answer through B: %v", err)
	}
	q.Close(ctx)
	if b.Waiting(ctx, alice) || a.Waiting(ctx, alice) {
		t.Error("a closed question still waits")
	}

	// Opened again, then the run is cancelled while it waits: its Close
	// (with the run's ended ctx) withdraws it everywhere.
	rctx, rcancel := context.WithCancel(ctx)
	q, _ = a.Open(rctx, alice, time.Minute)
	rcancel()
	if _, err := q.Wait(rctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait after cancel: %v", err)
	}
	q.Close(rctx)
	if err := b.Deliver(ctx, alice, json.RawMessage(`"late"`)); !errors.Is(err, mcpapps.ErrNoQuestion) {
		t.Errorf("an answer after the cancelled run's wait: %v", err)
	}

	// An instance that announced a question and is gone (no listener):
	// the answer reaches no one, and its sender is told so.
	gone := mcpapps.NewAnswers(rl.AnswerRelay("gone"))
	if _, err := gone.Open(ctx, alice, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := b.Deliver(ctx, alice, json.RawMessage(`"x"`)); !errors.Is(err, mcpapps.ErrNoQuestion) {
		t.Errorf("an answer to a gone instance's question: %v", err)
	}
}

// TestAnsweredQuestionIsWithdrawnAtOnce: a question answered through its
// own instance is withdrawn from the other instances at once, not when
// its run gets round to closing it: a second answer (a double click, a
// replayed request) through another instance is told no run waits,
// rather than "delivered" and dropped.
func TestAnsweredQuestionIsWithdrawnAtOnce(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, a, b, stop := twoRelays(t, ctx)
	defer stop()
	alice := mcpapps.Caller{Principal: "alice", ThreadID: "t", ToolCallID: "q1"}
	q, err := a.Open(ctx, alice, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close(ctx)
	if err := a.Deliver(ctx, alice, json.RawMessage(`"first"`)); err != nil {
		t.Fatalf("the answer through A: %v", err)
	}
	// The run has not closed its question yet.
	if b.Waiting(ctx, alice) {
		t.Error("B still sees the answered question waiting")
	}
	if err := b.Deliver(ctx, alice, json.RawMessage(`"second"`)); !errors.Is(err, mcpapps.ErrNoQuestion) {
		t.Errorf("a second answer through B: %v, want ErrNoQuestion", err)
	}
	if got, err := q.Wait(ctx); err != nil || string(got) != `"first"` {
		t.Errorf("the question got %s, %v; want the first answer", got, err)
	}
}
