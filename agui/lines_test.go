package agui

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// sizes records the room each Read was given.
type sizes struct {
	r    io.Reader
	room []int
}

func (s *sizes) Read(p []byte) (int, error) {
	s.room = append(s.room, len(p))
	return s.r.Read(p)
}

// ScanFrames reads a flood in big gulps; a quiet stream goes back to the small
// buffer before its next (blocking) read.
func TestLineReaderAdapts(t *testing.T) {
	var flood bytes.Buffer
	for flood.Len() < 200<<10 {
		flood.WriteString("data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"token\"}\n\n")
	}
	quiet := "data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n\n"
	src := &sizes{r: io.MultiReader(bytes.NewReader(flood.Bytes()), iotest.OneByteReader(strings.NewReader(quiet)))}
	var got bytes.Buffer
	for f, err := range ScanFrames(src, 0) {
		if err != nil {
			t.Fatal(err)
		}
		got.WriteString("data: ")
		got.Write(f.Data)
		got.WriteString("\n\n")
	}
	if got.String() != flood.String()+quiet {
		t.Fatalf("read %d bytes, want %d", got.Len(), flood.Len()+len(quiet))
	}
	if src.room[0] != smallLines {
		t.Fatalf("first read had room %d, want the small buffer (%d)", src.room[0], smallLines)
	}
	big := 0
	for _, n := range src.room[:len(src.room)/2] {
		if n > smallLines {
			big++
		}
	}
	if big == 0 {
		t.Fatalf("the flood was never read into a big buffer: %v", src.room[:10])
	}
	if last := src.room[len(src.room)-1]; last > smallLines {
		t.Fatalf("the quiet tail's last read had room %d: the big buffer was held while waiting", last)
	}
}

// Lines longer than any buffer come in pieces, as bufio's ReadSlice gives
// them, and ScanFrames joins them.
func TestScanFramesLongLineAnyChunking(t *testing.T) {
	long := `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"` + strings.Repeat("x", 3*bigLines) + `"}`
	stream := "data: " + long + "\r\n\r\ndata: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n\n"
	for name, r := range map[string]io.Reader{
		"whole":    strings.NewReader(stream),
		"one byte": iotest.OneByteReader(strings.NewReader(stream)),
		"half":     iotest.HalfReader(strings.NewReader(stream)),
		"data+err": iotest.DataErrReader(strings.NewReader(stream)),
	} {
		var frames []string
		for f, err := range ScanFrames(r, 0) {
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			frames = append(frames, string(f.Data))
		}
		if len(frames) != 2 || frames[0] != long {
			t.Fatalf("%s: got %d frames (first %d bytes)", name, len(frames), len(frames[0]))
		}
	}
}

// FuzzScanFramesChunking: the frames (and the error that ends them) do
// not depend on how the stream's bytes arrive.
func FuzzScanFramesChunking(f *testing.F) {
	f.Add([]byte("data: {\"a\":1}\n\nid: 7\ndata: x\r\ndata: y\n\n: c\nretry: 5\n\n"), uint8(3))
	f.Add([]byte("data: "+strings.Repeat("z", 5000)+"\n\ndata: {\"b\":"), uint8(200))
	f.Fuzz(func(t *testing.T, data []byte, step uint8) {
		frames := func(r io.Reader) string {
			var b strings.Builder
			for fr, err := range ScanFrames(r, 1<<16) {
				if err != nil {
					b.WriteString("error: " + err.Error())
					break
				}
				b.WriteString(fr.Event + "|" + fr.ID + "|" + string(fr.Data) + "|" + strconv.Itoa(fr.Retry) + "\n")
			}
			return b.String()
		}
		want := frames(bytes.NewReader(data))
		n := int(step)%64 + 1
		if got := frames(&stepReader{data: data, n: n}); got != want {
			t.Fatalf("in reads of %d bytes:\n%s\nwhole:\n%s", n, got, want)
		}
		if got := frames(iotest.DataErrReader(bytes.NewReader(data))); got != want {
			t.Fatalf("data with EOF:\n%s\nwhole:\n%s", got, want)
		}
	})
}

// stepReader returns at most n bytes per Read.
type stepReader struct {
	data []byte
	n    int
}

func (s *stepReader) Read(p []byte) (int, error) {
	if len(s.data) == 0 {
		return 0, io.EOF
	}
	k := min(s.n, len(p), len(s.data))
	copy(p, s.data[:k])
	s.data = s.data[k:]
	return k, nil
}

// Big buffers are bounded: past maxBigLines readers wanting one, the rest
// read with the small buffer (long lines in pieces) and lose nothing.
func TestLineReaderBigBuffersBounded(t *testing.T) {
	base := bigLinesPool.Lent()
	line := strings.Repeat("x", 3*smallLines) + "\n"
	var readers []*lineReader
	for range maxBigLines + 20 {
		l := newLineReader(strings.NewReader(line + line))
		var got []byte
		for {
			piece, err := l.readSlice()
			got = append(got, piece...)
			if err == nil {
				break
			}
			if err != bufio.ErrBufferFull {
				t.Fatal(err)
			}
		}
		if string(got) != line {
			t.Fatalf("read %d bytes, want the %d-byte line", len(got), len(line))
		}
		if n := bigLinesPool.Lent() - base; n > maxBigLines {
			t.Fatalf("%d big buffers out", n)
		}
		readers = append(readers, l)
	}
	if n := bigLinesPool.Lent() - base; n != maxBigLines {
		t.Fatalf("%d big buffers out with %d readers holding long lines, want the cap %d", n, len(readers), maxBigLines)
	}
	for _, l := range readers {
		l.release()
	}
	if n := bigLinesPool.Lent(); n != base {
		t.Fatalf("%d big buffers out after release, want %d", n, base)
	}
}
