package runlog

import (
	"context"
	"encoding/json"
	"time"

	"github.com/redis/go-redis/v9"
)

// AnswerRelay carries the answers to questions that runs wait for (a
// card's or surface's answer to ask_user, an app's mcp-app-response)
// between the instances that share a Redis log. An instance announces
// each question its runs wait for under a key (prefix "answer:" +
// escaped key) holding its answer channel, with a TTL; an answer given
// through any instance claims that key and is published on the channel
// in one script, so exactly one answer goes to exactly one waiting
// instance, and the instance delivering it learns whether one received
// it. It is the Redis side of mcpapps.Relay.
type AnswerRelay struct {
	r       *Redis
	channel string // this instance's answer channel
}

// AnswerRelay returns the relay of instance (whose runs' questions it
// announces and whose answer channel Listen follows).
func (r *Redis) AnswerRelay(instance string) *AnswerRelay {
	return &AnswerRelay{r: r, channel: r.opts.Prefix + "answers:" + escape(instance)}
}

func (a *AnswerRelay) key(k string) string { return a.r.opts.Prefix + "answer:" + escape(k) }

// answerMessage is what goes on an instance's answer channel.
type answerMessage struct {
	Key    string `json:"k"`
	Answer string `json:"a"`
}

// Open announces that this instance waits for the answer to key, for ttl.
func (a *AnswerRelay) Open(ctx context.Context, key string, ttl time.Duration) error {
	return a.r.rdb.Set(ctx, a.key(key), a.channel, ttl).Err()
}

// closeScript deletes an announcement if it is still this instance's.
var closeScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

// Close withdraws this instance's announcement for key.
func (a *AnswerRelay) Close(ctx context.Context, key string) error {
	return closeScript.Run(ctx, a.r.rdb, []string{a.key(key)}, a.channel).Err()
}

// Waiting reports whether some instance announced key.
func (a *AnswerRelay) Waiting(ctx context.Context, key string) (bool, error) {
	n, err := a.r.rdb.Exists(ctx, a.key(key)).Result()
	return n == 1, err
}

// deliverScript claims an announcement and publishes the answer on its
// instance's channel: it returns the number of receivers, -1 when no
// instance waits.
var deliverScript = redis.NewScript(`
local ch = redis.call('GET', KEYS[1])
if not ch then return -1 end
redis.call('DEL', KEYS[1])
return redis.call('PUBLISH', ch, ARGV[1])
`)

// Deliver hands answer to the instance that announced key and reports
// whether it received it (false: none waits, or the one that did is gone).
func (a *AnswerRelay) Deliver(ctx context.Context, key string, answer []byte) (bool, error) {
	msg, _ := json.Marshal(answerMessage{Key: key, Answer: string(answer)})
	n, err := deliverScript.Run(ctx, a.r.rdb, []string{a.key(key)}, msg).Int64()
	return n > 0, err
}

// Listen subscribes to this instance's answer channel and hands each
// answer to fn (which must not block) until ctx ends; the returned
// channel is closed when its goroutine has ended. fn reports whether a
// question here took the answer. Answers are not buffered across a lost
// connection: one published meanwhile is received by no one, which its
// sender learns.
func (a *AnswerRelay) Listen(ctx context.Context, fn func(key string, answer []byte) bool) (<-chan struct{}, error) {
	return a.r.subscribe(ctx, a.channel, func(payload []byte) {
		var am answerMessage
		if json.Unmarshal(payload, &am) == nil {
			fn(am.Key, []byte(am.Answer))
		}
	})
}
