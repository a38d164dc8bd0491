package agui

import (
	"strings"
	"testing"
)

func ids(ms []Message) string {
	var b []string
	for _, m := range ms {
		b = append(b, m.ID)
	}
	return strings.Join(b, ",")
}

func TestKeepActivities(t *testing.T) {
	u := func(id string) Message { return Message{ID: id, Role: RoleUser, Content: Text(id)} }
	act := func(id string) Message { return Message{ID: id, Role: RoleActivity, ActivityType: "a2ui-surface"} }
	before := []Message{act("a0"), u("m1"), u("t1"), act("s1"), act("s1b"), u("m2"), u("gone"), act("s2"), u("m3")}
	for _, c := range []struct {
		snapshot []Message
		want     string
	}{
		// LangGraph's view: the same messages without the activities.
		{[]Message{u("m1"), u("t1"), u("m2"), u("gone"), u("m3")}, "a0,m1,t1,s1,s1b,m2,gone,s2,m3"},
		// A message was dropped: its activity goes to the end.
		{[]Message{u("m1"), u("t1"), u("m2"), u("m3"), u("m4")}, "a0,m1,t1,s1,s1b,m2,m3,m4,s2"},
		// The snapshot already has one of them: not twice.
		{[]Message{u("m1"), u("t1"), act("s1"), u("m2")}, "a0,m1,t1,s1,s1b,m2,s2"},
	} {
		if got := ids(KeepActivities(c.snapshot, before)); got != c.want {
			t.Errorf("KeepActivities(%s) = %s, want %s", ids(c.snapshot), got, c.want)
		}
	}
	if got := KeepActivities([]Message{u("x")}, []Message{u("y")}); ids(got) != "x" {
		t.Errorf("no activities: %s", ids(got))
	}
}
