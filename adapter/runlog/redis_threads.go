package runlog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// A thread's record is the JSON of its ThreadInfo at key("thread", ref,
// "info"), with the history's TTL; a principal's threads are a sorted
// set (score: the last run's start, in ms) at threadsKey.

func (r *Redis) threadsKey(owner string) string {
	return r.opts.Prefix + "threads:" + escape(owner)
}

// updateRetries bounds UpdateThread's optimistic retries.
const updateRetries = 16

// updateThreadScript writes a thread's record (KEYS[1]) if it is still
// the one read (ARGV[1]: '1' if there was one, ARGV[2] its bytes), and
// enters the thread in its owner's set (KEYS[2]) with its score (ARGV[5]).
// It returns {-1} if the record changed meanwhile, else the set's size
// and, for a new thread (ARGV[7]) over the cap (ARGV[8]), the ids of the
// oldest threads beyond it, at most ARGV[9] of them.
var updateThreadScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if cur ~= ARGV[2] then return {-1} end
elseif cur then
  return {-1}
end
redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
local n = redis.call('ZCARD', KEYS[2])
local cap = tonumber(ARGV[8])
if ARGV[7] ~= '1' or n <= cap then return {n} end
local out = redis.call('ZRANGE', KEYS[2], 0, math.min(n - cap, tonumber(ARGV[9])) - 1)
table.insert(out, 1, n)
return out
`)

// UpdateThread reads the record and writes it back with a script that
// checks it is unchanged (optimistic, retried): two round trips, and for
// a new thread over its owner's cap the script names the threads
// capOwner removes.
func (r *Redis) UpdateThread(ctx context.Context, thread Ref, update func(t *ThreadInfo, found bool) error) (ThreadInfo, error) {
	key := r.key("thread", thread, "info")
	for range updateRetries {
		b, err := r.rdb.Get(ctx, key).Bytes()
		exists := err == nil
		if err != nil && !errors.Is(err, redis.Nil) {
			return ThreadInfo{}, err
		}
		var t ThreadInfo
		found := exists && json.Unmarshal(b, &t) == nil && t.Owner == thread.Owner && t.ID == thread.ID
		if !found {
			t = ThreadInfo{}
		}
		if err := update(&t, found); err != nil {
			return ThreadInfo{}, err
		}
		t.ID, t.Owner = thread.ID, thread.Owner
		nb, err := json.Marshal(t)
		if err != nil {
			return ThreadInfo{}, err
		}
		res, err := updateThreadScript.Run(ctx, r.rdb, []string{key, r.threadsKey(thread.Owner)},
			flag(exists), b, nb, ms(r.opts.HistoryRetention), t.LastRun.UnixMilli(), thread.ID,
			flag(!found), r.opts.MaxThreadsPerOwner, capBatch).Slice()
		if err != nil {
			return ThreadInfo{}, err
		}
		if n, _ := res[0].(int64); n < 0 {
			continue
		}
		if len(res) > 1 {
			if err := r.capOwner(ctx, thread.Owner, res[1:]); err != nil {
				return t, err
			}
		}
		return t, nil
	}
	return ThreadInfo{}, fmt.Errorf("runlog: thread %q changed %d times while being updated", thread.ID, updateRetries)
}

// capOwner removes the owner's threads ids (the oldest beyond
// MaxThreadsPerOwner, at most capBatch of them: each new thread adds one,
// so the set stays within a few of the cap, and a burst of a principal's
// new threads, each making room at once for the same oldest ones, costs
// each start a few deletions, not the whole excess) but those with an
// active run, in two round trips: one reads their records and active
// runs, one deletes.
func (r *Redis) capOwner(ctx context.Context, owner string, ids []any) error {
	refs := make([]Ref, 0, len(ids))
	pipe := r.rdb.Pipeline()
	var infos, actives []*redis.StringCmd
	for _, id := range ids {
		s, _ := id.(string)
		ref := Ref{Owner: owner, ID: s}
		refs = append(refs, ref)
		infos = append(infos, pipe.Get(ctx, r.key("thread", ref, "info")))
		actives = append(actives, pipe.Get(ctx, r.key("thread", ref, "active")))
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	del := r.rdb.TxPipeline()
	for i, ref := range refs {
		b, err := infos[i].Bytes()
		var t ThreadInfo
		switch {
		case err != nil && !errors.Is(err, redis.Nil):
			return err
		case err != nil || json.Unmarshal(b, &t) != nil || t.Owner != owner || t.ID != ref.ID:
			del.ZRem(ctx, r.threadsKey(owner), ref.ID) // its record expired
			continue
		}
		switch a, err := actives[i].Result(); {
		case err == nil && a != "":
			continue // busy
		case err != nil && !errors.Is(err, redis.Nil):
			return err
		}
		del.Del(ctx, r.threadKeys(t)...)
		del.ZRem(ctx, r.threadsKey(owner), ref.ID)
	}
	if del.Len() == 0 {
		return nil
	}
	_, err := del.Exec(ctx)
	return err
}

// capBatch is how many threads one capOwner removes at most.
const capBatch = 4

func (r *Redis) GetThread(ctx context.Context, thread Ref) (ThreadInfo, error) {
	b, err := r.rdb.Get(ctx, r.key("thread", thread, "info")).Bytes()
	if errors.Is(err, redis.Nil) {
		return ThreadInfo{}, ErrUnknownThread
	}
	if err != nil {
		return ThreadInfo{}, err
	}
	var t ThreadInfo
	if json.Unmarshal(b, &t) != nil || t.Owner != thread.Owner || t.ID != thread.ID {
		return ThreadInfo{}, ErrUnknownThread
	}
	return t, nil
}

// Threads reads the owner's set and their records in one round trip
// each; ids whose record has expired leave the set.
func (r *Redis) Threads(ctx context.Context, owner string) ([]ThreadInfo, error) {
	ids, err := r.rdb.ZRange(ctx, r.threadsKey(owner), 0, -1).Result()
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = r.key("thread", Ref{Owner: owner, ID: id}, "info")
	}
	vals, err := r.rdb.MGet(ctx, keys...).Result()
	if err != nil {
		return nil, err
	}
	out := make([]ThreadInfo, 0, len(ids))
	var gone []any
	for i, v := range vals {
		s, ok := v.(string)
		var t ThreadInfo
		if !ok || json.Unmarshal([]byte(s), &t) != nil || t.Owner != owner || t.ID != ids[i] {
			gone = append(gone, ids[i])
			continue
		}
		t.Runs = nil
		out = append(out, t)
	}
	if len(gone) > 0 {
		if err := r.rdb.ZRem(ctx, r.threadsKey(owner), gone...).Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (r *Redis) DeleteThread(ctx context.Context, thread Ref) error {
	t, err := r.GetThread(ctx, thread)
	if err != nil {
		return err
	}
	active, err := r.Active(ctx, thread)
	if err != nil {
		return err
	}
	if active != "" {
		return ErrThreadBusy
	}
	pipe := r.rdb.TxPipeline()
	pipe.Del(ctx, r.threadKeys(t)...)
	pipe.ZRem(ctx, r.threadsKey(thread.Owner), thread.ID)
	_, err = pipe.Exec(ctx)
	return err
}

// threadKeys are a thread's keys: its record, its history and its runs'.
func (r *Redis) threadKeys(t ThreadInfo) []string {
	thread := t.Ref()
	keys := []string{r.key("thread", thread, "info"), r.key("thread", thread, "history")}
	for _, id := range t.Runs {
		k := r.keys(Run{ID: id, Owner: thread.Owner, ThreadID: thread.ID})
		keys = append(keys, k.meta, k.seq, k.stream, k.end, k.seen, k.lease, k.leased, k.cancel, k.bytes)
	}
	return keys
}
