package agui

import (
	"bufio"
	"bytes"
	"io"

	"github.com/genui-adapter/genui-adapter/agui/internal/bufpool"
)

// lineReader is ScanFrames' buffered reader: bufio.Reader's ReadSlice,
// with a buffer that is small while the stream is quiet and big while it
// floods. Thousands of idle streams each hold a read buffer for their
// whole life, so it starts at smallLines; a read that fills the buffer
// means more is waiting, and the next reads go into a pooled bigLines
// buffer (fewer reads, and fewer flushes before them downstream); a read
// that finds less than smallLines goes back to a small buffer before the
// next read, which may block. A stream that goes quiet right after a big
// read keeps its big buffer until its next read, so at most maxBigLines
// big buffers are out at once (8 MiB); past that, streams read small.
type lineReader struct {
	rd    io.Reader
	buf   []byte
	big   *[bigLines]byte // buf's array when it is the pooled big buffer
	r, w  int
	err   error
	more  bool // the last read filled the buffer: read the next into a big one
	empty int  // reads in a row that returned nothing and no error
}

const (
	smallLines = 1 << 10
	bigLines   = 32 << 10
)

// maxBigLines bounds the big buffers held at once.
const maxBigLines = 256

var bigLinesPool = bufpool.Bounded[[bigLines]byte]{Max: maxBigLines}

func newLineReader(rd io.Reader) *lineReader {
	return &lineReader{rd: rd, buf: make([]byte, smallLines)}
}

// readSlice returns the next line, '\n' included, as a slice of the
// buffer valid until the next call. A line longer than the buffer comes
// in pieces with bufio.ErrBufferFull; the last piece of a stream may lack
// its '\n' and comes with the read error (io.EOF at the end).
func (l *lineReader) readSlice() ([]byte, error) {
	for {
		if i := bytes.IndexByte(l.buf[l.r:l.w], '\n'); i >= 0 {
			line := l.buf[l.r : l.r+i+1]
			l.r += i + 1
			return line, nil
		}
		if l.err != nil {
			line := l.buf[l.r:l.w]
			l.r = l.w
			err := l.err
			l.err = nil
			return line, err
		}
		if l.r == 0 && l.w == len(l.buf) {
			if l.big != nil || !l.grow() {
				l.r = l.w
				return l.buf, bufio.ErrBufferFull
			}
			l.more = true // a long line: read on into the big buffer
		}
		l.fill()
	}
}

// fill reads once into the buffer, after moving what is unread to its
// front and choosing its size.
func (l *lineReader) fill() {
	unread := l.w - l.r
	switch {
	case l.more && l.big == nil && l.grow():
	case !l.more && l.big != nil && unread < smallLines:
		small := make([]byte, smallLines)
		copy(small, l.buf[l.r:l.w])
		l.release()
		l.buf = small
	default:
		copy(l.buf, l.buf[l.r:l.w])
	}
	l.r, l.w = 0, unread
	n, err := l.rd.Read(l.buf[l.w:])
	if n < 0 || n > len(l.buf)-l.w {
		n, err = 0, io.ErrNoProgress
	}
	l.more = l.w+n == len(l.buf) || (l.big != nil && n >= smallLines)
	l.w += n
	l.err = err
	if n == 0 && err == nil {
		l.empty++
		if l.empty >= 100 {
			l.err = io.ErrNoProgress
		}
	} else {
		l.empty = 0
	}
}

// grow moves what is unread to the front of a big buffer, if one is to be
// had.
func (l *lineReader) grow() bool {
	big := bigLinesPool.Get()
	if big == nil {
		return false
	}
	n := copy(big[:], l.buf[l.r:l.w])
	l.buf, l.big, l.r, l.w = big[:], big, 0, n
	return true
}

// release gives a big buffer back (buf is then nil: ScanFrames calls it
// when done, fill replaces buf).
func (l *lineReader) release() {
	if l.big != nil {
		bigLinesPool.Put(l.big)
		l.big, l.buf = nil, nil
	}
}
