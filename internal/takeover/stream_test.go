package takeover

import (
	"bufio"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
)

// Writes queued between flushes go out in chunks of at most maxChunk, so
// a flood's buffer stays one the pool keeps; nothing is lost or reordered.
func TestStreamChunksBounded(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	s := &Stream{conn: a, cancel: func() {}}
	var want strings.Builder
	go func() {
		for i := range 3000 {
			line := "data: event " + strconv.Itoa(i) + strings.Repeat(".", 80) + "\n\n"
			want.WriteString(line)
			if _, err := s.Write([]byte(line)); err != nil {
				t.Error(err)
				return
			}
		}
		s.Flush()
		a.Close()
	}()
	br := bufio.NewReader(b)
	var got strings.Builder
	chunks := 0
	for {
		head, err := br.ReadString('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(head), 16, 64)
		if err != nil {
			t.Fatalf("chunk head %q", head)
		}
		if n > maxChunk {
			t.Fatalf("a %d-byte chunk (max %d)", n, maxChunk)
		}
		chunks++
		if _, err := io.CopyN(&got, br, n); err != nil {
			t.Fatal(err)
		}
		br.Discard(2)
	}
	if got.String() != want.String() || chunks < 2 {
		t.Fatalf("%d chunks, %d bytes, want %d bytes in order", chunks, got.Len(), want.Len())
	}
}
