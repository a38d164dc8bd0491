package runlog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
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
	// 1 h), and of thread histories.
	Retention time.Duration
	// MaxEventsPerRun caps each run's stream (MAXLEN, default 100 000).
	MaxEventsPerRun int
	// OwnerLost builds the terminal event a reader appends when the run's
	// owner stopped renewing its lease (the run's instance died). Nil: the
	// run is left as it is.
	OwnerLost func(r Run) []byte
}

// Redis is the run log on Redis Streams: one stream per run (ids
// "<seq>-0"), XREAD BLOCK for tails, pub/sub for cancels, an owner lease
// per running run, and TTLs on everything.
type Redis struct {
	rdb  *redis.Client
	opts RedisOptions

	mu      sync.Mutex
	threads map[string]string // run id -> thread id, to skip a lookup per append
}

var _ Log = (*Redis)(nil)

// NewRedis connects to url (redis://host:port/db) and checks the
// connection.
func NewRedis(ctx context.Context, url string, opts RedisOptions) (*Redis, error) {
	o, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("runlog: redis url: %w", err)
	}
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
		opts.Retention = time.Hour
	}
	if opts.MaxEventsPerRun == 0 {
		opts.MaxEventsPerRun = 100000
	}
	return &Redis{rdb: rdb, opts: opts, threads: map[string]string{}}, nil
}

func (r *Redis) key(parts ...string) string { return r.opts.Prefix + strings.Join(parts, ":") }

func (r *Redis) runKeys(id string) (meta, seq, stream, end string) {
	return r.key("run", id), r.key("run", id, "seq"), r.key("run", id, "ev"), r.key("run", id, "end")
}

func (r *Redis) Start(ctx context.Context, run Run, supersede bool) (string, error) {
	meta, seq, _, _ := r.runKeys(run.ID)
	run.Status = StatusRunning
	if run.Created.IsZero() {
		run.Created = time.Now()
	}
	b, _ := json.Marshal(run)
	ok, err := r.rdb.HSetNX(ctx, meta, "run", b).Result()
	if err != nil {
		return "", err
	}
	if !ok {
		return "", ErrRunExists
	}
	ttl := r.opts.Retention
	active := r.key("thread", run.ThreadID, "active")
	var prev string
	if supersede {
		prev, err = r.rdb.SetArgs(ctx, active, run.ID, redis.SetArgs{Get: true, TTL: ttl}).Result()
		if errors.Is(err, redis.Nil) {
			err = nil
		}
	} else {
		var set bool
		set, err = r.rdb.SetNX(ctx, active, run.ID, ttl).Result()
		if err == nil && !set {
			prev, _ = r.rdb.Get(ctx, active).Result()
			r.rdb.Del(ctx, meta)
			return prev, ErrThreadBusy
		}
	}
	if err != nil {
		r.rdb.Del(ctx, meta)
		return "", err
	}
	pipe := r.rdb.TxPipeline()
	pipe.HSet(ctx, meta, "status", StatusRunning)
	pipe.Set(ctx, seq, 0, ttl)
	pipe.PExpire(ctx, meta, ttl)
	pipe.Set(ctx, r.key("run", run.ID, "seen"), time.Now().UnixMilli(), ttl)
	_, err = pipe.Exec(ctx)
	return prev, err
}

// appendScript appends one event unless the run has ended, refreshing
// every key's TTL; a terminal event marks the end, sets the status and
// frees the thread if it is still this run's.
var appendScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[4]) == 1 then return -1 end
if redis.call('EXISTS', KEYS[1]) == 0 then return -2 end
local n = #ARGV - 5
local seq = 0
for i = 1, n do
  seq = redis.call('INCR', KEYS[2])
  local t = '0'
  if i == n then t = ARGV[2] end
  redis.call('XADD', KEYS[3], 'MAXLEN', ARGV[3], seq .. '-0', 'd', ARGV[5 + i], 't', t)
end
local ttl = tonumber(ARGV[4])
if ARGV[2] == '1' then
  redis.call('SET', KEYS[4], '1', 'PX', ttl)
  redis.call('HSET', KEYS[1], 'status', ARGV[5])
  if redis.call('GET', KEYS[5]) == ARGV[1] then redis.call('DEL', KEYS[5]) end
end
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ttl) end
return seq
`)

func (r *Redis) Append(ctx context.Context, runID string, events [][]byte, terminal bool) (int64, error) {
	r.mu.Lock()
	thread, ok := r.threads[runID]
	r.mu.Unlock()
	if !ok {
		run, err := r.Get(ctx, runID)
		if err != nil {
			return 0, err
		}
		thread = run.ThreadID
		r.mu.Lock()
		if len(r.threads) > 10000 {
			clear(r.threads)
		}
		r.threads[runID] = thread
		r.mu.Unlock()
	}
	return r.append(ctx, Run{ID: runID, ThreadID: thread}, events, terminal)
}

func (r *Redis) append(ctx context.Context, run Run, events [][]byte, terminal bool) (int64, error) {
	if len(events) == 0 {
		return 0, nil
	}
	meta, seq, stream, end := r.runKeys(run.ID)
	t, status := "0", StatusFinished
	if terminal {
		t = "1"
		if isRunError(events[len(events)-1]) {
			status = StatusError
		}
	}
	args := make([]any, 0, 5+len(events))
	args = append(args, run.ID, t, r.opts.MaxEventsPerRun, r.opts.Retention.Milliseconds(), status)
	for _, e := range events {
		args = append(args, e)
	}
	n, err := appendScript.Run(ctx, r.rdb, []string{meta, seq, stream, end, r.key("thread", run.ThreadID, "active")}, args...).Int64()
	if terminal && err == nil && n > 0 {
		r.mu.Lock()
		delete(r.threads, run.ID)
		r.mu.Unlock()
	}
	switch {
	case err != nil:
		return 0, err
	case n == -1:
		return 0, ErrFinished
	case n == -2:
		return 0, ErrUnknownRun
	}
	return n, nil
}

func (r *Redis) Get(ctx context.Context, runID string) (Run, error) {
	meta, _, _, _ := r.runKeys(runID)
	vals, err := r.rdb.HMGet(ctx, meta, "run", "status").Result()
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
	if st, ok := vals[1].(string); ok {
		run.Status = st
	}
	return run, nil
}

func (r *Redis) Active(ctx context.Context, threadID string) (string, error) {
	id, err := r.rdb.Get(ctx, r.key("thread", threadID, "active")).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	return id, err
}

func parseSeq(id string) int64 {
	n, _ := strconv.ParseInt(strings.SplitN(id, "-", 2)[0], 10, 64)
	return n
}

func (r *Redis) Events(ctx context.Context, runID string, after int64) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		run, err := r.Get(ctx, runID)
		if err != nil {
			yield(Entry{}, err)
			return
		}
		_, seqKey, stream, end := r.runKeys(runID)
		if err := r.gap(ctx, runID, after); err != nil {
			yield(Entry{}, err)
			return
		}
		cursor := after
		for ctx.Err() == nil {
			res, err := r.rdb.XRead(ctx, &redis.XReadArgs{Streams: []string{stream, strconv.FormatInt(cursor, 10) + "-0"}, Count: 512, Block: time.Second}).Result()
			if err != nil && !errors.Is(err, redis.Nil) {
				if ctx.Err() == nil {
					yield(Entry{}, err)
				}
				return
			}
			got := 0
			for _, s := range res {
				for _, m := range s.Messages {
					got++
					d, _ := m.Values["d"].(string)
					e := Entry{Seq: parseSeq(m.ID), Data: []byte(d), Terminal: m.Values["t"] == "1"}
					if e.Seq != cursor+1 {
						yield(Entry{}, fmt.Errorf("%w: expected event %d, got %d", ErrGap, cursor+1, e.Seq))
						return
					}
					if !yield(e, nil) || e.Terminal {
						return
					}
					cursor = e.Seq
				}
			}
			if got > 0 {
				continue
			}
			// Nothing new for a while: has the run ended (all read), or
			// has its owner died?
			if n, _ := r.rdb.Exists(ctx, end).Result(); n == 1 {
				if last, _ := r.rdb.Get(ctx, seqKey).Int64(); last <= cursor {
					return
				}
				continue
			}
			if r.opts.OwnerLost != nil {
				if n, _ := r.rdb.Exists(ctx, r.key("run", runID, "lease")).Result(); n == 0 {
					if lastSeen, err := r.rdb.Get(ctx, r.key("run", runID, "leased")).Result(); err == nil && lastSeen != "" {
						// The owner held a lease and let it lapse: end it.
						_, _ = r.append(ctx, run, [][]byte{r.opts.OwnerLost(run)}, true)
					}
				}
			}
		}
	}
}

// gap checks that the first retained event follows the cursor.
func (r *Redis) gap(ctx context.Context, runID string, after int64) error {
	_, seqKey, stream, _ := r.runKeys(runID)
	// Read the counter before the stream: an append in between can only
	// make the stream non-empty, never empty.
	last, _ := r.rdb.Get(ctx, seqKey).Int64()
	first, err := r.rdb.XRangeN(ctx, stream, "-", "+", 1).Result()
	if err != nil {
		return err
	}
	if len(first) > 0 {
		if f := parseSeq(first[0].ID); after+1 < f {
			return fmt.Errorf("%w: first retained event is %d, cursor %d", ErrGap, f, after)
		}
	} else if last > after {
		return fmt.Errorf("%w: the run's events expired", ErrGap)
	}
	return nil
}

func (r *Redis) Check(ctx context.Context, runID string, after int64) error {
	if _, err := r.Get(ctx, runID); err != nil {
		return err
	}
	return r.gap(ctx, runID, after)
}

func (r *Redis) RequestCancel(ctx context.Context, runID, reason string) error {
	if _, err := r.Get(ctx, runID); err != nil {
		return err
	}
	pipe := r.rdb.TxPipeline()
	pipe.Set(ctx, r.key("run", runID, "cancel"), reason, r.opts.Retention)
	pipe.Publish(ctx, r.key("run", runID, "cancel"), reason)
	_, err := pipe.Exec(ctx)
	return err
}

// Cancels subscribes to the run's cancel channel; the goroutine it starts
// ends with ctx.
func (r *Redis) Cancels(ctx context.Context, runID string) <-chan string {
	out := make(chan string, 1)
	ps := r.rdb.Subscribe(ctx, r.key("run", runID, "cancel"))
	go func() {
		defer ps.Close()
		ch := ps.Channel()
		// A request made before we subscribed is in the key.
		if reason, err := r.rdb.Get(ctx, r.key("run", runID, "cancel")).Result(); err == nil {
			select {
			case out <- reason:
			default:
			}
		}
		for {
			select {
			case <-ctx.Done():
				return
			case m, ok := <-ch:
				if !ok {
					return
				}
				select {
				case out <- m.Payload:
				default:
				}
			}
		}
	}()
	return out
}

func (r *Redis) Touch(ctx context.Context, runID string) error {
	return r.rdb.Set(ctx, r.key("run", runID, "seen"), time.Now().UnixMilli(), r.opts.Retention).Err()
}

func (r *Redis) LastSeen(ctx context.Context, runID string) (time.Time, error) {
	ms, err := r.rdb.Get(ctx, r.key("run", runID, "seen")).Int64()
	if errors.Is(err, redis.Nil) {
		return time.Time{}, ErrUnknownRun
	}
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMilli(ms), nil
}

func (r *Redis) Lease(ctx context.Context, runID, instance string, ttl time.Duration) error {
	pipe := r.rdb.TxPipeline()
	pipe.Set(ctx, r.key("run", runID, "lease"), instance, ttl)
	pipe.Set(ctx, r.key("run", runID, "leased"), instance, r.opts.Retention)
	_, err := pipe.Exec(ctx)
	return err
}

func (r *Redis) SaveHistory(ctx context.Context, threadID string, messages []byte) error {
	return r.rdb.Set(ctx, r.key("thread", threadID, "history"), messages, r.opts.Retention).Err()
}

func (r *Redis) History(ctx context.Context, threadID string) ([]byte, error) {
	b, err := r.rdb.Get(ctx, r.key("thread", threadID, "history")).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	return b, err
}

func (r *Redis) Close() error { return r.rdb.Close() }
