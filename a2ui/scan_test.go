package a2ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// scanJSONMaps is a reference scanJSON that keeps a map of key strings per
// object instead of spans. The fuzz target holds the two to the same
// verdicts.
func scanJSONMaps(b []byte, maxDepth int) (rule, path, msg string) {
	type frame struct {
		obj       bool
		keys      map[string]struct{}
		key       string
		idx       int
		expectKey bool
	}
	var stack []frame
	here := func() string {
		segs := make([]any, 0, len(stack))
		for _, f := range stack {
			if f.obj {
				segs = append(segs, f.key)
			} else {
				segs = append(segs, f.idx)
			}
		}
		return pointer(segs...)
	}
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{', '[':
			stack = append(stack, frame{obj: b[i] == '{', expectKey: b[i] == '{'})
			if len(stack) > maxDepth {
				stack = stack[:len(stack)-1]
				return RuleTooDeep, here(), fmt.Sprintf("JSON nesting deeper than %d", maxDepth)
			}
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			if n := len(stack); n > 0 {
				if stack[n-1].obj {
					stack[n-1].expectKey = true
				} else {
					stack[n-1].idx++
				}
			}
		case '"':
			j := i + 1
			escaped := false
			for ; j < len(b) && b[j] != '"'; j++ {
				if b[j] == '\\' {
					escaped = true
					j++
				}
			}
			if j >= len(b) {
				return "", "", ""
			}
			if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].expectKey {
				top := &stack[n-1]
				k := string(b[i+1 : j])
				if escaped || !utf8.Valid(b[i+1:j]) {
					if err := json.Unmarshal(b[i:j+1], &k); err != nil {
						return "", "", ""
					}
				}
				top.key, top.expectKey = k, false
				if top.keys == nil {
					top.keys = map[string]struct{}{}
				}
				if _, dup := top.keys[k]; dup {
					return RuleDuplicateKey, here(), fmt.Sprintf("key %q appears twice", k)
				}
				top.keys[k] = struct{}{}
			}
			i = j
		}
	}
	return "", "", ""
}

// bigObjectJSON is an object of n distinct keys, then extra appended raw.
func bigObjectJSON(n int, extra string) string {
	var b strings.Builder
	b.WriteString(`{"outer":{`)
	for i := range n {
		fmt.Fprintf(&b, `"k%d":%d,`, i, i)
	}
	b.WriteString(extra)
	b.WriteString(`}}`)
	return b.String()
}

var scanCases = []struct {
	in         string
	rule, path string
}{
	{`{"a":1,"b":{"a":2,"b":[{"a":3},{"a":4}]}}`, "", ""},
	{`{"a":1,"b":2,"a":3}`, RuleDuplicateKey, "/a"},
	{`{"a":1,"\u0061":2}`, RuleDuplicateKey, "/a"},
	{`{"\u0061":1,"a":2}`, RuleDuplicateKey, "/a"},
	{`{"a\/b":1,"a/b":2}`, RuleDuplicateKey, "/a~1b"},
	{`{"x":[{"a":1},{"b":1,"b":2}]}`, RuleDuplicateKey, "/x/1/b"},
	{`{"x":{"a":1},"y":{"a":1},"x":0}`, RuleDuplicateKey, "/x"},
	{`{"s":"a\"b","t":"{[,"}`, "", ""},
	{`[[[[[1]]]]]`, RuleTooDeep, "/0/0/0/0"},
	{`{"a":{"b":{"c":{"d":{"e":1}}}}}`, RuleTooDeep, "/a/b/c/d"},
	{bigObjectJSON(100, `"k99":0`), RuleDuplicateKey, "/outer/k99"},
	{bigObjectJSON(100, `"k5":0`), RuleDuplicateKey, "/outer/k5"},
	{bigObjectJSON(40, `"k\u0033":0`), RuleDuplicateKey, "/outer/k3"},
	{bigObjectJSON(100, `"new":0`), "", ""},
	{`{"a":1,"b`, "", ""},
	// Bytes that are not UTF-8 decode to U+FFFD, so these keys are one.
	{"{\"k\xff\":1,\"k\xfe\":2}", RuleDuplicateKey, "/k\ufffd"},
	{"{\"k\xff\":1,\"k\\ufffd\":2}", RuleDuplicateKey, "/k\ufffd"},
}

// TestDuplicateKeysNotUTF8: keys that differ only in bytes that are not
// UTF-8 decode to the same key, so one value would be lost; the message
// is refused as a duplicate.
func TestDuplicateKeysNotUTF8(t *testing.T) {
	v := MustValidator(Options{})
	errs := v.ValidateBatch([][]byte{
		[]byte(`{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"https://a2ui.org/specification/v0_9/basic_catalog.json"}}`),
		[]byte(`{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Text","text":{"path":"/k"}}]}}`),
		[]byte("{\"version\":\"v0.9\",\"updateDataModel\":{\"surfaceId\":\"s\",\"path\":\"/\",\"value\":{\"k\":1,\"x\xff\":1,\"x\xfe\":2}}}"),
	})
	if len(errs) != 1 || errs[0].Rule != RuleDuplicateKey || errs[0].Index != 2 {
		t.Fatalf("errors = %v, want one %s in message 2", errs, RuleDuplicateKey)
	}
}

func TestScanJSON(t *testing.T) {
	for _, c := range scanCases {
		rule, path, _ := scanJSON([]byte(c.in), 4)
		if rule != c.rule || path != c.path {
			t.Errorf("scanJSON(%.60q) = %q %q, want %q %q", c.in, rule, path, c.rule, c.path)
		}
	}
}

// TestScanJSONAllocatesNothing: a valid message of small objects costs no
// allocation (the map-per-object scan allocated for every object and key).
func TestScanJSONAllocatesNothing(t *testing.T) {
	b := []byte(`{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[` +
		`{"id":"root","component":"Column","children":["a","b"]},` +
		`{"id":"a","component":"Text","text":{"path":"/x"}},` +
		`{"id":"b","component":"Button","child":"a","action":{"event":{"name":"go","context":{"k":"v"}}}}]}}`)
	if n := testing.AllocsPerRun(100, func() { scanJSON(b, 32) }); n != 0 {
		t.Fatalf("%v allocations per scan, want 0", n)
	}
}

func FuzzScanJSON(f *testing.F) {
	for _, c := range scanCases {
		f.Add([]byte(c.in), 4)
	}
	f.Fuzz(func(t *testing.T, b []byte, depth int) {
		if depth < 1 || depth > 64 {
			return
		}
		r1, p1, m1 := scanJSON(b, depth)
		r2, p2, m2 := scanJSONMaps(b, depth)
		if r1 != r2 || p1 != p2 || m1 != m2 {
			t.Fatalf("spans: %q %q %q; maps: %q %q %q", r1, p1, m1, r2, p2, m2)
		}
	})
}

// FuzzDecodeDocument holds decodeDocument to jsonschema.UnmarshalJSON:
// the same document, or the same error; and decodeOrdered to
// encoding/json's verdict and to the same values in their order.
func FuzzDecodeDocument(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,-0.5e+3,true,false,null,"x\"y","\u00e9\ud83d\ude00"],"b":{}}`,
		`{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[]}}`,
		"\"\xff\xfe\"", `[01]`, `[1.]`, `[-]`, `{"a":1,}`, `{"a":1} x`, ` [ ] `,
		`"tab	in"`, `{"a":"\x"}`, `12345678901234567890123`, `[1e5,1E-5,0.0]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeDocument(b)
		want, werr := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
			t.Fatalf("errors: %v; jsonschema: %v", err, werr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("document %#v; jsonschema %#v", got, want)
		}
		if bytes.Count(b, []byte("["))+bytes.Count(b, []byte("{")) > maxDecodeDepth {
			return // may be nested deeper than decodeOrdered takes
		}
		ord, oerr := decodeOrdered(b)
		if (oerr == nil) != json.Valid(b) {
			t.Fatalf("decodeOrdered: %v; json.Valid %v", oerr, json.Valid(b))
		}
		if oerr == nil && !sameOrdered(ord, want) {
			t.Fatalf("ordered %#v; jsonschema %#v", ord, want)
		}
	})
}

// sameOrdered reports whether an ordered value holds doc's values, keys in
// the order doc's source gives them aside, and numbers out of float64's
// range as their text.
func sameOrdered(ord, doc any) bool {
	switch o := ord.(type) {
	case *object:
		m, ok := doc.(map[string]any)
		if !ok || len(o.m) != len(m) || len(o.keys) != len(m) {
			return false
		}
		for _, k := range o.keys {
			if !sameOrdered(o.m[k], m[k]) {
				return false
			}
		}
		return true
	case []any:
		a, ok := doc.([]any)
		if !ok || len(a) != len(o) {
			return false
		}
		for i := range o {
			if !sameOrdered(o[i], a[i]) {
				return false
			}
		}
		return true
	case string:
		if n, ok := doc.(json.Number); ok {
			return string(n) == o
		}
	}
	return reflect.DeepEqual(ord, doc)
}

// FuzzDecodeMessage holds decodeMessage, which checks while it decodes, to
// scanJSON then decodeDocument: the same rule, path and message, or the
// same document; and decodeStringIn to decodeMessage.
func FuzzDecodeMessage(f *testing.F) {
	for _, c := range scanCases {
		f.Add([]byte(c.in), 4)
	}
	for _, s := range []string{
		`{"a":[1,-0.5e+3,true,false,null,"x\"y","\u00e9\ud83d\ude00"],"b":{}}`,
		`{"a":1,"\u0061":2}`, "{\"\xff\":1,\"\xfe\":2}", `{"a":1,"a":2} x`, `[[[[[1]]]]]`, `[[[[{}]]]]`,
		`{"a":"\x","a":1}`, `{"a":{"b":1,"b":2},"c":[[[[`,
	} {
		f.Add([]byte(s), 4)
	}
	f.Fuzz(func(t *testing.T, b []byte, depth int) {
		if depth < 1 || depth > 64 {
			return
		}
		doc, rule, path, msg := decodeMessage(b, depth)
		var want any
		wrule, wpath, wmsg := scanJSON(b, depth)
		if wrule == "" {
			var err error
			if want, err = decodeDocument(b); err != nil {
				wrule, wmsg = RuleInvalidJSON, err.Error()
			}
		}
		if rule != wrule || path != wpath || msg != wmsg {
			t.Fatalf("decodeMessage: %q %q %q; scanJSON, decodeDocument: %q %q %q", rule, path, msg, wrule, wpath, wmsg)
		}
		if !reflect.DeepEqual(doc, want) {
			t.Fatalf("document %#v; decodeDocument %#v", doc, want)
		}
		// A held v0.8 message is decoded again from its string.
		sdoc, srule, spath, smsg := decodeStringIn(string(b), depth, nil)
		if srule != rule || spath != path || smsg != msg || !reflect.DeepEqual(sdoc, doc) {
			t.Fatalf("decodeStringIn: %q %q %q %#v; decodeMessage: %q %q %q %#v", srule, spath, smsg, sdoc, rule, path, msg, doc)
		}
	})
}

// FuzzStringEnd holds stringEnd to a byte-by-byte reading of the string.
func FuzzStringEnd(f *testing.F) {
	for _, s := range []string{`"ab"`, `"a\"b"`, `"a\\"`, `"a\\\"b"c`, `"\`, `"a\"`, `""`, `"\\\\"x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || b[0] != '"' {
			return
		}
		j, escaped := 1, false
		for ; j < len(b) && b[j] != '"'; j++ {
			if b[j] == '\\' {
				escaped = true
				j++
			}
		}
		if j >= len(b) {
			j = -1
		}
		if k, e := stringEnd(b, 0); k != j || (j >= 0 && e != escaped) {
			t.Fatalf("stringEnd(%q) = %d %v, want %d %v", b, k, e, j, escaped)
		}
	})
}

// FuzzProbeVersion holds probeVersion's byte scan to the decoded message:
// for a JSON object the decoder accepts, the same version, operation
// (the one top-level key other than version) and surface id (that
// operation's surfaceId), escapes and bytes that are not UTF-8 read as
// the decoder reads them.
func FuzzProbeVersion(f *testing.F) {
	for _, s := range []string{
		`{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"c"}}`,
		`{"beginRendering":{"surfaceId":"s","root":"r"},"version":"v0.8"}`,
		`{"vers\u0069on":"v1\u002e0","deleteSurface":{"surf\u0061ceId":"\u0073"}}`,
		"{\"surfaceUpdate\":{\"surfaceId\":\"s\xff\",\"components\":[]}}",
		`{"version":7,"x":{"surfaceId":["s"]},"y":{"surfaceId":"t"}}`,
		`{"dataModelUpdate":{"a":{"surfaceId":"x"},"surfaceId":"s"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		doc, rule, _, _ := decodeMessage(b, 64)
		obj, ok := doc.(map[string]any)
		if rule != "" || !ok {
			return
		}
		ver, sid, op := probeVersion(b)
		var keys []string
		v08 := false
		for k := range obj {
			if k != "version" {
				keys = append(keys, k)
				v08 = v08 || isV08Op(k)
			}
		}
		wantVer := ""
		switch x, has := obj["version"]; {
		case has:
			wantVer, _ = x.(string)
			if wantVer == "" {
				wantVer = "(empty or not a string)"
			}
		case v08:
			wantVer = "v0.8"
		}
		wantOp, wantSID := "", ""
		if len(keys) == 1 {
			wantOp = keys[0]
			body, _ := obj[wantOp].(map[string]any)
			wantSID, _ = body["surfaceId"].(string)
		}
		if ver != wantVer || op != wantOp || (len(keys) == 1 && sid != wantSID) {
			t.Fatalf("probeVersion(%q) = %q %q %q; decoded: %q %q %q", b, ver, sid, op, wantVer, wantSID, wantOp)
		}
	})
}

// TestProbesRemembered: what the version probe read in a message is
// remembered by its bytes and given back the same, within the verdicts'
// bound however many messages come.
func TestProbesRemembered(t *testing.T) {
	const max = 100
	d := newVerdicts(max)
	for i := range 3 * max {
		m := []byte(fmt.Sprintf(`{"surfaceUpdate":{"surfaceId":"s%d","components":[]}}`, i))
		h := d.hash(m)
		for range 2 {
			if v, sid, op := d.probe(m, h); v != "v0.8" || sid != fmt.Sprint("s", i) || op != "surfaceUpdate" {
				t.Fatalf("message %d probed %q %q %q", i, v, sid, op)
			}
		}
		if len(d.probes) > max {
			t.Fatalf("%d probes remembered, more than %d", len(d.probes), max)
		}
	}
	for _, m := range []string{
		`{"nothing":1}`,
		`{"version":"` + strings.Repeat("v", 1<<20) + `","createSurface":{"surfaceId":"s"}}`,
		`{"surfaceUpdate":{"surfaceId":"` + strings.Repeat("s", 1<<20) + `","components":[]}}`,
		`{"` + strings.Repeat("o", 1<<20) + `":{"surfaceId":"s"},"version":"v0.9"}`,
	} {
		b := []byte(m)
		d.probe(b, d.hash(b))
		if _, ok := d.probes[d.hash(b)]; ok {
			t.Errorf("a message of no known version, or with a long name, is remembered: %.40s…", m)
		}
	}
}
