package runlog

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Orphans is a run log shared by several instances that finds the running
// runs whose owner stopped renewing their leases (its instance died), so
// that a live instance ends them or offers them for a take-over even when
// nobody reads them. Redis implements it; Memory, whose runs die with
// their only instance, does not.
type Orphans interface {
	// Orphans returns up to max runs, still running in the log, whose
	// lease ended more than grace ago by the index's clock (the owners'
	// clocks; grace covers their skew). They are candidates only: whether
	// the owner is gone is decided by the call that ends or offers the run
	// (EndIfOwnerLost, Handovers.OfferLost). Runs that ended or expired
	// leave the index as they are found.
	Orphans(ctx context.Context, grace time.Duration, max int) ([]Run, error)
}

var _ Orphans = (*Redis)(nil)

// liveKey is the index of live runs: a sorted set of run record keys
// scored by when their leases end (ms, the owner's clock). Start enters a
// run, every lease renewal moves its score on, Orphans drops the runs
// that ended.
func (r *Redis) liveKey() string { return r.opts.Prefix + "live" }

func (r *Redis) Orphans(ctx context.Context, grace time.Duration, max int) ([]Run, error) {
	before := "(" + strconv.FormatInt(time.Now().Add(-grace).UnixMilli(), 10)
	var out []Run
	// Runs that ended stay in the index until found here, sorted before
	// those that died after them: pages of them are cleared and passed,
	// and the next page starts after the running runs kept.
	for kept := 0; len(out) < max; {
		want := max - len(out)
		keys, err := r.rdb.ZRangeArgs(ctx, redis.ZRangeArgs{
			Key: r.liveKey(), ByScore: true, Start: "-inf", Stop: before, Offset: int64(kept), Count: int64(want),
		}).Result()
		if err != nil {
			return nil, err
		}
		if len(keys) == 0 {
			return out, nil
		}
		pipe := r.rdb.Pipeline()
		cmds := make([]*redis.SliceCmd, len(keys))
		for i, k := range keys {
			cmds[i] = pipe.HMGet(ctx, k, "run", "status")
		}
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
			return nil, err
		}
		var gone []any
		for i, c := range cmds {
			vals, err := c.Result()
			if err != nil {
				return nil, err
			}
			enc, _ := vals[0].(string)
			status, _ := vals[1].(string)
			var run Run
			if enc == "" || status != StatusRunning || json.Unmarshal([]byte(enc), &run) != nil {
				gone = append(gone, keys[i])
				continue
			}
			run.Status = status
			out = append(out, run)
			kept++
		}
		if len(gone) > 0 {
			if err := r.rdb.ZRem(ctx, r.liveKey(), gone...).Err(); err != nil {
				return nil, err
			}
		}
		if len(keys) < want {
			return out, nil // the last page
		}
	}
	return out, nil
}
