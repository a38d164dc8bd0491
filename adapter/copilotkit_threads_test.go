package adapter

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// threadServers serves the demo agent for two principals with the
// memory and the Redis run log (Redis must be up: the test fails, never
// skips, without it).
func threadServers(t *testing.T, extra string) map[string]string {
	out := map[string]string{}
	for name, rl := range map[string]string{
		"memory": "",
		"redis":  fmt.Sprintf("runlog: {backend: redis, url: %q, prefix: %q}\n", testRedisURL(), randomPrefix()),
	} {
		out[name] = serveYAML(t, twoPrincipals+rl+extra+"agents: {default: {type: demo}, other: {type: demo}}\n").URL + cpk
	}
	return out
}

// cpkRunOn runs the demo agent on a thread and waits for the run's end.
func cpkRunOn(t *testing.T, base string, who map[string]string, agent, thread, text string) {
	t.Helper()
	body := fmt.Sprintf(`{"threadId":%q,"runId":%q,"messages":[{"id":"u-%s","role":"user","content":%q}]}`, thread, "r-"+thread+"-"+text, thread+text, text)
	s := startRunAs(t, base+"/agent/"+agent+"/run", body, who)
	s.rest(t)
}

// call sends a request with a JSON body and returns the status and body.
func call(t *testing.T, method, url, body string, who map[string]string) (int, map[string]any) {
	t.Helper()
	r := doReq(t, method, url, body, who)
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	var m map[string]any
	if len(b) > 0 {
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s %s: body %q: %v", method, url, b, err)
		}
	}
	return r.StatusCode, m
}

func threadList(t *testing.T, url string, who map[string]string) ([]string, map[string]any) {
	t.Helper()
	code, m := call(t, "GET", url, "", who)
	if code != 200 {
		t.Fatalf("GET %s = %d %v", url, code, m)
	}
	var ids []string
	for _, th := range m["threads"].([]any) {
		ids = append(ids, th.(map[string]any)["id"].(string))
	}
	return ids, m
}

func TestCopilotKitThreads(t *testing.T) {
	for name, base := range threadServers(t, "copilotkit: {threads: {maxPage: 3, maxTitleBytes: 8}}\n") {
		t.Run(name, func(t *testing.T) {
			for _, th := range []string{"t1", "t2", "t3", "t4"} {
				cpkRunOn(t, base, alice, "default", th, "hi")
			}
			cpkRunOn(t, base, alice, "other", "t5", "hi")
			cpkRunOn(t, base, bob, "default", "t1", "bob here")

			// The list: alice's, the agent's, newest first, paged.
			ids, m := threadList(t, base+"/threads?agentId=default", alice)
			if !slices.Equal(ids, []string{"t4", "t3", "t2"}) || m["nextCursor"] == nil {
				t.Fatalf("first page = %v (cursor %v), want t4 t3 t2 and a cursor (maxPage 3)", ids, m["nextCursor"])
			}
			first := m["threads"].([]any)[0].(map[string]any)
			for _, k := range []string{"createdAt", "updatedAt", "lastRunAt"} {
				if s, _ := first[k].(string); len(s) != len("2006-01-02T15:04:05.000Z") || !strings.HasSuffix(s, "Z") {
					t.Errorf("%s = %v, want an ISO time", k, first[k])
				}
			}
			if first["name"] != nil || first["agentId"] != "default" || first["archived"] != false {
				t.Errorf("thread record = %v", first)
			}
			ids, m = threadList(t, base+"/threads?agentId=default&limit=2&cursor="+m["nextCursor"].(string), alice)
			if !slices.Equal(ids, []string{"t1"}) || m["nextCursor"] != nil {
				t.Errorf("second page = %v (cursor %v), want t1 and no cursor", ids, m["nextCursor"])
			}
			if ids, _ := threadList(t, base+"/threads", alice); !slices.Equal(ids, []string{"t5", "t4", "t3"}) {
				t.Errorf("every agent's = %v", ids)
			}
			if ids, _ := threadList(t, base+"/threads?agentId=default", bob); !slices.Equal(ids, []string{"t1"}) {
				t.Errorf("bob's = %v, want his own t1 only", ids)
			}
			for _, q := range []string{"limit=0", "limit=x", "limit=-1", "cursor=%21%21", "cursor=e30", "agentId=a%00b"} {
				if code, m := call(t, "GET", base+"/threads?"+q, "", alice); code != 400 || m["error"] == nil {
					t.Errorf("GET /threads?%s = %d %v, want 400", q, code, m)
				}
			}

			// A thread's messages, events, state: the principal's own.
			code, m := call(t, "GET", base+"/threads/t1/messages", "", alice)
			msgs, _ := json.Marshal(m["messages"])
			if code != 200 || !strings.Contains(string(msgs), `"content":"hi","id":"u-t1hi","role":"user"`) || !strings.Contains(string(msgs), `"role":"assistant"`) ||
				!strings.Contains(string(msgs), `"activityType":"a2ui-surface"`) || strings.Contains(string(msgs), "bob here") {
				t.Errorf("alice's t1 messages = %d %s", code, msgs)
			}
			if _, m := call(t, "GET", base+"/threads/t1/messages", "", bob); !strings.Contains(fmt.Sprint(m), "bob here") {
				t.Errorf("bob's t1 messages = %v", m)
			}
			code, m = call(t, "GET", base+"/threads/t1/events", "", alice)
			evs, _ := m["events"].([]any)
			if code != 200 || len(evs) < 3 || evs[0].(map[string]any)["type"] != "RUN_STARTED" {
				t.Errorf("events = %d %v", code, m)
			}
			// The demo agent keeps {scenario, turns} in its state.
			if code, m := call(t, "GET", base+"/threads/t1/state", "", alice); code != 200 || len(m) != 1 || fmt.Sprint(m["state"]) != "map[scenario:greeting turns:1]" {
				t.Errorf("state = %d %v, want the demo's state", code, m)
			}

			// Another principal's thread is an unknown one.
			for _, tt := range []struct{ method, path, body string }{
				{"GET", "/threads/%s/messages", ""},
				{"GET", "/threads/%s/events", ""},
				{"GET", "/threads/%s/state", ""},
				{"PATCH", "/threads/%s", `{"agentId":"default","name":"x"}`},
				{"POST", "/threads/%s/archive", `{"agentId":"default"}`},
				{"DELETE", "/threads/%s", `{"agentId":"default"}`},
			} {
				fc, foreign := call(t, tt.method, base+fmt.Sprintf(tt.path, "t2"), tt.body, bob)
				nc, none := call(t, tt.method, base+fmt.Sprintf(tt.path, "t9"), tt.body, alice)
				if fc != 404 || nc != 404 || foreign["error"] != "thread_not_found" || fmt.Sprint(foreign) != strings.ReplaceAll(fmt.Sprint(none), "t9", "t2") {
					t.Errorf("%s %s: bob on alice's t2 = %d %v; alice on unknown t9 = %d %v; want the same 404", tt.method, tt.path, fc, foreign, nc, none)
				}
				if tt.method == "GET" {
					if code, own := call(t, tt.method, base+fmt.Sprintf(tt.path, "t2"), "", alice); code != 200 {
						t.Errorf("alice's own t2: %d %v", code, own)
					}
				}
			}
			if ids, _ := threadList(t, base+"/threads?agentId=default", alice); !slices.Equal(ids, []string{"t4", "t3", "t2"}) {
				t.Errorf("after bob's attempts alice has %v", ids)
			}

			// Rename, archive, unarchive.
			code, m = call(t, "PATCH", base+"/threads/t1", `{"agentId":"default","name":"Plans"}`, alice)
			if code != 200 || m["name"] != "Plans" || m["id"] != "t1" {
				t.Errorf("rename = %d %v", code, m)
			}
			if code, m := call(t, "PATCH", base+"/threads/t1", `{"agentId":"default","name":"Nine bytes"}`, alice); code != 400 || m["error"] != "title_too_long" || !strings.Contains(m["message"].(string), "maxTitleBytes") {
				t.Errorf("a 10-byte name over maxTitleBytes 8 = %d %v", code, m)
			}
			for _, body := range []string{`{"name":"x"}`, `{"agentId":"default","name":5}`, `not json`} {
				if code, m := call(t, "PATCH", base+"/threads/t1", body, alice); code != 400 {
					t.Errorf("PATCH %s = %d %v, want 400", body, code, m)
				}
			}
			if code, m := call(t, "POST", base+"/threads/t4/archive", `{"agentId":"default"}`, alice); code != 200 || m["threadId"] != "t4" || m["archived"] != true {
				t.Errorf("archive = %d %v", code, m)
			}
			if ids, _ := threadList(t, base+"/threads?agentId=default", alice); slices.Contains(ids, "t4") {
				t.Errorf("archived t4 listed: %v", ids)
			}
			if ids, _ := threadList(t, base+"/threads?agentId=default&includeArchived=true", alice); !slices.Contains(ids, "t4") {
				t.Errorf("includeArchived leaves t4 out: %v", ids)
			}
			if code, m := call(t, "PATCH", base+"/threads/t4", `{"agentId":"default","archived":false}`, alice); code != 200 || m["archived"] != false {
				t.Errorf("unarchive = %d %v", code, m)
			}

			// Delete, clear.
			if code, m := call(t, "DELETE", base+"/threads/t3", `{"agentId":"default"}`, alice); code != 200 || m["deleted"] != true || m["threadId"] != "t3" {
				t.Errorf("delete = %d %v", code, m)
			}
			if code, _ := call(t, "GET", base+"/threads/t3/messages", "", alice); code != 404 {
				t.Errorf("messages of a deleted thread = %d", code)
			}
			if ids, _ := threadList(t, base+"/threads?agentId=default", alice); slices.Contains(ids, "t3") {
				t.Errorf("deleted t3 listed: %v", ids)
			}
			if code, _ := call(t, "POST", base+"/threads/clear", "", bob); code != 204 {
				t.Errorf("clear = %d", code)
			}
			if ids, _ := threadList(t, base+"/threads", bob); len(ids) != 0 {
				t.Errorf("bob's threads after clear = %v", ids)
			}
			if ids, _ := threadList(t, base+"/threads?agentId=default", alice); !slices.Equal(ids, []string{"t4", "t2", "t1"}) {
				t.Errorf("alice's threads after bob's clear = %v", ids)
			}
			for _, mp := range [][2]string{{"PUT", "/threads/t1"}, {"GET", "/threads/t1"}, {"POST", "/threads/t1"}, {"POST", "/threads"}, {"GET", "/threads/clear"}, {"DELETE", "/threads/t1/messages"}} {
				if code, m := call(t, mp[0], base+mp[1], "", alice); code != http.StatusMethodNotAllowed {
					t.Errorf("%s %s = %d %v, want 405", mp[0], mp[1], code, m)
				}
			}
			if code, _ := call(t, "GET", base+"/threads", "", nil); code != http.StatusUnauthorized {
				t.Errorf("without credentials = %d, want 401", code)
			}
		})
	}
}

func TestCopilotKitInfoThreadEndpoints(t *testing.T) {
	base := serveYAML(t, "agents: {default: {type: demo}}\n").URL + cpk
	_, info, _ := getJSON(t, base+"/info", nil)
	te, _ := json.Marshal(info["threadEndpoints"])
	if string(te) != `{"inspect":true,"list":true,"mutations":true,"realtimeMetadata":false}` {
		t.Errorf("threadEndpoints = %s", te)
	}
}

// A CopilotKit page on another origin renames and deletes threads with
// PATCH and DELETE: the preflight allows them (the browser refuses the
// request otherwise, and the thread list's delete does nothing).
func TestCopilotKitThreadMutationPreflight(t *testing.T) {
	up := newCountingUpstream(t, 10, time.Millisecond)
	base := cpkServer(t, up.URL) + cpk
	for _, m := range []string{"PATCH", "DELETE"} {
		req, _ := http.NewRequest("OPTIONS", base+"/threads/t1", nil)
		req.Header.Set("Origin", "http://localhost:5173")
		req.Header.Set("Access-Control-Request-Method", m)
		req.Header.Set("Access-Control-Request-Headers", "content-type,authorization")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		allow := strings.Split(resp.Header.Get("Access-Control-Allow-Methods"), ", ")
		if resp.StatusCode != 204 || !slices.Contains(allow, m) {
			t.Errorf("preflight for %s = %d, Access-Control-Allow-Methods %q", m, resp.StatusCode, resp.Header.Get("Access-Control-Allow-Methods"))
		}
	}
}
