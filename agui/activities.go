package agui

// KeepActivities returns snapshot with the activity messages of before
// (A2UI surfaces, MCP Apps cards) that it lacks put back, each right after
// the message it followed in before (after the activities already put
// there), or at the end when that message is gone. An upstream that knows
// nothing of activities (LangGraph's MESSAGES_SNAPSHOT) would otherwise
// erase every surface and card from the client and the thread's history.
func KeepActivities(snapshot, before []Message) []Message {
	have := make(map[string]bool, len(snapshot))
	for _, m := range snapshot {
		have[m.ID] = true
	}
	type kept struct {
		after string // the id of the message before it ("" at the start)
		m     Message
	}
	var missing []kept
	prev := ""
	for _, m := range before {
		if m.Role == RoleActivity && !have[m.ID] {
			missing = append(missing, kept{after: prev, m: m})
		}
		prev = m.ID
	}
	if len(missing) == 0 {
		return snapshot
	}
	out := make([]Message, 0, len(snapshot)+len(missing))
	placed := make([]bool, len(missing))
	// Activities anchored at the start, then each message followed by the
	// activities anchored to it (chains of activities follow each other).
	var place func(anchor string)
	place = func(anchor string) {
		for i, k := range missing {
			if !placed[i] && k.after == anchor {
				placed[i] = true
				out = append(out, k.m)
				place(k.m.ID)
			}
		}
	}
	place("")
	for _, m := range snapshot {
		out = append(out, m)
		place(m.ID)
	}
	for i, k := range missing {
		if !placed[i] {
			placed[i] = true
			out = append(out, k.m)
			place(k.m.ID)
		}
	}
	return out
}
