package runlog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisOptions configure a Redis log. Zero values mean the defaults.
type RedisOptions struct {
	// Prefix namespaces every key (default "genui:").
	Prefix string
	// Retention is the TTL of a run's keys after its last write (default
	// 1 h).
	Retention time.Duration
	// MaxEventsPerRun caps each run's stream (default 100 000).
	MaxEventsPerRun int
	// MaxRunBytes caps the bytes of each run's stream (default 16 MiB);
	// the oldest events go first.
	MaxRunBytes int64
	// HistoryRetention is the TTL of a thread's history, refreshed when it
	// is saved or read (default 24 h).
	HistoryRetention time.Duration
	// LeaseTTL is how long a new run holds its thread before its owner's
	// first lease renewal, and how long after Redis answers again an
	// owner has to renew or re-take a lease that lapsed meanwhile before
	// readers may end its run (default 5 s).
	LeaseTTL time.Duration
	// MaxThreadsPerOwner caps one principal's threads (default
	// DefaultMaxThreadsPerOwner); over it the threads whose last run is
	// oldest go.
	MaxThreadsPerOwner int
}

// Redis is the run log on Redis Streams: one stream per run (ids
// "<seq>-0"), XREAD for tails, one pub/sub channel per instance for
// cancels, an owner lease per running run (its thread's key expires with
// the lease), an index of live runs by lease end (Orphans), and TTLs on
// everything. Ids are escaped in keys (see key),
// so no id can address another run's keys.
//
// Redis pausing or restarting costs latency, not runs. Leases lapse
// while Redis does not answer, so Redis keeps a clock: every lease call
// (each supervisor tick of each instance) stamps it with Redis's own
// TIME, and a gap longer than half the lease TTL marks the moment Redis
// answered again. For a lease TTL after that moment no reader may end a
// run whose lease lapsed (EndIfOwnerLost): its owner renews or re-takes
// it first (Lease, and every Append, take back a lapsed lease and a
// thread no other run took). An owner whose lease lapsed and whose thread
// another run took meanwhile is fenced: its appends fail with
// ErrOwnerLost. Appends that
// carry their first sequence number (AppendRequest.First) are
// idempotent, so an append retried after a timeout is written once.
type Redis struct {
	rdb  *redis.Client
	opts RedisOptions
	// fixed are the append's arguments that come from opts, boxed once.
	fixed appendFixed
	heads heads
}

var _ Log = (*Redis)(nil)

// NewRedis connects to url (redis://host:port/db) and checks the
// connection.
func NewRedis(ctx context.Context, url string, opts RedisOptions) (*Redis, error) {
	o, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("runlog: redis url: %w", err)
	}
	// Every call ends at its context's deadline: a readiness probe, a
	// lease renewal or an append must not wait for the library's read
	// timeout while Redis does not answer.
	o.ContextTimeoutEnabled = true
	rdb := redis.NewClient(o)
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := rdb.Ping(pctx).Err(); err != nil {
		rdb.Close()
		return nil, fmt.Errorf("runlog: redis %s: %w", o.Addr, err)
	}
	if opts.Prefix == "" {
		opts.Prefix = "genui:"
	}
	if opts.Retention == 0 {
		opts.Retention = DefaultRetention
	}
	if opts.MaxEventsPerRun == 0 {
		opts.MaxEventsPerRun = DefaultMaxEventsPerRun
	}
	if opts.MaxRunBytes == 0 {
		opts.MaxRunBytes = DefaultMaxRunBytes
	}
	if opts.HistoryRetention == 0 {
		opts.HistoryRetention = DefaultHistoryRetention
	}
	if opts.LeaseTTL == 0 {
		opts.LeaseTTL = 5 * time.Second
	}
	if opts.MaxThreadsPerOwner == 0 {
		opts.MaxThreadsPerOwner = DefaultMaxThreadsPerOwner
	}
	if err := appendManyScript.Load(pctx, rdb).Err(); err != nil {
		rdb.Close()
		return nil, fmt.Errorf("runlog: redis %s: load script: %w", o.Addr, err)
	}
	r := &Redis{rdb: rdb, opts: opts}
	r.fixed = appendFixed{
		maxEvents: opts.MaxEventsPerRun, retention: ms(opts.Retention), maxBytes: opts.MaxRunBytes,
		leaseTTL: ms(opts.LeaseTTL), clockGap: ms(r.clockGap()),
	}
	return r, nil
}

// escape makes an id safe inside a key: '%', ':' (the separator), '{' and
// '}' (cluster hash tags) and control bytes are percent-encoded, so the
// escaped form never holds a separator and escaping is injective.
func escape(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r == '%' || r == ':' || r == '{' || r == '}' || r < 0x20 || r == 0x7f }) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' || c == ':' || c == '{' || c == '}' || c < 0x20 || c == 0x7f {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// key is prefix + kind + ":" + escaped owner + ":" + escaped id (+ ":" +
// suffix).
func (r *Redis) key(kind string, ref Ref, suffix string) string {
	k := r.opts.Prefix + kind + ":" + escape(ref.Owner) + ":" + escape(ref.ID)
	if suffix != "" {
		k += ":" + suffix
	}
	return k
}

// runKeys are a run's keys.
type runKeys struct {
	meta, seq, stream, end, seen, lease, leased, cancel, bytes, active string
	// With hand-overs: the run's start record and latest checkpoint.
	start, ckpt string
}

// keys escapes the run's ids once: every append builds them.
func (r *Redis) keys(run Run) runKeys {
	meta := r.key("run", run.Ref(), "")
	return runKeys{
		meta: meta, seq: meta + ":seq", stream: meta + ":ev", end: meta + ":end", seen: meta + ":seen",
		lease: meta + ":lease", leased: meta + ":leased", cancel: meta + ":cancel", bytes: meta + ":bytes",
		active: r.key("thread", run.Thread(), "active"), start: meta + ":start", ckpt: meta + ":ckpt",
	}
}

// clockKeys are the outage clock's keys: the last stamp, and when Redis
// last answered again after a gap.
func (r *Redis) clockKeys() []string {
	return []string{r.opts.Prefix + "clock", r.opts.Prefix + "clock:resumed"}
}

// clockLua stamps the clock (KEYS[c], KEYS[c+1]; ARGV gap in ms, ttl in
// ms) and returns now and the last resumption, both in Redis's ms.
const clockLua = `
local function clock(ck, rk, gap, ttl)
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local last = tonumber(redis.call('GET', ck) or '0')
  redis.call('SET', ck, now, 'PX', ttl)
  if now - last > gap then
    redis.call('SET', rk, now, 'PX', ttl)
    return now, now
  end
  return now, tonumber(redis.call('GET', rk) or '0')
end
`

// clockScript stamps the clock.
var clockScript = redis.NewScript(clockLua + `
clock(KEYS[1], KEYS[2], tonumber(ARGV[1]), ARGV[2])
return 0
`)

func (r *Redis) cancelChannel(instance string) string {
	return r.opts.Prefix + "cancels:" + escape(instance)
}

func ms(d time.Duration) int64 { return d.Milliseconds() }

func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// startScript registers a run: its record, counters and lease, and,
// unless unlocked, its thread (for the lease's TTL); it enters the run in
// the index of live runs (KEYS[11]) with its lease's end (ARGV[9]). With
// ARGV[11] set it also reads the thread's history (KEYS[12]) and, as
// History does, refreshes it and the thread's record (KEYS[13]) for the
// history's retention (ARGV[10]).
var startScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return {-1, ''} end
local prev = ''
if ARGV[7] == '1' then
  local cur = redis.call('GET', KEYS[4])
  if cur then
    if ARGV[4] ~= '1' then return {-2, cur} end
    prev = cur
  end
  redis.call('SET', KEYS[4], ARGV[5], 'PX', ARGV[3])
end
redis.call('DEL', KEYS[7], KEYS[8], KEYS[9], KEYS[10])
redis.call('HSET', KEYS[1], 'run', ARGV[1], 'status', 'running')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], 0, 'PX', ARGV[2])
redis.call('SET', KEYS[3], ARGV[6], 'PX', ARGV[2])
redis.call('SET', KEYS[5], ARGV[8], 'PX', ARGV[3])
redis.call('SET', KEYS[6], ARGV[8], 'PX', ARGV[2])
redis.call('ZADD', KEYS[11], ARGV[9], KEYS[1])
redis.call('PEXPIRE', KEYS[11], ARGV[2])
if ARGV[11] ~= '1' then return {0, prev} end
local h = redis.call('GET', KEYS[12])
if h then redis.call('PEXPIRE', KEYS[12], ARGV[10]) end
redis.call('PEXPIRE', KEYS[13], ARGV[10])
return {0, prev, h}
`)

func (r *Redis) Start(ctx context.Context, run Run, supersede bool) (string, error) {
	prev, _, err := r.start(ctx, run, supersede, false)
	return prev, err
}

// StartWithHistory is Start and History in one round trip.
func (r *Redis) StartWithHistory(ctx context.Context, run Run, supersede bool) (string, []byte, error) {
	return r.start(ctx, run, supersede, !run.Unlocked)
}

func (r *Redis) start(ctx context.Context, run Run, supersede, history bool) (string, []byte, error) {
	run.Status = StatusRunning
	if run.Created.IsZero() {
		run.Created = time.Now()
	}
	b, _ := json.Marshal(run)
	k := r.keys(run)
	thread := run.Thread()
	res, err := startScript.Run(ctx, r.rdb,
		[]string{k.meta, k.seq, k.seen, k.active, k.lease, k.leased, k.stream, k.end, k.bytes, k.cancel, r.liveKey(),
			r.key("thread", thread, "history"), r.key("thread", thread, "info")},
		b, ms(r.opts.Retention), ms(r.opts.LeaseTTL), flag(supersede), run.ID, time.Now().UnixMilli(), flag(!run.Unlocked), run.Instance,
		time.Now().Add(r.opts.LeaseTTL).UnixMilli(), ms(r.opts.HistoryRetention), flag(history),
	).Slice()
	if err != nil {
		return "", nil, err
	}
	code, _ := res[0].(int64)
	prev, _ := res[1].(string)
	switch code {
	case -1:
		return "", nil, ErrRunExists
	case -2:
		return prev, nil, ErrThreadBusy
	}
	var h []byte
	if len(res) > 2 {
		if s, ok := res[2].(string); ok {
			h = []byte(s)
		}
	}
	return prev, h, nil
}

// appendScript appends events unless the run has ended (or, for
// requireLost, unless its owner still holds the lease or Redis answered
// again less than a lease TTL ago), trims the stream to its caps (never
// the newest event), refreshes every TTL; a terminal event marks the end,
// sets the status, frees the thread if it is still this run's and drops
// the lease. An owner's append takes back a lapsed lease and a thread no
// other run holds; a lapsed lease whose thread another run took fences it
// (-4), and so does a lease another instance holds (the run was taken
// over). (A superseded run still holds its lease and writes its end.) With a
// first sequence number, events already appended (a retried append) are
// skipped. A checkpoint (A[13], empty for none) is stored once the
// events are, with the run's start record (A[14], K[11]) if set; a
// terminal event removes both.
var appendScript = redis.NewScript(appendLua + `
return append(KEYS, ARGV)
`)

// appendGroup is how many runs' appends one appendManyScript call makes.
const appendGroup = 32

// appendManyScript runs appendLua for several runs in one call: KEYS are
// each run's eleven keys in turn; ARGV is, for each run, its argument count
// and then its arguments. It returns each run's result in order.
var appendManyScript = redis.NewScript(appendLua + `
local out, k, a = {}, 0, 1
while a <= #ARGV do
  local m = tonumber(ARGV[a])
  -- Tables built from unpack are sized once. unpack takes a few thousand
  -- values at most: the events of a long append (after an outage) past
  -- those are copied one by one.
  local args = {unpack(ARGV, a + 1, a + math.min(m, 4096))}
  for i = 4097, m do args[i] = ARGV[a + i] end
  out[#out + 1] = append({unpack(KEYS, k + 1, k + 11)}, args)
  k, a = k + 11, a + m + 1
end
return out
`)

// appendLua is the append as a Lua function of a run's keys (K) and
// arguments (A); appendScript and appendManyScript call it. Redis's time
// in it is the commands it calls, so it calls few: one MGET reads the
// sequence number, the end mark, the lease and the byte count together;
// SET with PX writes the sequence number and refreshes its TTL in one
// command; an event's entry carries its terminal mark ('t') only on the
// run's last event. An append of one event calls 7 commands.
const appendLua = clockLua + `
local function append(K, A)
  if redis.call('EXISTS', K[1]) == 0 then return -2 end
  local cur, ended, leased, bytes = unpack(redis.call('MGET', K[2], K[4], K[7], K[6]))
  local seq = tonumber(cur or '0')
  local n = #A - 14
  local from = 1
  local first = tonumber(A[8])
  if first > 0 then
    if first > seq + 1 then return -5 end
    from = seq - first + 2
    if from > n then return first + n - 1 end
  end
  if ended then return -1 end
  local leaseTTL = A[10]
  if A[7] == '1' then
    if leased then return -3 end
    local now, resumed = clock(K[8], K[9], tonumber(A[12]), A[4])
    if now - resumed < tonumber(leaseTTL) then return -3 end
  else
    if leased and leased ~= A[9] then return -4 end
    if A[11] == '1' and not leased then
      local cur = redis.call('GET', K[5])
      if not cur then
        redis.call('SET', K[5], A[1], 'PX', leaseTTL)
      elseif cur ~= A[1] then
        return -4
      end
    end
    if not leased then redis.call('SET', K[7], A[9], 'PX', leaseTTL) end
  end
  bytes = tonumber(bytes or '0')
  for i = from, n do
    seq = seq + 1
    if i == n and A[2] == '1' then
      redis.call('XADD', K[3], seq .. '-0', 'd', A[14 + i], 't', '1')
    else
      redis.call('XADD', K[3], seq .. '-0', 'd', A[14 + i])
    end
    bytes = bytes + string.len(A[14 + i])
  end
  local maxEvents = tonumber(A[3])
  local maxBytes = tonumber(A[6])
  -- The stream holds no more events than the sequence has numbered, so
  -- while that is within the cap only the bytes can call for a trim.
  local len = seq
  if seq > maxEvents or bytes > maxBytes then len = redis.call('XLEN', K[3]) end
  while len > 1 and (len > maxEvents or bytes > maxBytes) do
    local first = redis.call('XRANGE', K[3], '-', '+', 'COUNT', 1)[1]
    bytes = bytes - string.len(first[2][2])
    redis.call('XDEL', K[3], first[1])
    len = len - 1
  end
  local ttl = tonumber(A[4])
  redis.call('SET', K[2], seq, 'PX', ttl)
  redis.call('SET', K[6], bytes, 'PX', ttl)
  if A[2] == '1' then
    redis.call('SET', K[4], '1', 'PX', ttl)
    redis.call('HSET', K[1], 'status', A[5])
    if redis.call('GET', K[5]) == A[1] then redis.call('DEL', K[5]) end
    redis.call('DEL', K[7], K[10], K[11])
  end
  redis.call('PEXPIRE', K[1], ttl)
  redis.call('PEXPIRE', K[3], ttl)
  if A[2] ~= '1' and A[13] ~= '' then
    redis.call('SET', K[10], A[13], 'PX', ttl)
    if A[14] ~= '' then redis.call('SET', K[11], A[14], 'PX', ttl) end
  end
  return seq
end
`

func (r *Redis) Append(ctx context.Context, run Run, events [][]byte, terminal bool) (int64, error) {
	return r.append(ctx, run, events, terminal, false, 0)
}

func (r *Redis) appendArgs(run Run, events [][]byte, terminal, requireLost bool, first int64, checkpoint, start []byte) ([]string, []any) {
	k := r.keys(run)
	ck := r.clockKeys()
	args := r.appendArgv(make([]any, 0, 14+len(events)), run.ID, run.Instance, run, events, terminal, requireLost, first, checkpoint, start)
	return []string{k.meta, k.seq, k.stream, k.end, k.active, k.bytes, k.lease, ck[0], ck[1], k.ckpt, k.start}, args
}

// appendFixed are the append script's arguments that come from the
// options, boxed once: boxing them for every append was most of what an
// append allocated.
type appendFixed struct {
	maxEvents, retention, maxBytes, leaseTTL, clockGap any
}

// The flags and statuses the append script takes, boxed once (a string
// value boxed for each append allocates).
var (
	flagSet, flagUnset             any = "1", "0"
	statusFinished, statusErrorAny any = StatusFinished, StatusError
)

func boxFlag(b bool) any {
	if b {
		return flagSet
	}
	return flagUnset
}

// appendArgv appends the append script's arguments for one run (see
// appendLua: A[1] to A[14], then the events) to argv; id and instance are
// the run's, boxed.
func (r *Redis) appendArgv(argv []any, id, instance any, run Run, events [][]byte, terminal, requireLost bool, first int64, checkpoint, start []byte) []any {
	status := statusFinished
	if terminal && isRunError(events[len(events)-1]) {
		status = statusErrorAny
	}
	f := &r.fixed
	argv = append(argv, id, boxFlag(terminal), f.maxEvents, f.retention, status, f.maxBytes, boxFlag(requireLost),
		first, instance, f.leaseTTL, boxFlag(!run.Unlocked), f.clockGap, checkpoint, start)
	for _, e := range events {
		argv = append(argv, e)
	}
	return argv
}

// clockGap is the gap in the clock's stamps that counts as an outage.
func (r *Redis) clockGap() time.Duration { return r.opts.LeaseTTL / 2 }

func appendResult(n int64, err error) (int64, error) {
	switch {
	case err != nil:
		return 0, err
	case n == -1:
		return 0, ErrFinished
	case n == -2:
		return 0, ErrUnknownRun
	case n == -3:
		return 0, errLeaseHeld
	case n == -4:
		return 0, ErrOwnerLost
	case n == -5:
		return 0, ErrOutOfOrder
	}
	return n, nil
}

func (r *Redis) append(ctx context.Context, run Run, events [][]byte, terminal, requireLost bool, first int64) (int64, error) {
	if len(events) == 0 {
		return 0, nil
	}
	keys, args := r.appendArgs(run, events, terminal, requireLost, first, nil, nil)
	return appendResult(appendScript.Run(ctx, r.rdb, keys, args...).Int64())
}

// restoreScript registers again, at sequence number ARGV[7], a running
// run whose keys Redis lost (it restarted without its data), unless
// another run took its thread meanwhile (-4); 0 if the run is there.
var restoreScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if ARGV[6] == '1' then
  local cur = redis.call('GET', KEYS[3])
  if cur and cur ~= ARGV[4] then return -4 end
  redis.call('SET', KEYS[3], ARGV[4], 'PX', ARGV[3])
end
redis.call('HSET', KEYS[1], 'run', ARGV[1], 'status', 'running')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], tonumber(ARGV[7]) - 1, 'PX', ARGV[2])
redis.call('SET', KEYS[4], ARGV[5], 'PX', ARGV[3])
redis.call('SET', KEYS[5], ARGV[5], 'PX', ARGV[2])
return 1
`)

// restore registers a running run again whose keys Redis lost, its
// sequence going on at next.
func (r *Redis) restore(ctx context.Context, run Run, next int64) error {
	run.Status = StatusRunning
	b, _ := json.Marshal(run)
	k := r.keys(run)
	n, err := restoreScript.Run(ctx, r.rdb, []string{k.meta, k.seq, k.active, k.lease, k.leased},
		b, ms(r.opts.Retention), ms(r.opts.LeaseTTL), run.ID, run.Instance, flag(!run.Unlocked), next).Int64()
	if err == nil && n == -4 {
		err = ErrOwnerLost
	}
	return err
}

// AppendBatch appends for many runs in one pipeline. A request with its
// first sequence number whose run Redis no longer holds (it restarted
// without its data) registers the run again and appends after all: the
// run goes on, its sequence with it, and the events before the restart
// are gone (a cursor before them is ErrGap).
// historyLua stores a run's thread's history (KEYS[1]) unless another
// run holds the thread (KEYS[2]) or another instance the run's lease
// (KEYS[3]: the run was taken over): ARGV are the history, its retention
// in ms, the run's id and its instance. Sent whole (EVAL): twice a run at
// most.
const historyLua = `
local a = redis.call('GET', KEYS[2])
if a and a ~= ARGV[3] then return 0 end
local l = redis.call('GET', KEYS[3])
if l and l ~= ARGV[4] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`

// setHistory queues q's history on pipe.
func (r *Redis) setHistory(ctx context.Context, pipe redis.Pipeliner, q AppendRequest) *redis.Cmd {
	thread := q.Run.Thread()
	return pipe.Eval(ctx, historyLua,
		[]string{r.key("thread", thread, "history"), r.key("thread", thread, "active"), r.key("run", q.Run.Ref(), "lease")},
		q.History, ms(r.opts.HistoryRetention), q.Run.ID, q.Run.Instance)
}

func (r *Redis) AppendBatch(ctx context.Context, reqs []AppendRequest) []AppendResult {
	out := make([]AppendResult, len(reqs))
	var hist map[int]*redis.Cmd // the histories set before their runs' appends
	for i := range reqs {
		if reqs[i].History != nil && hist == nil {
			hist = map[int]*redis.Cmd{}
		}
	}
	// send appends for the requests idx names, appendGroup runs to a
	// script call, stores the histories of those bare names (requests
	// with no events), and returns those Redis refused for want of the
	// script.
	send := func(idx, bare []int) []int {
		pipe := r.rdb.Pipeline()
		for _, i := range bare {
			hist[i] = r.setHistory(ctx, pipe, reqs[i])
		}
		groups := make([][]int, 0, (len(idx)+appendGroup-1)/appendGroup)
		cmds := make([]*redis.Cmd, 0, cap(groups))
		hs := make([]*appendHead, appendGroup)
		for g := range slices.Chunk(idx, appendGroup) {
			// EVALSHA sha numkeys keys... args...: sized once, the keys
			// and ids boxed once per run (heads).
			n := 3 + appendKeys*len(g)
			for j, i := range g {
				hs[j] = r.heads.get(r, reqs[i].Run)
				n += 15 + len(reqs[i].Events)
			}
			cmd := argvs.get(n)
			cmd = append(cmd, "evalsha", appendManyScript.Hash(), appendKeys*len(g))
			for j := range g {
				cmd = append(cmd, hs[j].keys[:]...)
			}
			for j, i := range g {
				q := &reqs[i]
				cmd = append(cmd, 14+len(q.Events))
				cmd = r.appendArgv(cmd, hs[j].id, hs[j].instance, q.Run, q.Events, q.Terminal, false, q.First, q.Checkpoint, q.Start)
			}
			clear(hs)
			// The histories go first: Redis may run other clients'
			// commands between a pipeline's, and whoever sees the
			// events (a run's end, its thread free) must find them.
			for _, i := range g {
				if q := &reqs[i]; q.History != nil {
					hist[i] = r.setHistory(ctx, pipe, *q)
				}
			}
			groups = append(groups, g)
			cmds = append(cmds, pipe.Do(ctx, cmd...))
		}
		_, _ = pipe.Exec(ctx)
		defer func() {
			for _, c := range cmds {
				argvs.put(c.Args())
			}
		}()
		for _, i := range bare {
			out[i].Err = hist[i].Err()
		}
		var missing []int
		for j, g := range groups {
			res, err := cmds[j].Int64Slice()
			if isNoScript(err) {
				missing = append(missing, g...)
				continue
			}
			if err == nil && len(res) != len(g) {
				err = fmt.Errorf("runlog: redis answered %d appends for %d", len(res), len(g))
			}
			for k, i := range g {
				if err != nil {
					out[i].Err = err
					continue
				}
				out[i].Last, out[i].Err = appendResult(res[k], nil)
				if h := hist[i]; h != nil && out[i].Err == nil && h.Err() != nil {
					out[i].Err = h.Err() // retried: the events are skipped then, the history written again
				}
				if q := &reqs[i]; (q.Terminal && out[i].Err == nil) || errors.Is(out[i].Err, ErrFinished) || errors.Is(out[i].Err, ErrOwnerLost) {
					r.heads.forget(q.Run.Ref())
				}
			}
		}
		return missing
	}
	var idx, bare []int
	for i, q := range reqs {
		switch {
		case len(q.Events) > 0:
			idx = append(idx, i)
		case q.History != nil:
			bare = append(bare, i)
		}
	}
	if len(idx) == 0 && len(bare) == 0 {
		return out
	}
	if missing := send(idx, bare); len(missing) > 0 {
		// The script cache was flushed (a Redis restart): load it and
		// send what it refused again (those did not run).
		if err := appendManyScript.Load(ctx, r.rdb).Err(); err != nil {
			for _, i := range missing {
				out[i].Err = err
			}
			return out
		}
		for _, i := range send(missing, nil) {
			out[i].Err = errors.New("runlog: redis refused the append script")
		}
	}
	var lost []int
	for _, i := range idx {
		if errors.Is(out[i].Err, ErrUnknownRun) && reqs[i].First > 0 {
			if err := r.restore(ctx, reqs[i].Run, reqs[i].First); err != nil {
				out[i].Err = err
				continue
			}
			lost = append(lost, i)
		}
	}
	if len(lost) > 0 {
		for _, i := range send(lost, nil) {
			out[i].Err = errors.New("runlog: redis refused the append script")
		}
	}
	return out
}

var errLeaseHeld = errors.New("the owner holds the lease")

func (r *Redis) EndIfOwnerLost(ctx context.Context, run Run, event []byte) (bool, error) {
	_, err := r.append(ctx, run, [][]byte{event}, true, true, 0)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, errLeaseHeld), errors.Is(err, ErrFinished):
		return false, nil
	}
	return false, err
}

func (r *Redis) Get(ctx context.Context, ref Ref) (Run, error) {
	vals, err := r.rdb.HMGet(ctx, r.key("run", ref, ""), "run", "status").Result()
	if err != nil {
		return Run{}, err
	}
	s, ok := vals[0].(string)
	if !ok {
		return Run{}, ErrUnknownRun
	}
	var run Run
	if err := json.Unmarshal([]byte(s), &run); err != nil {
		return Run{}, err
	}
	if run.Owner != ref.Owner || run.ID != ref.ID {
		return Run{}, ErrUnknownRun // cannot happen: keys are escaped
	}
	if st, ok := vals[1].(string); ok {
		run.Status = st
	}
	return run, nil
}

func (r *Redis) Active(ctx context.Context, thread Ref) (string, error) {
	id, err := r.rdb.Get(ctx, r.key("thread", thread, "active")).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	return id, err
}

func parseSeq(id string) int64 {
	n, _ := strconv.ParseInt(strings.SplitN(id, "-", 2)[0], 10, 64)
	return n
}

func toEntries(msgs []redis.XMessage) []Entry {
	out := make([]Entry, 0, len(msgs))
	for _, m := range msgs {
		d, _ := m.Values["d"].(string)
		out = append(out, Entry{Seq: parseSeq(m.ID), Data: []byte(d), Terminal: m.Values["t"] == "1"})
	}
	return out
}

func (r *Redis) Read(ctx context.Context, ref Ref, after int64, max int) ([]Entry, error) {
	if max <= 0 {
		max = 1024
	}
	pipe := r.rdb.Pipeline()
	exists := pipe.Exists(ctx, r.key("run", ref, ""))
	seq := pipe.Get(ctx, r.key("run", ref, "seq"))
	rng := pipe.XRangeN(ctx, r.key("run", ref, "ev"), strconv.FormatInt(after+1, 10)+"-0", "+", int64(max))
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	if exists.Val() == 0 {
		return nil, ErrUnknownRun
	}
	last, _ := seq.Int64()
	entries := toEntries(rng.Val())
	if len(entries) > 0 && entries[0].Seq != after+1 {
		return nil, &GapError{First: entries[0].Seq, After: after}
	}
	if len(entries) == 0 && last > after {
		return nil, &GapError{After: after}
	}
	return entries, nil
}

func (r *Redis) RequestCancel(ctx context.Context, run Run, reason string) error {
	if _, err := r.Get(ctx, run.Ref()); err != nil {
		return err
	}
	msg, _ := json.Marshal(Cancel{Run: run.Ref(), Reason: reason})
	pipe := r.rdb.TxPipeline()
	pipe.Set(ctx, r.key("run", run.Ref(), "cancel"), reason, r.opts.Retention)
	pipe.Publish(ctx, r.cancelChannel(run.Instance), msg)
	_, err := pipe.Exec(ctx)
	return err
}

// Subscribe listens on the instance's cancel channel (one connection per
// instance, whatever the number of runs); the goroutine it starts ends
// with ctx.
func (r *Redis) Subscribe(ctx context.Context, instance string, fn func(Cancel)) error {
	_, err := r.subscribe(ctx, r.cancelChannel(instance), func(payload []byte) {
		var c Cancel
		if json.Unmarshal(payload, &c) == nil {
			fn(c)
		}
	})
	return err
}

// subscribeWait bounds the wait for Redis to confirm a subscription.
const subscribeWait = 10 * time.Second

// subscribe listens on channel and hands each message's payload to fn
// (which must not block) until ctx ends. It returns once Redis has
// confirmed the subscription (waiting at most subscribeWait); the
// returned channel is closed when the listening goroutine has ended.
func (r *Redis) subscribe(ctx context.Context, channel string, fn func(payload []byte)) (<-chan struct{}, error) {
	ps := r.rdb.Subscribe(ctx, channel)
	sctx, cancel := context.WithTimeout(ctx, subscribeWait)
	defer cancel()
	if _, err := ps.Receive(sctx); err != nil {
		ps.Close()
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer ps.Close()
		ch := ps.Channel()
		for {
			select {
			case <-ctx.Done():
				return
			case m, ok := <-ch:
				if !ok {
					return
				}
				fn([]byte(m.Payload))
			}
		}
	}()
	return done, nil
}

func (r *Redis) Touch(ctx context.Context, ref Ref) error {
	return r.rdb.Set(ctx, r.key("run", ref, "seen"), time.Now().UnixMilli(), r.opts.Retention).Err()
}

func (r *Redis) LastSeen(ctx context.Context, ref Ref) (time.Time, error) {
	n, err := r.rdb.Get(ctx, r.key("run", ref, "seen")).Int64()
	if errors.Is(err, redis.Nil) {
		return time.Time{}, ErrUnknownRun
	}
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMilli(n), nil
}

// leaseScript renews a running run's lease (a run Redis lost is left to
// its next append, which registers it again) and, for a locked run, its
// thread's TTL, if the thread is still the run's, or takes the thread
// back if its key lapsed and no other run took it (Redis did not answer
// for a while); a thread another run holds, or a lease another instance
// holds (it took the run over), means the run is lost. It returns a
// pending cancel reason and whether the run is lost.
var leaseScript = redis.NewScript(leaseLua)

const leaseLua = `
if redis.call('EXISTS', KEYS[5]) == 1 or redis.call('EXISTS', KEYS[6]) == 0 then return {'', 0} end
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return {'', 1} end
local lost = 0
if ARGV[5] == '1' then
  local cur = redis.call('GET', KEYS[3])
  if cur == ARGV[4] then
    redis.call('PEXPIRE', KEYS[3], ARGV[2])
  elseif not cur then
    redis.call('SET', KEYS[3], ARGV[4], 'PX', ARGV[2])
  else
    lost = 1
  end
end
if lost == 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[3])
end
local c = redis.call('GET', KEYS[4])
if not c then c = '' end
return {c, lost}
`

// Lease stamps the outage clock and renews every run's lease, moving the
// runs' lease ends on in the index of live runs (Orphans), in one round
// trip (the scripts by their hashes; sent whole only when Redis's
// script cache lost them).
func (r *Redis) Lease(ctx context.Context, runs []Run, instance string, ttl time.Duration) ([]LeaseResult, error) {
	cmds := make([]*redis.Cmd, len(runs))
	live := make([]redis.Z, len(runs))
	lapse := float64(time.Now().Add(ttl).UnixMilli())
	// What every run's renewal repeats, boxed once; a run's keys and id
	// come from its head (the one its appends use).
	var inst, ttlMs, keep any = instance, ms(ttl), ms(r.opts.Retention)
	send := func(whole bool) (*redis.Cmd, error) {
		pipe := r.rdb.Pipeline()
		var clock *redis.Cmd
		if whole {
			clock = clockScript.Eval(ctx, pipe, r.clockKeys(), ms(r.clockGap()), ms(r.opts.Retention))
		} else {
			clock = clockScript.EvalSha(ctx, pipe, r.clockKeys(), ms(r.clockGap()), ms(r.opts.Retention))
		}
		for i, run := range runs {
			hd := r.heads.get(r, run)
			cmd := argvs.get(3 + len(hd.lease) + 5)
			if whole {
				cmd = append(cmd, "eval", leaseLua, len(hd.lease))
			} else {
				cmd = append(cmd, "evalsha", leaseScript.Hash(), len(hd.lease))
			}
			cmd = append(cmd, hd.lease[:]...)
			cmd = append(cmd, inst, ttlMs, keep, hd.id, boxedFlag(!run.Unlocked))
			cmds[i] = pipe.Do(ctx, cmd...)
			live[i] = redis.Z{Score: lapse, Member: hd.keys[0]}
		}
		if len(live) > 0 {
			pipe.ZAdd(ctx, r.liveKey(), live...)
			pipe.PExpire(ctx, r.liveKey(), r.opts.Retention)
		}
		_, err := pipe.Exec(ctx)
		for _, c := range cmds {
			argvs.put(c.Args())
		}
		return clock, err
	}
	clock, err := send(false)
	if isNoScript(err) {
		// A renewal and a stamp are idempotent: sending all again is safe.
		clock, err = send(true)
	}
	if err != nil {
		return nil, err
	}
	if err := clock.Err(); err != nil {
		return nil, err
	}
	out := make([]LeaseResult, 0, len(runs))
	for i, c := range cmds {
		res, err := c.Slice()
		if err != nil {
			return nil, err
		}
		reason, _ := res[0].(string)
		lost, _ := res[1].(int64)
		out = append(out, LeaseResult{Run: runs[i].Ref(), Cancel: reason, Lost: lost == 1})
	}
	return out, nil
}

func isNoScript(err error) bool { return err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") }

// Tail reads the streams of all cursors in one XREAD BLOCK.
func (r *Redis) Tail(ctx context.Context, cursors map[Ref]int64, block time.Duration) (map[Ref][]Entry, error) {
	if len(cursors) == 0 {
		return nil, nil
	}
	refs := make([]Ref, 0, len(cursors))
	streams := make([]string, 0, 2*len(cursors))
	byKey := make(map[string]Ref, len(cursors))
	for ref := range cursors {
		refs = append(refs, ref)
		k := r.key("run", ref, "ev")
		byKey[k] = ref
		streams = append(streams, k)
	}
	for _, ref := range refs {
		streams = append(streams, strconv.FormatInt(cursors[ref], 10)+"-0")
	}
	res, err := r.rdb.XRead(ctx, &redis.XReadArgs{Streams: streams, Count: 512, Block: block}).Result()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make(map[Ref][]Entry, len(res))
	for _, s := range res {
		out[byKey[s.Stream]] = toEntries(s.Messages)
	}
	return out, nil
}

func (r *Redis) SaveHistory(ctx context.Context, thread Ref, messages []byte) error {
	return r.rdb.Set(ctx, r.key("thread", thread, "history"), messages, r.opts.HistoryRetention).Err()
}

// History refreshes the thread's record with its history: a thread
// that is read lives on whole.
func (r *Redis) History(ctx context.Context, thread Ref) ([]byte, error) {
	pipe := r.rdb.Pipeline()
	get := pipe.GetEx(ctx, r.key("thread", thread, "history"), r.opts.HistoryRetention)
	pipe.PExpire(ctx, r.key("thread", thread, "info"), r.opts.HistoryRetention)
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	b, err := get.Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	return b, err
}

func (r *Redis) Ping(ctx context.Context) error { return r.rdb.Ping(ctx).Err() }

// Usage: Redis keeps nothing in this process.
func (r *Redis) Usage() Usage { return Usage{} }

func (r *Redis) Close() error { return r.rdb.Close() }

// appendKeys is how many keys one run's append takes (appendLua's K).
const appendKeys = 11

// appendHead is what every append of a run repeats: its keys and ids,
// escaped, joined and boxed once (building them for every append was
// most of what an append allocated, and the collector's cycles that
// allocation paid for showed as latency at 1,000 streams).
type appendHead struct {
	run          Run // the fields the head was built from
	keys         [appendKeys]any
	id, instance any
	lease        [6]any // the lease script's keys (Lease)
}

// flagOn and flagOff are flag's answers, boxed once.
var flagOn, flagOff any = flag(true), flag(false)

func boxedFlag(b bool) any {
	if b {
		return flagOn
	}
	return flagOff
}

// heads keeps the heads of the runs appending (and renewing their leases)
// now. A run's head goes when its terminal event is written or the log
// refuses it as ended or lost; one that stops appending otherwise (handed
// over, abandoned) goes after
// two generations of headsGeneration: each generation keeps only the
// heads used during the one before.
type heads struct {
	mu       sync.Mutex
	cur, old map[Ref]*appendHead
	since    time.Time
}

// headsGeneration is how long a head outlives its run's last append, at
// least.
const headsGeneration = time.Minute

func (h *heads) get(r *Redis, run Run) *appendHead {
	ref := run.Ref()
	h.mu.Lock()
	defer h.mu.Unlock()
	if now := time.Now(); now.Sub(h.since) > headsGeneration {
		h.old, h.cur, h.since = h.cur, make(map[Ref]*appendHead, len(h.cur)), now
	}
	hd := h.cur[ref]
	if hd == nil {
		if hd = h.old[ref]; hd != nil {
			h.cur[ref] = hd
		}
	}
	if hd != nil && hd.run.ThreadID == run.ThreadID && hd.run.Instance == run.Instance {
		return hd
	}
	k := r.keys(run)
	hd = &appendHead{run: Run{ID: run.ID, Owner: run.Owner, ThreadID: run.ThreadID, Instance: run.Instance}, id: run.ID, instance: run.Instance}
	hd.keys = [appendKeys]any{k.meta, k.seq, k.stream, k.end, k.active, k.bytes, k.lease,
		r.opts.Prefix + "clock", r.opts.Prefix + "clock:resumed", k.ckpt, k.start}
	hd.lease = [6]any{k.lease, k.leased, k.active, k.cancel, k.end, k.meta}
	h.cur[ref] = hd
	return hd
}

func (h *heads) forget(ref Ref) {
	h.mu.Lock()
	delete(h.cur, ref)
	delete(h.old, ref)
	h.mu.Unlock()
}

// argvs lends the append calls' argument slices: at 1,000 streams they
// were most of what the appenders allocated after the heads.
var argvs argvPool

type argvPool struct{ p sync.Pool }

func (a *argvPool) get(n int) []any {
	if v, ok := a.p.Get().(*[]any); ok && cap(*v) >= n {
		return (*v)[:0]
	}
	return make([]any, 0, n)
}

// put takes back a slice nothing refers to any more; its values are
// cleared so the pool keeps no event alive.
func (a *argvPool) put(v []any) {
	clear(v)
	v = v[:0]
	a.p.Put(&v)
}
