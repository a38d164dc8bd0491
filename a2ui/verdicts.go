package a2ui

import (
	"encoding/json"
	"hash/maphash"
	"math"
	"slices"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// verdicts remembers which values a schema accepted, keyed by a seeded
// hash of the value's canonical form, and which checks of the
// conversions passed on a message, keyed by a seeded hash of its bytes
// (checkBytes): a surface that streams in, or is validated again after
// each data update, has the same components over and over, and schema
// validation is the costly part (the integrity rules still run every
// time). Only successes are kept, so a refusal always comes with its
// errors. The seed is random per process, so a collision cannot be
// crafted; the table is bounded (max entries, cleared when full).
type verdicts struct {
	seed maphash.Seed
	max  int
	mu   sync.Mutex
	ok   map[verdictKey]struct{}
	// probes are what probeVersion read in a message, keyed like a
	// check on its bytes: the same bytes probe the same.
	probes map[uint64]probed
}

// probed is probeVersion's answer.
type probed struct{ version, surfaceID, op string }

type verdictKey struct {
	schema *jsonschema.Schema
	hash   uint64
	// check is 0 for a value's canonical form, else what passed on the
	// bytes hashed (a checkBytes).
	check checkBytes
}

// checkBytes names a check keyed by the bytes it was made on rather than
// by the value decoded from them: the same bytes decode to the same value
// and convert to the same messages, and hashing bytes costs a fraction
// of walking the value.
type checkBytes byte

const (
	_ checkBytes = iota
	// checkDecoded: the message, decoded, against the schema.
	checkDecoded
	// checkV08Input: schemaV08 of the v0.8 message, decoded.
	checkV08Input
	// checkV08Output: a message Downgrade converted, encoded: each of
	// its components against the v0.8 catalog and the message against
	// the v0.8 schema.
	checkV08Output
)

func newVerdicts(max int) *verdicts {
	return &verdicts{seed: maphash.MakeSeed(), max: max, ok: map[verdictKey]struct{}{}, probes: map[uint64]probed{}}
}

// hash is the key of a check on b's bytes (passedHash).
func (d *verdicts) hash(b []byte) uint64 { return maphash.Bytes(d.seed, b) }

// maxProbedID is the longest surface id or operation name a remembered
// probe keeps: the probes hold their strings, so a message with a longer
// one is probed again each time rather than held.
const maxProbedID = 256

// probe is probeVersion(m) for m of hash h, remembered for a message of a
// known version with a short surface id and operation (a stream of a surface's
// messages, sent again).
func (d *verdicts) probe(m []byte, h uint64) (version, surfaceID, op string) {
	d.mu.Lock()
	p, hit := d.probes[h]
	d.mu.Unlock()
	if hit {
		return p.version, p.surfaceID, p.op
	}
	version, surfaceID, op = probeVersion(m)
	if knownNames[version] != "" && len(surfaceID) <= maxProbedID && len(op) <= maxProbedID {
		d.mu.Lock()
		if len(d.probes) >= d.max {
			clear(d.probes)
		}
		d.probes[h] = probed{version, surfaceID, op}
		d.mu.Unlock()
	}
	return version, surfaceID, op
}

// validate is sch.Validate(v), skipped when sch already accepted v.
func (d *verdicts) validate(sch *jsonschema.Schema, v any) error {
	var h maphash.Hash
	h.SetSeed(d.seed)
	if !hashValue(&h, v, 0) {
		return sch.Validate(v) // too deep or odd to key: just validate
	}
	k := verdictKey{schema: sch, hash: h.Sum64()}
	if d.has(k) {
		return nil
	}
	if err := sch.Validate(v); err != nil {
		return err
	}
	d.remember(k)
	return nil
}

// passed reports whether check already passed on b (with sch); k is the
// key to remember once it passes.
func (d *verdicts) passed(sch *jsonschema.Schema, check checkBytes, b []byte) (k verdictKey, ok bool) {
	return d.passedHash(sch, check, d.hash(b))
}

// passedHash is passed for bytes of hash h.
func (d *verdicts) passedHash(sch *jsonschema.Schema, check checkBytes, h uint64) (k verdictKey, ok bool) {
	k = verdictKey{schema: sch, hash: h, check: check}
	return k, d.has(k)
}

func (d *verdicts) has(k verdictKey) bool {
	d.mu.Lock()
	_, hit := d.ok[k]
	d.mu.Unlock()
	return hit
}

// remember records that the check k names passed.
func (d *verdicts) remember(k verdictKey) {
	d.mu.Lock()
	if len(d.ok) >= d.max {
		clear(d.ok)
	}
	d.ok[k] = struct{}{}
	d.mu.Unlock()
}

// hashValue writes a canonical, type-tagged form of a decoded JSON value
// (object keys sorted) into h; false for a value it will not key.
func hashValue(h *maphash.Hash, v any, depth int) bool {
	if depth > 64 {
		return false
	}
	switch x := v.(type) {
	case nil:
		h.WriteByte('n')
	case bool:
		if x {
			h.WriteByte('t')
		} else {
			h.WriteByte('f')
		}
	case string:
		h.WriteByte('s')
		writeLen(h, len(x))
		h.WriteString(x)
	case json.Number:
		h.WriteByte('#')
		writeLen(h, len(x))
		h.WriteString(string(x))
	case float64:
		h.WriteByte('d')
		writeLen(h, int(math.Float64bits(x)>>32))
		writeLen(h, int(math.Float64bits(x)&0xffffffff))
	case []any:
		h.WriteByte('[')
		writeLen(h, len(x))
		for _, e := range x {
			if !hashValue(h, e, depth+1) {
				return false
			}
		}
	case map[string]any:
		h.WriteByte('{')
		writeLen(h, len(x))
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			writeLen(h, len(k))
			h.WriteString(k)
			if !hashValue(h, x[k], depth+1) {
				return false
			}
		}
	default:
		return false
	}
	return true
}

func writeLen(h *maphash.Hash, n int) {
	var b [8]byte
	for i := range b {
		b[i] = byte(n >> (8 * i))
	}
	h.Write(b[:])
}
