package a2ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/genui-adapter/genui-adapter/schemas"
)

// Upgrade is a sequence of A2UI messages brought to v0.9.1.
type Upgrade struct {
	// Messages are v0.9/v0.9.1 messages: those given in that version as
	// they are, v0.8 ones converted.
	Messages []json.RawMessage
	// Sources maps each of Messages to the index of the message it came
	// from.
	Sources []int
	// Issues are the messages left out (unknown version, a version other
	// than the one that started their surface, a v0.8 message that fails
	// the v0.8 schema) and what a conversion could not express; Index is
	// the input message's.
	Issues []Error
	// Versions lists the versions met, in order of first appearance.
	Versions []string
}

// Upgrade brings msgs (one surface's, or one batch's, in order) to
// v0.9.1: v0.9 and v0.9.1 messages pass unchanged, v0.8 messages are
// converted (V08Converter, stamped with version), v1.0 ones too
// (checked against the v1.0 schema, see convertV10), and a message of an
// unknown version or of a version other than the one that started its
// surface is left out and reported. The rest of a surface is kept either
// way. Messages of no v0.8 operation and no version pass, so the v0.9.1
// validator reports them. A v0.8 surface that never got beginRendering
// is reported (RuleV08NotRendered).
func (v *Validator) Upgrade(msgs []json.RawMessage, version string) Upgrade {
	up := v.NewUpgrader(version)
	u := up.Next(msgs)
	u.Issues = append(u.Issues, up.Finish()...)
	return u
}

// Upgrader is Upgrade over a stream that comes in parts (an A2A agent's
// DataParts): surfaces and their versions carry over from one part to
// the next. Indexes are within each part. Not safe for concurrent use.
type Upgrader struct {
	v       *Validator
	version string
	conv    *V08Converter
	family  map[string]string // surfaceId -> "v0.8" or "v0.9"
}

// NewUpgrader starts an Upgrader whose converted messages carry version
// (DefaultVersion if empty).
func (v *Validator) NewUpgrader(version string) *Upgrader {
	return &Upgrader{v: v, version: version, family: map[string]string{}}
}

// Next brings the next part's messages to v0.9.1 (see Validator.Upgrade).
func (up *Upgrader) Next(msgs []json.RawMessage) Upgrade {
	defer up.giveBack()
	var u Upgrade
	family := up.family
	for i, m := range msgs {
		h := up.v.verdicts.hash(m)
		ver, sid, op := up.v.verdicts.probe(m, h)
		fam := ver
		if slices.Contains(schemas.Versions, ver) {
			fam = "v0.9"
		}
		known := fam == "v0.9" || fam == schemas.V08 || fam == schemas.V10
		if ver != "" && !slices.Contains(u.Versions, ver) && known {
			u.Versions = append(u.Versions, ver)
		}
		switch {
		case ver == "":
			// Neither a version nor a v0.8 operation: the validator's.
		case !known:
			u.Issues = append(u.Issues, Error{Rule: RuleInvalidVersion, SurfaceID: sid, Path: "/version", Index: i,
				Message: fmt.Sprintf("message %d has version %q; accepted: %s, v1.0 (version field) and v0.8 (no version field); left out, the rest of the surface is kept", i, ver, joinVersions())})
			continue
		case sid != "" && family[sid] != "" && family[sid] != fam:
			u.Issues = append(u.Issues, Error{Rule: RuleMixedVersions, SurfaceID: sid, Path: "", Index: i,
				Message: fmt.Sprintf("message %d is %s on surface %q, which %s messages started; one surface speaks one version, so it is left out and the rest of the surface is kept", i, ver, sid, family[sid])})
			continue
		}
		// A surface speaks the version of the first message on it that is
		// not refused, until a deleteSurface that is not refused.
		claims := sid != "" && family[sid] == ""
		settle := func(refused bool) {
			switch {
			case refused:
			case op == "deleteSurface":
				delete(family, sid)
			case claims:
				family[sid] = fam
			}
		}
		if fam == schemas.V10 {
			out, issues := up.v.upgradeV10(m, h, sid, i, up.version)
			u.Issues = append(u.Issues, issues...)
			for _, o := range out {
				u.Messages = append(u.Messages, o)
				u.Sources = append(u.Sources, i)
			}
			settle(len(out) == 0 && len(issues) > 0)
			continue
		}
		if fam != schemas.V08 {
			u.Messages = append(u.Messages, m)
			u.Sources = append(u.Sources, i)
			if fam == "v0.9" && (claims || op == "deleteSurface") {
				// Judged by the v0.9.1 validator; what it refuses
				// whatever the surface's state does not count here,
				// and only a createSurface makes a surface.
				_, _, _, errs := up.v.alone(m, i)
				settle(len(errs) > 0 || claims && op != "createSurface")
			}
			continue
		}
		if up.conv == nil {
			up.conv = up.v.NewV08Converter(up.version)
		}
		up.conv.lent = true // until Next returns: see giveBack
		up.conv.index = i
		out, issues := up.conv.convertProbed(m, sid, op, h)
		u.Issues = append(u.Issues, issues...)
		for _, o := range out {
			u.Messages = append(u.Messages, o.Message)
			u.Sources = append(u.Sources, o.Source)
		}
		// A v0.8 message held for beginRendering gives nothing yet and
		// no issue: not refused.
		settle(len(out) == 0 && len(issues) > 0)
	}
	return u
}

// giveBack ends Next's loan of its messages to the v0.8 converter: what
// it holds of them becomes its own, for the caller may reuse them.
func (up *Upgrader) giveBack() {
	if up.conv != nil {
		up.conv.keepHeld()
		up.conv.lent = false
	}
}

// Finish reports the v0.8 surfaces that never got beginRendering.
func (up *Upgrader) Finish() []Error {
	if up.conv == nil {
		return nil
	}
	return up.conv.Finish()
}

// upgradeV10 checks one v1.0 message (its bytes' hash h) against the v1.0
// schema and converts it (convertV10); a message that fails the schema is
// left out and reported.
func (v *Validator) upgradeV10(m []byte, h uint64, sid string, idx int, version string) ([]json.RawMessage, []Error) {
	a := getArena()
	out, errs := v.upgradeV10In(a, m, h, sid, idx, version)
	a.put()            // out is encoded: none of it is a's
	ownErrors(errs, m) // upgradeV10In decodes a view of m
	return out, errs
}

// upgradeV10In is upgradeV10 with the maps and lists of the
// message decoded and converted lent by a; m is decoded without a copy
// (decodeViewIn), so its errors' strings may be m's.
func (v *Validator) upgradeV10In(a *arena, m []byte, h uint64, sid string, idx int, version string) ([]json.RawMessage, []Error) {
	if version == "" {
		version = DefaultVersion
	}
	fail := func(rule, path, msg string) []Error {
		return []Error{{Rule: rule, SurfaceID: sid, Path: path, Message: msg, Index: idx}}
	}
	if len(m) > v.opts.MaxMessageBytes {
		return nil, fail(RuleTooLarge, "", fmt.Sprintf("message is %d bytes, more than %d", len(m), v.opts.MaxMessageBytes))
	}
	doc, rule, path, msg := decodeViewIn(m, v.opts.MaxDepth, a)
	if rule != "" {
		return nil, fail(rule, path, msg)
	}
	obj, _ := doc.(map[string]any)
	op, several := operation(obj, func(k string) bool { return v10Functions[k] || v.v10[k] != nil }, idx)
	switch {
	case several != nil:
		several.Message += "; left out, the rest of the surface is kept"
		return nil, []Error{*several}
	case v10Functions[op]:
		return nil, []Error{refuseV10Function(op, sid, idx)}
	case op == "":
		return nil, fail(RuleUnknownMessage, "", fmt.Sprintf("message %d has no v1.0 operation (createSurface, updateComponents, updateDataModel, deleteSurface); left out, the rest of the surface is kept", idx))
	}
	if k, ok := v.verdicts.passedHash(v.v10[op], checkDecoded, h); !ok {
		if !v.v10Check(op, doc) {
			if err := v.v10[op].Validate(doc); err != nil {
				errs := schemaErrors(err, "", sid, idx)
				for i := range errs {
					errs[i].Message = "v1.0 schema: " + errs[i].Message + "; left out, the rest of the surface is kept"
				}
				return nil, errs
			}
		}
		v.verdicts.remember(k)
	}
	msgs, issues := v.convertV10(a, obj, sid, idx, version)
	out := make([]json.RawMessage, len(msgs))
	ends := make([]int, len(msgs))
	buf := a.scratch()
	for i, o := range msgs {
		buf = appendJSON(buf, o)
		ends[i] = len(buf)
	}
	a.keep(buf)
	own := append([]byte(nil), buf...)
	start := 0
	for i, end := range ends {
		out[i] = own[start:end:end]
		start = end
	}
	return out, issues
}

// knownNames are the operations and versions probeVersion reads most.
var knownNames = func() map[string]string {
	m := map[string]string{}
	for _, s := range []string{schemas.V08, schemas.V10, "beginRendering", "surfaceUpdate", "dataModelUpdate", "deleteSurface",
		"createSurface", "updateComponents", "updateDataModel"} {
		m[s] = s
	}
	for _, s := range schemas.Versions {
		m[s] = s
	}
	return m
}()

func joinVersions() string {
	var b bytes.Buffer
	for i, s := range schemas.Versions {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s)
	}
	return b.String()
}

// probeVersion returns a message's version (schemas.V08 for a v0.8
// operation without a version field; "" when neither), its surface id
// and its operation (its one top-level key other than version; "" when
// it has several, which its converter or the validator refuses), in one
// pass over the bytes without decoding them. What is not a JSON object
// gives "", for the validator to report.
func probeVersion(m []byte) (version, surfaceID, op string) {
	var stack [64]bool // open containers: true for an object
	depth := 0
	expectKey := false
	// The last key at depth 1 is "version" (inVersion) or the operation
	// (inOp, also before any); the last at depth 2 is "surfaceId"
	// (key2SID).
	inVersion, inOp, key2SID := false, true, false
	hasVersion := false
	keys, v08 := 0, false // top-level keys other than version; one is a v0.8 operation
	for i := 0; i < len(m); i++ {
		switch c := m[i]; c {
		case ' ', '\t', '\n', '\r':
			i = skipSpace(m, i) - 1
		case '{', '[':
			if depth < len(stack) {
				stack[depth] = c == '{'
			}
			depth++
			expectKey = c == '{'
		case '}', ']':
			depth--
			expectKey = false
			if depth < 0 {
				return "", "", ""
			}
		case ',':
			expectKey = depth > 0 && depth <= len(stack) && stack[depth-1]
		case '"':
			j, escaped := stringEnd(m, i)
			if j < 0 {
				return "", "", ""
			}
			if depth > 2 {
				i = j
				continue
			}
			// The string, made only where it is kept (a name most
			// messages use is not made).
			raw := m[i+1 : j]
			str := func() string {
				if s, ok := knownNames[string(raw)]; ok {
					return s
				}
				return string(raw)
			}
			if escaped || !utf8.Valid(raw) {
				// Decoded as the message is (bytes that are not UTF-8
				// become U+FFFD), so its surface is the one it names.
				var s string
				if json.Unmarshal(m[i:j+1], &s) != nil {
					return "", "", ""
				}
				str = func() string { return s }
			}
			isVersion := !escaped && string(raw) == "version" || escaped && str() == "version"
			switch {
			case expectKey && depth == 1:
				expectKey, inOp, key2SID = false, false, false
				if isVersion {
					hasVersion, inVersion = true, true
				} else {
					op, inOp, inVersion = str(), true, false
					keys++
					v08 = v08 || isV08Op(op)
				}
			case expectKey && depth == 2:
				key2SID, expectKey = !escaped && string(raw) == "surfaceId" || escaped && str() == "surfaceId", false
			case depth == 1 && inVersion:
				version = str()
			case depth == 2 && inOp && key2SID:
				surfaceID = str()
			}
			i = j
		}
	}
	if depth != 0 || len(m) == 0 {
		return "", "", ""
	}
	if keys > 1 {
		op = ""
	}
	if hasVersion {
		if version == "" {
			version = "(empty or not a string)"
		}
		return version, surfaceID, op
	}
	if v08 {
		return schemas.V08, surfaceID, op
	}
	return "", surfaceID, op
}

// Verdict is a document judged against its own version.
type Verdict struct {
	// Version is the document's version: "v0.8", "v0.9", "v0.9.1",
	// another version a message names (which the validator does not
	// know, so its messages are invalid_version errors), "mixed" (more
	// than one), or "" when no message names one.
	Version string
	// Versions lists the versions met, in order of first appearance.
	Versions []string
	Errors   []Error
	// Lossy lists what converting a v0.8 document to v0.9.1 cannot
	// express (RuleV08NotExpressible): not errors of the document.
	Lossy []Error
}

// Judge validates msgs as one document in its own version: v0.9/v0.9.1
// against the v0.9.1 schemas and integrity rules (ValidateBatch); v0.8
// and v1.0 against their own schemas, then, converted, against the same
// integrity rules (their errors name the v0.8 message, the path is in the
// converted message). A document that mixes versions is judged message by
// message in its own, with a RuleMixedVersions error for each message
// whose surface another version started.
func (v *Validator) Judge(msgs [][]byte) Verdict {
	raws := make([]json.RawMessage, len(msgs))
	for i, m := range msgs {
		raws[i] = m
	}
	u := v.Upgrade(raws, "")
	var vd Verdict
	vd.Versions = u.Versions
	var unknown []string // versions the validator does not know, named all the same
	for _, m := range msgs {
		if ver, _, _ := probeVersion(m); ver != "" && ver != schemas.V08 && ver != schemas.V10 && !slices.Contains(schemas.Versions, ver) && !slices.Contains(unknown, ver) {
			unknown = append(unknown, ver)
		}
	}
	switch {
	case len(u.Versions) == 0 && len(unknown) == 1:
		vd.Version = unknown[0]
	case len(u.Versions) == 0 && len(unknown) > 1, len(u.Versions) > 0 && len(unknown) > 0:
		vd.Version = "mixed"
	case len(u.Versions) == 1:
		vd.Version = u.Versions[0]
	case len(u.Versions) > 1:
		vd.Version = "mixed"
		if !slices.Contains(u.Versions, schemas.V08) && !slices.Contains(u.Versions, schemas.V10) {
			vd.Version = u.Versions[len(u.Versions)-1] // v0.9 and v0.9.1: one schema
		}
	}
	vd.Versions = append(vd.Versions, unknown...)
	if !slices.Contains(u.Versions, schemas.V08) && !slices.Contains(u.Versions, schemas.V10) {
		vd.Errors = v.ValidateBatch(msgs)
		return vd
	}
	for _, e := range u.Issues {
		if e.Rule == RuleV08NotExpressible || e.Rule == RuleV10NotExpressible {
			vd.Lossy = append(vd.Lossy, e)
		} else {
			vd.Errors = append(vd.Errors, e)
		}
	}
	out := make([][]byte, len(u.Messages))
	for i, m := range u.Messages {
		out[i] = m
	}
	for _, e := range v.ValidateBatch(out) {
		if e.Index >= 0 && e.Index < len(u.Sources) {
			e.Index = u.Sources[e.Index]
		}
		e.Message = "converted to v0.9.1: " + e.Message
		vd.Errors = append(vd.Errors, e)
	}
	return vd
}
