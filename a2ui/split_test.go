package a2ui_test

import (
	"testing"

	"github.com/genui-adapter/genui-adapter/a2ui"
)

// TestSplitMessagesWrapper: {"messages": [...]} is unwrapped, beside
// keys no message has (an official example's name and description); an
// object whose "messages" is given twice, or that is itself a message, is
// one message, so that what it holds is judged.
func TestSplitMessagesWrapper(t *testing.T) {
	m := `{"version":"v0.9","deleteSurface":{"surfaceId":"s"}}`
	for _, tt := range []struct {
		name, body string
		want       int
	}{
		{"wrapper", `{"messages":[` + m + `,` + m + `]}`, 2},
		{"official example", `{"name":"x","description":"y","messages":[` + m + `]}`, 1},
		{"escaped key", `{"m\u0065ssages":[` + m + `,` + m + `]}`, 2},
		{"messages twice", `{"messages":[` + m + `],"messages":[]}`, 1},
		{"a message", `{"version":"v0.9","deleteSurface":{"surfaceId":"s"},"messages":[]}`, 1},
		{"a v0.8 message", `{"messages":[],"beginRendering":{"surfaceId":"s","root":"r"}}`, 1},
		{"not an array", `{"messages":{}}`, 1},
		{"another spelling", `{"Messages":[` + m + `,` + m + `]}`, 1},
	} {
		got, err := a2ui.SplitMessages([]byte(tt.body))
		if err != nil || len(got) != tt.want {
			t.Errorf("%s: SplitMessages(%s) = %d messages, %v; want %d", tt.name, tt.body, len(got), err, tt.want)
		}
	}
}
