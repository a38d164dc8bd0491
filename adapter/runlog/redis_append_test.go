package runlog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/genui-adapter/genui-adapter/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// TestRedisAppendCommands: an append of one event, as the appenders make
// them (a batch of runs, each with its first sequence number), costs Redis
// at most 7 commands; Redis's time in the append script is its commands.
func TestRedisAppendCommands(t *testing.T) {
	ctx := context.Background()
	l := privateRedis(t)
	const runs = 40
	reqs := startedRuns(t, l, runs)
	for i := range reqs {
		reqs[i].Events = [][]byte{ev(i)}
	}
	// The first append takes the lease back into the per-append path:
	// measure the second.
	for _, res := range l.AppendBatch(ctx, reqs) {
		if res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	for i := range reqs {
		reqs[i].First = 2
	}
	before := commandCalls(t, l.rdb)
	for i, res := range l.AppendBatch(ctx, reqs) {
		if res.Err != nil || res.Last != 2 {
			t.Fatalf("run %d: %+v", i, res)
		}
	}
	if per := float64(commandCalls(t, l.rdb)-before) / runs; per > 7 {
		t.Errorf("Redis commands per one-event append = %.1f, want at most 7", per)
	}
}

// commandCalls is how many commands Redis ran, scripts and INFO aside.
func commandCalls(t testing.TB, rdb *redis.Client) int64 {
	t.Helper()
	info, err := rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for line := range strings.Lines(info) {
		name, stats, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "cmdstat_"), ":")
		if !ok || name == "info" || name == "evalsha" || name == "eval" {
			continue
		}
		calls, _, _ := strings.Cut(strings.TrimPrefix(stats, "calls="), ",")
		c, _ := strconv.ParseInt(calls, 10, 64)
		n += c
	}
	return n
}

// TestAppendBatchLongAppend: an append of more events than Lua's unpack
// takes at once (what piles up while the log does not answer) is written
// whole, in order, its last event terminal, beside a short one.
func TestAppendBatchLongAppend(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			l := b.new(t, MemoryOptions{}, RedisOptions{})
			ctx := context.Background()
			long, short := run("o", "long", "tl"), run("o", "short", "ts")
			for _, r := range []Run{long, short} {
				if _, err := l.Start(ctx, r, false); err != nil {
					t.Fatal(err)
				}
			}
			const n = 10000
			evs := make([][]byte, n)
			for i := range evs {
				evs[i] = ev(i + 1)
			}
			evs[n-1] = finished
			res := l.AppendBatch(ctx, []AppendRequest{
				{Run: long, Events: evs, Terminal: true, First: 1},
				{Run: short, Events: [][]byte{ev(1)}, First: 1},
			})
			if res[0].Err != nil || res[0].Last != n || res[1].Err != nil || res[1].Last != 1 {
				t.Fatalf("AppendBatch = %+v", res)
			}
			var got []Entry
			for after := int64(0); ; {
				page, err := l.Read(ctx, long.Ref(), after, 1000)
				if err != nil {
					t.Fatal(err)
				}
				if len(page) == 0 {
					break
				}
				got = append(got, page...)
				after = page[len(page)-1].Seq
			}
			if len(got) != n {
				t.Fatalf("read %d events, want %d", len(got), n)
			}
			for i, e := range got {
				if e.Seq != int64(i+1) || string(e.Data) != string(evs[i]) || e.Terminal != (i == n-1) {
					t.Fatalf("event %d = seq %d %s terminal %v", i+1, e.Seq, e.Data, e.Terminal)
				}
			}
		})
	}
}

// TestRedisAppendKeepsTTLs: after appends every key of a run expires
// within the retention (the sequence number too, written with its TTL),
// and an ended run's keys as well.
func TestRedisAppendKeepsTTLs(t *testing.T) {
	const retention = time.Minute
	l := backends()[1].new(t, MemoryOptions{}, RedisOptions{Retention: retention}).(*Redis)
	ctx := context.Background()
	r := run("o", "ttl", "tt")
	if _, err := l.Start(ctx, r, false); err != nil {
		t.Fatal(err)
	}
	k := l.keys(r)
	check := func(when string, keys ...string) {
		t.Helper()
		for _, key := range keys {
			ttl, err := l.rdb.PTTL(ctx, key).Result()
			if err != nil || ttl <= 0 || ttl > retention {
				t.Errorf("%s: TTL of %s = %v, %v; want within %v", when, key, ttl, err, retention)
			}
		}
	}
	for i := range 3 {
		if res := l.AppendBatch(ctx, []AppendRequest{{Run: r, Events: [][]byte{ev(i)}, First: int64(i + 1)}}); res[0].Err != nil {
			t.Fatal(res[0].Err)
		}
	}
	check("running", k.meta, k.seq, k.stream, k.bytes)
	if _, err := l.Append(ctx, r, [][]byte{finished}, true); err != nil {
		t.Fatal(err)
	}
	check("ended", k.meta, k.seq, k.stream, k.bytes, k.end)
	if _, err := l.Append(ctx, r, [][]byte{ev(9)}, false); !errors.Is(err, ErrFinished) {
		t.Errorf("append after the end = %v, want ErrFinished", err)
	}
}

// TestAppendBatchAllocates: an append, as the appenders make them, allocates
// a few values in the adapter, whatever its run's keys and arguments: at
// 1,000 streams what every append allocated (41 values, 3 KB: each run's
// eleven keys built and boxed, every argument boxed, the script's argument
// list grown) set how often the collector ran.
func TestAppendBatchAllocates(t *testing.T) {
	ctx := context.Background()
	l := privateRedis(t)
	const runs = 128
	reqs := startedRuns(t, l, runs)
	event := [][]byte{ev(1)}
	appendAll := func() {
		for i := range reqs {
			reqs[i].Events = event
		}
		for i, res := range l.AppendBatch(ctx, reqs) {
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			reqs[i].First = res.Last + 1
		}
	}
	appendAll()
	if per := testing.AllocsPerRun(20, appendAll) / runs; per > 6 {
		t.Errorf("allocations per append = %.1f, want at most 6", per)
	}
}

// TestLeaseAllocates: renewing the leases of the runs an instance executes
// reuses the keys their appends built (heads) and the script's argument
// lists; building them for every renewal was 35 values a run, some 3 MB a
// round at 1,000 runs, every third of a lease TTL.
func TestLeaseAllocates(t *testing.T) {
	ctx := context.Background()
	l := privateRedis(t)
	const n = 128
	reqs := startedRuns(t, l, n)
	runs := make([]Run, n)
	for i, q := range reqs {
		runs[i] = q.Run
	}
	renew := func() {
		res, err := l.Lease(ctx, runs, "i1", 5*time.Second)
		if err != nil || len(res) != n {
			t.Fatalf("lease: %d results, %v", len(res), err)
		}
		for _, r := range res {
			if r.Lost || r.Cancel != "" {
				t.Fatalf("lease of %s: %+v", r.Run.ID, r)
			}
		}
	}
	renew()
	if per := testing.AllocsPerRun(20, renew) / n; per > 8 {
		t.Errorf("allocations per run's renewal = %.1f, want at most 8", per)
	}
	// Redis lost its scripts (a restart): the renewal sends them whole.
	if err := l.rdb.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	renew()
}

// privateRedis is a Redis log on a Redis server of the test's own, closed
// when the test ends.
func privateRedis(t *testing.T) *Redis {
	t.Helper()
	l, err := NewRedis(context.Background(), redistest.Start(t).URL(), RedisOptions{Prefix: prefix()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// startedRuns starts n runs on l, each on a thread of its own, and returns
// an append request of each from its first event (Events to be set).
func startedRuns(tb testing.TB, l *Redis, n int) []AppendRequest {
	tb.Helper()
	reqs := make([]AppendRequest, n)
	for i := range reqs {
		r := run("o", fmt.Sprintf("r%d", i), fmt.Sprintf("t%d", i))
		if _, err := l.Start(context.Background(), r, false); err != nil {
			tb.Fatal(err)
		}
		reqs[i] = AppendRequest{Run: r, First: 1}
	}
	return reqs
}

// TestAppendHeadsBounded: the heads the log keeps for its appending runs
// go when a run ends, or when it stops appending for two generations, and
// a run taken over by another instance gets a head of its own.
func TestAppendHeadsBounded(t *testing.T) {
	l := backends()[1].new(t, MemoryOptions{}, RedisOptions{}).(*Redis)
	ctx := context.Background()
	ended, idle, moved := run("o", "ended", "te"), run("o", "idle", "ti"), run("o", "moved", "tm")
	for _, r := range []Run{ended, idle, moved} {
		if _, err := l.Start(ctx, r, false); err != nil {
			t.Fatal(err)
		}
	}
	appendOne := func(r Run, first int64, terminal bool) {
		t.Helper()
		e := ev(int(first))
		if terminal {
			e = finished
		}
		if res := l.AppendBatch(ctx, []AppendRequest{{Run: r, Events: [][]byte{e}, Terminal: terminal, First: first}}); res[0].Err != nil {
			t.Fatal(res[0].Err)
		}
	}
	kept := func() int {
		l.heads.mu.Lock()
		defer l.heads.mu.Unlock()
		refs := map[Ref]*appendHead{}
		maps.Copy(refs, l.heads.old)
		maps.Copy(refs, l.heads.cur)
		return len(refs)
	}
	appendOne(ended, 1, false)
	appendOne(idle, 1, false)
	if n := kept(); n != 2 {
		t.Fatalf("heads kept = %d, want 2", n)
	}
	appendOne(ended, 2, true)
	if n := kept(); n != 1 {
		t.Fatalf("after a run's end heads kept = %d, want 1 (the idle run's)", n)
	}
	// Two generations pass while only "moved" appends: the idle run's head
	// goes.
	for i := range 2 {
		l.heads.mu.Lock()
		l.heads.since = l.heads.since.Add(-2 * headsGeneration)
		l.heads.mu.Unlock()
		appendOne(moved, int64(i+1), false)
	}
	if n := kept(); n != 1 {
		t.Fatalf("after two generations heads kept = %d, want 1 (the appending run's)", n)
	}
	h := l.heads.get(l, moved)
	moved.Instance = "another"
	if h2 := l.heads.get(l, moved); h2 == h || h2.instance != "another" {
		t.Errorf("a run taken over by another instance kept its old head (instance %v)", h2.instance)
	}
}

// BenchmarkRedisAppendBatch is the Redis run log's cost per run-append
// as the appenders make them: batches of 128 running runs, each append
// carrying one or two events with its first sequence number, on a
// private Redis. Beside the time per append it reports Redis's own
// figures per append: its CPU (INFO cpu), the time it spent in the
// append script (INFO commandstats) and the commands the script called.
func BenchmarkRedisAppendBatch(b *testing.B) {
	// A run that can be taken over (a LangGraph run started resumable)
	// carries its hand-over checkpoint with each append: the cases with
	// one measure what it adds.
	for _, c := range []struct{ events, checkpoint int }{{1, 0}, {2, 0}, {1, 512}, {1, 4096}} {
		events := c.events
		name := fmt.Sprintf("events=%d", events)
		if c.checkpoint > 0 {
			name += fmt.Sprintf("/checkpoint=%dB", c.checkpoint)
		}
		b.Run(name, func(b *testing.B) {
			srv := redistest.Start(b)
			ctx := context.Background()
			l, err := NewRedis(ctx, srv.URL(), RedisOptions{Prefix: prefix()})
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			const runs = 128
			reqs := startedRuns(b, l, runs)
			batch := make([][]byte, events)
			for k := range batch {
				batch[k] = []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a token or two of an answer"}`)
			}
			before := redisStats(b, l.rdb)
			ckpt := bytes.Repeat([]byte("c"), c.checkpoint)
			for b.Loop() {
				for i := range reqs {
					reqs[i].Events = batch
					if c.checkpoint > 0 {
						reqs[i].Checkpoint = ckpt
					}
				}
				for i, res := range l.AppendBatch(ctx, reqs) {
					if res.Err != nil {
						b.Fatal(res.Err)
					}
					reqs[i].First = res.Last + 1
				}
			}
			after := redisStats(b, l.rdb)
			appends := float64(b.N * runs)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/appends, "ns/append")
			b.ReportMetric((after.cpu-before.cpu)*1e6/appends, "redis-cpu-µs/append")
			b.ReportMetric((after.scriptUsec-before.scriptUsec)/appends, "script-µs/append")
			b.ReportMetric((after.calls-before.calls)/appends, "redis-cmds/append")
		})
	}
}

// redisNumbers are a Redis's CPU seconds, the microseconds it spent in
// scripts and the commands it ran other than scripts and INFO.
type redisNumbers struct{ cpu, scriptUsec, calls float64 }

func redisStats(b *testing.B, rdb *redis.Client) redisNumbers {
	b.Helper()
	info, err := rdb.Info(context.Background(), "cpu", "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	var n redisNumbers
	for line := range strings.Lines(info) {
		line = strings.TrimSpace(line)
		if k, v, ok := strings.Cut(line, ":"); ok && (k == "used_cpu_sys" || k == "used_cpu_user") {
			f, _ := strconv.ParseFloat(v, 64)
			n.cpu += f
		}
		name, stats, ok := strings.Cut(strings.TrimPrefix(line, "cmdstat_"), ":")
		if !ok || !strings.HasPrefix(line, "cmdstat_") || name == "info" {
			continue
		}
		for field := range strings.SplitSeq(stats, ",") {
			k, v, _ := strings.Cut(field, "=")
			f, _ := strconv.ParseFloat(v, 64)
			switch {
			case k == "usec" && (name == "evalsha" || name == "eval"):
				n.scriptUsec += f
			case k == "calls" && name != "evalsha" && name != "eval":
				n.calls += f
			}
		}
	}
	return n
}

// splitPipelines runs each pipeline that calls a script one command at a
// time, calling between after each: Redis runs other clients' commands
// between a pipeline's (it is no transaction).
type splitPipelines struct{ between func() }

func (*splitPipelines) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (*splitPipelines) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }

func (s *splitPipelines) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if !slices.ContainsFunc(cmds, func(c redis.Cmder) bool { return c.Name() == "evalsha" }) {
			return next(ctx, cmds)
		}
		var first error
		for i := range cmds {
			if err := next(ctx, cmds[i:i+1]); err != nil && first == nil {
				first = err
			}
			s.between()
		}
		return first
	}
}

// TestAppendHistoryBeforeItsEvents: an append's history is in Redis
// before its events are, though other clients' commands run between a
// pipeline's: whoever sees the run's end (its terminal event, its thread
// free) finds the history it ended with, as does a run started on the
// thread then.
func TestAppendHistoryBeforeItsEvents(t *testing.T) {
	ctx := context.Background()
	p := prefix()
	l, err := NewRedis(ctx, redisURL(), RedisOptions{Prefix: p})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	other, err := NewRedis(ctx, redisURL(), RedisOptions{Prefix: p})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	r1 := run("o", "r1", "t")
	if _, _, err := l.StartWithHistory(ctx, r1, false); err != nil {
		t.Fatal(err)
	}
	if res := l.AppendBatch(ctx, []AppendRequest{{Run: r1, Events: [][]byte{ev(1)}, First: 1, History: []byte(`{"h":1}`)}}); res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	ended := 0
	l.rdb.AddHook(&splitPipelines{between: func() {
		active, err := other.Active(ctx, r1.Thread())
		if err != nil {
			t.Error(err)
			return
		}
		es, err := other.Read(ctx, r1.Ref(), 1, 10)
		if err != nil {
			t.Error(err)
			return
		}
		if active != "" && len(es) == 0 {
			return // not ended yet
		}
		ended++
		if h, err := other.History(ctx, r1.Thread()); err != nil || string(h) != `{"h":2}` {
			t.Errorf("the run's end seen (thread active %q, %d events after the first) with the history %q, %v; want the one its end carries", active, len(es), h, err)
		}
	}})
	res := l.AppendBatch(ctx, []AppendRequest{{Run: r1, Events: [][]byte{finished}, Terminal: true, First: 2, History: []byte(`{"h":2}`)}})
	if res[0].Err != nil || res[0].Last != 2 {
		t.Fatalf("terminal append = %+v", res[0])
	}
	if ended == 0 {
		t.Fatal("the run's end was never seen between the pipeline's commands")
	}
}

// TestAppendHistoryAfterRedisLostData: an append's history is stored when
// Redis lost its scripts (the append is sent again, whole) and when it lost
// the run's keys (the run is registered again and the append sent again).
func TestAppendHistoryAfterRedisLostData(t *testing.T) {
	ctx := context.Background()
	l := privateRedis(t)
	reqs := startedRuns(t, l, 2)
	for i := range reqs {
		reqs[i].Events = [][]byte{ev(1)}
		reqs[i].History = []byte(`{"h":1}`)
	}
	check := func(what string, want int64) {
		t.Helper()
		for i, res := range l.AppendBatch(ctx, reqs) {
			if res.Err != nil || res.Last != want {
				t.Fatalf("%s: append %d = %+v, want the last event %d", what, i, res, want)
			}
			if h, err := l.History(ctx, reqs[i].Run.Thread()); err != nil || string(h) != string(reqs[i].History) {
				t.Errorf("%s: history of run %d = %q, %v; want %s", what, i, h, err, reqs[i].History)
			}
		}
	}
	if err := l.rdb.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	check("scripts lost", 1)
	if err := l.rdb.FlushDB(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	for i := range reqs {
		reqs[i].First, reqs[i].Events, reqs[i].History = 2, [][]byte{ev(2)}, []byte(`{"h":2}`)
	}
	check("keys lost", 2)
}

// TestFencedOwnerKeepsOffHistory: an owner whose run another instance
// took over (it stalled past its lease) learns it at its next append,
// which is fenced; the history that append carries is not stored over
// the new owner's.
func TestFencedOwnerKeepsOffHistory(t *testing.T) {
	l := privateRedis(t)
	ctx := context.Background()
	r := run("o", "r", "t")
	if _, err := l.Start(ctx, r, false); err != nil {
		t.Fatal(err)
	}
	if err := l.SaveHistory(ctx, r.Thread(), []byte(`{"by":"i2"}`)); err != nil {
		t.Fatal(err)
	}
	// The take-over: another instance holds the run's lease.
	if err := l.rdb.Set(ctx, l.keys(r).lease, "i2", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	res := l.AppendBatch(ctx, []AppendRequest{{Run: r, Events: [][]byte{ev(1)}, First: 1, History: []byte(`{"by":"i1"}`)}})
	if !errors.Is(res[0].Err, ErrOwnerLost) {
		t.Fatalf("the stalled owner's append = %+v, want ErrOwnerLost", res[0])
	}
	if h, _ := l.History(ctx, r.Thread()); string(h) != `{"by":"i2"}` {
		t.Fatalf("history = %s, want the new owner's", h)
	}
}
