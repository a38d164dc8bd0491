package runlog

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// Handovers is a run log shared by several instances that lets one hand
// a running run over to another: an instance that stops offers the run
// with a record of what going on with it needs (opaque here), and
// exactly one other instance claims it and goes on appending to it. Redis
// implements it; Memory, having no other instance, does not.
type Handovers interface {
	// Offer stores run r's hand-over record and queues the run for
	// claimers. The run stays running: for claimWithin its lease and
	// its thread are held (no reader ends it, no other run takes the
	// thread); past it, unclaimed, a reader ends it as it ends a dead
	// owner's run. ErrFinished if r has ended, ErrOwnerLost if another
	// run took its thread or another instance holds its lease (it took
	// the run over, or it is offered for a take-over).
	Offer(ctx context.Context, r Run, record []byte, claimWithin time.Duration) error
	// Claim waits up to block for an offered run and takes it for
	// instance, atomically: the record is gone, the run's record names
	// instance, its lease and thread are instance's for leaseTTL. It
	// returns the run (as instance's) and its record; a zero Run and nil
	// when nothing was offered in time (or what was offered had ended or
	// expired). A run taken as ctx ends is still returned, never lost: the
	// caller gives back (Offer) what it cannot keep.
	Claim(ctx context.Context, instance string, block, leaseTTL time.Duration) (Run, []byte, error)
	// OfferLost offers for a take-over a running run whose owner's lease
	// lapsed (as EndIfOwnerLost would end it) and that has a start record
	// and a checkpoint (AppendRequest.Start, .Checkpoint): the record offered, for a claimer, is the JSON
	// object {"start": <start record>, "checkpoint": <checkpoint>,
	// "written": <the sequence number of the run's last event>}; the
	// checkpoint is used up (a run offered so and not claimed is ended
	// as a dead owner's is), and the dead owner, should it come back, is
	// fenced (ErrOwnerLost). It reports whether the run was offered;
	// ErrOwnerAlive while the owner holds the lease.
	OfferLost(ctx context.Context, r Run, claimWithin time.Duration) (bool, error)
	// DropCheckpoint removes run r's checkpoint: it can no longer be
	// taken over from one.
	DropCheckpoint(ctx context.Context, r Run) error
}

var _ Handovers = (*Redis)(nil)

// handoverQueue is the list of offered runs (their Refs, as JSON).
func (r *Redis) handoverQueue() string { return r.opts.Prefix + "handovers" }

// offerScript stores the record (KEYS[1]) for the claim window, holds the
// lease (KEYS[2]) and the thread (KEYS[5], unless unlocked) as long, and
// queues the run's ref (KEYS[6]); -1 for an ended or unknown run, -4 when
// another run holds the thread or another instance the lease (the run
// was taken over, or offered for a take-over: the offerer is fenced).
var offerScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[3]) == 1 or redis.call('EXISTS', KEYS[4]) == 0 then return -1 end
local held = redis.call('GET', KEYS[2])
if held and held ~= ARGV[4] then return -4 end
if ARGV[5] == '1' then
  local cur = redis.call('GET', KEYS[5])
  if cur and cur ~= ARGV[3] then return -4 end
  redis.call('SET', KEYS[5], ARGV[3], 'PX', ARGV[2])
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[2])
redis.call('RPUSH', KEYS[6], ARGV[6])
redis.call('PEXPIRE', KEYS[6], ARGV[7])
return 0
`)

func (r *Redis) Offer(ctx context.Context, run Run, record []byte, claimWithin time.Duration) error {
	k := r.keys(run)
	ref, _ := json.Marshal(run.Ref())
	n, err := offerScript.Run(ctx, r.rdb, []string{r.key("run", run.Ref(), "handover"), k.lease, k.end, k.meta, k.active, r.handoverQueue()},
		record, ms(claimWithin), run.ID, run.Instance, flag(!run.Unlocked), ref, ms(r.opts.Retention)).Int64()
	switch {
	case err != nil:
		return err
	case n == -1:
		return ErrFinished
	case n == -4:
		return ErrOwnerLost
	}
	return nil
}

// claimScript takes an offered run for ARGV[1]: it pops the record
// (KEYS[1]), and unless the run has ended (KEYS[3]) or another run holds
// its thread (KEYS[6]), rewrites the run's record (KEYS[2]) to name the
// claimer and gives it the lease (KEYS[4], KEYS[5]) and the thread.
// It returns the record and the run's JSON, or false. What it gave is
// kept for a lease TTL (KEYS[7]) and given again to the same claimer,
// whose answer may have been lost.
var claimScript = redis.NewScript(`
local rec = redis.call('GET', KEYS[1])
if not rec then
  if redis.call('HGET', KEYS[7], 'instance') == ARGV[1] then
    return {redis.call('HGET', KEYS[7], 'rec'), redis.call('HGET', KEYS[2], 'run')}
  end
  return false
end
redis.call('DEL', KEYS[1])
if redis.call('EXISTS', KEYS[3]) == 1 or redis.call('EXISTS', KEYS[2]) == 0 then return false end
local run = cjson.decode(redis.call('HGET', KEYS[2], 'run'))
if not run['unlocked'] then
  local cur = redis.call('GET', KEYS[6])
  if cur and cur ~= ARGV[4] then return false end
  redis.call('SET', KEYS[6], ARGV[4], 'PX', ARGV[2])
end
run['instance'] = ARGV[1]
local enc = cjson.encode(run)
redis.call('HSET', KEYS[2], 'run', enc)
redis.call('SET', KEYS[4], ARGV[1], 'PX', ARGV[2])
redis.call('SET', KEYS[5], ARGV[1], 'PX', ARGV[3])
redis.call('HSET', KEYS[7], 'instance', ARGV[1], 'rec', rec)
redis.call('PEXPIRE', KEYS[7], ARGV[2])
return {rec, enc}
`)

func (r *Redis) Claim(ctx context.Context, instance string, block, leaseTTL time.Duration) (Run, []byte, error) {
	if err := ctx.Err(); err != nil {
		return Run{}, nil, err
	}
	// A ref BLPOP pops is gone from the queue: the claim must go through
	// (the caller gives back a run it cannot keep), whatever happens to
	// ctx meanwhile, or the run is never claimed. So the claim does not
	// end with ctx; it waits at most block and then runs two commands.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), block+10*time.Second)
	defer cancel()
	res, err := r.rdb.BLPop(ctx, block, r.handoverQueue()).Result()
	if errors.Is(err, redis.Nil) {
		return Run{}, nil, nil
	}
	if err != nil {
		return Run{}, nil, err
	}
	var ref Ref
	if len(res) != 2 || json.Unmarshal([]byte(res[1]), &ref) != nil {
		return Run{}, nil, nil // not ours to read: dropped
	}
	run := Run{ID: ref.ID, Owner: ref.Owner}
	k := r.keys(run)
	meta, err := r.rdb.HGet(ctx, k.meta, "run").Result()
	if errors.Is(err, redis.Nil) {
		return Run{}, nil, nil // expired
	}
	if err != nil {
		r.requeue(res[1])
		return Run{}, nil, err
	}
	if err := json.Unmarshal([]byte(meta), &run); err != nil {
		return Run{}, nil, err
	}
	k = r.keys(run) // with its thread
	keys := []string{r.key("run", ref, "handover"), k.meta, k.end, k.lease, k.leased, k.active, r.key("run", ref, "claimed")}
	var out []any
	for try := 0; ; try++ {
		// A claim whose answer was lost may have been made: the script
		// keeps what it gave its claimer for a lease TTL and gives it
		// again to the same instance, so trying again is safe.
		out, err = claimScript.Run(ctx, r.rdb, keys, instance, ms(leaseTTL), ms(r.opts.Retention), run.ID).Slice()
		if errors.Is(err, redis.Nil) {
			return Run{}, nil, nil
		}
		if err == nil {
			break
		}
		if try == 2 || ctx.Err() != nil {
			r.requeue(res[1])
			return Run{}, nil, err
		}
		time.Sleep(100 * time.Millisecond)
	}
	rec, _ := out[0].(string)
	enc, _ := out[1].(string)
	var claimed Run
	if err := json.Unmarshal([]byte(enc), &claimed); err != nil {
		return Run{}, nil, err
	}
	claimed.Status = StatusRunning
	return claimed, []byte(rec), nil
}

// requeue puts back at the head of the queue a ref popped by a claim that
// failed before it could take the run (Redis did not answer), so another
// claim takes it; if Redis does not answer that either, the run ends when
// its claim window lapses, as an unclaimed run does.
func (r *Redis) requeue(ref string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = r.rdb.LPush(ctx, r.handoverQueue(), ref).Err()
}

// offerLostScript offers a run whose owner is gone (the checks of
// appendLua's requireLost) for a take-over from its start record (KEYS[6])
// and checkpoint (KEYS[7]): 1 when offered, 0 when the owner still holds
// the lease or Redis answered again less than a lease TTL ago, -1 when
// it cannot be (ended, no record or checkpoint, its thread taken).
var offerLostScript = redis.NewScript(clockLua + `
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('EXISTS', KEYS[3]) == 1 then return -1 end
if redis.call('EXISTS', KEYS[4]) == 1 then return 0 end
local now, resumed = clock(KEYS[10], KEYS[11], tonumber(ARGV[6]), ARGV[5])
if now - resumed < tonumber(ARGV[7]) then return 0 end
local start = redis.call('GET', KEYS[6])
local ck = redis.call('GET', KEYS[7])
if not start or not ck then return -1 end
if ARGV[3] == '1' then
  local cur = redis.call('GET', KEYS[5])
  if cur and cur ~= ARGV[2] then return -1 end
  redis.call('SET', KEYS[5], ARGV[2], 'PX', ARGV[1])
end
local written = redis.call('GET', KEYS[2]) or '0'
redis.call('DEL', KEYS[7])
redis.call('SET', KEYS[8], '{"start":' .. start .. ',"checkpoint":' .. ck .. ',"written":' .. written .. '}', 'PX', ARGV[1])
redis.call('SET', KEYS[4], '', 'PX', ARGV[1])
redis.call('RPUSH', KEYS[9], ARGV[4])
redis.call('PEXPIRE', KEYS[9], ARGV[5])
return 1
`)

func (r *Redis) OfferLost(ctx context.Context, run Run, claimWithin time.Duration) (bool, error) {
	k := r.keys(run)
	ref, _ := json.Marshal(run.Ref())
	ck := r.clockKeys()
	n, err := offerLostScript.Run(ctx, r.rdb, []string{k.meta, k.seq, k.end, k.lease, k.active, k.start, k.ckpt, r.key("run", run.Ref(), "handover"), r.handoverQueue(), ck[0], ck[1]},
		ms(claimWithin), run.ID, flag(!run.Unlocked), ref, ms(r.opts.Retention), ms(r.clockGap()), ms(r.opts.LeaseTTL)).Int64()
	if err == nil && n == 0 {
		err = ErrOwnerAlive
	}
	return n == 1, err
}

func (r *Redis) DropCheckpoint(ctx context.Context, run Run) error {
	return r.rdb.Del(ctx, r.keys(run).ckpt).Err()
}
