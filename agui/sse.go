package agui

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"strconv"
)

// DefaultMaxEventSize is the default cap on one SSE event's data. The
// official TypeScript client fails the stream above 10 MiB.
const DefaultMaxEventSize = 10 << 20

var (
	// ErrEventTooLarge is wrapped when one SSE event exceeds the cap.
	ErrEventTooLarge = errors.New("SSE event too large")
	// ErrTruncatedFrame is wrapped when the stream ends inside an event.
	ErrTruncatedFrame = errors.New("stream ended inside an SSE event")
)

// Encoder writes AG-UI events as SSE frames: an optional "id:" line, then
// exactly one "data: <compact json>" line and a blank line, LF only. Each
// frame is built in memory and written with one Write, so a frame is never
// half-written by the encoder. Encoder is not safe for concurrent use.
type Encoder struct {
	w   io.Writer
	buf []byte
}

// NewEncoder returns an Encoder writing to w.
func NewEncoder(w io.Writer) *Encoder { return &Encoder{w: w} }

// Encode writes ev with an optional id (empty means no "id:" line).
func (e *Encoder) Encode(id string, ev Event) error {
	data, err := ev.MarshalJSON()
	if err != nil {
		return fmt.Errorf("agui: encode %s: %w", ev.Type(), err)
	}
	return e.EncodeData(id, data)
}

// EncodeData writes an already encoded event.
func (e *Encoder) EncodeData(id string, data []byte) error {
	b := e.buf[:0]
	if id != "" {
		b = append(b, "id: "...)
		b = append(b, id...)
		b = append(b, '\n')
	}
	return e.encodeData(b, data)
}

// EncodeDataSeq writes an already encoded event with a numeric id (a run
// log's sequence number), formatting it without an allocation.
func (e *Encoder) EncodeDataSeq(seq int64, data []byte) error {
	b := append(e.buf[:0], "id: "...)
	b = strconv.AppendInt(b, seq, 10)
	return e.encodeData(append(b, '\n'), data)
}

// encodeData appends the data line to b (e.buf, holding the id line if
// any) and writes the frame.
func (e *Encoder) encodeData(b, data []byte) error {
	if bytes.IndexByte(data, '\n') >= 0 || bytes.IndexByte(data, '\r') >= 0 { // vectorised, unlike ContainsAny
		var c bytes.Buffer
		if err := json.Compact(&c, data); err != nil {
			e.buf = b
			return fmt.Errorf("agui: encode: %w", err)
		}
		data = c.Bytes()
	}
	b = append(b, "data: "...)
	b = append(b, data...)
	b = append(b, '\n', '\n')
	e.buf = b
	_, err := e.w.Write(b)
	return err
}

// Comment writes an SSE comment frame (": text"), used for heartbeats.
func (e *Encoder) Comment(text string) error {
	b := append(e.buf[:0], ':', ' ')
	b = append(b, text...)
	b = append(b, '\n', '\n')
	e.buf = b
	_, err := e.w.Write(b)
	return err
}

// Retry writes a "retry:" field telling clients how long to wait before
// reconnecting.
func (e *Encoder) Retry(ms int) error {
	b := append(e.buf[:0], "retry: "...)
	b = strconv.AppendInt(b, int64(ms), 10)
	b = append(b, '\n', '\n')
	e.buf = b
	_, err := e.w.Write(b)
	return err
}

// Frame is one dispatched SSE event.
type Frame struct {
	Event string // the "event:" field; empty means "message"
	ID    string // the last "id:" seen, as the SSE spec says
	Data  []byte // "data:" lines joined with "\n"
	Retry int    // the "retry:" field in ms, or 0
}

// ScanFrames reads SSE frames from r. It accepts LF and CRLF line endings,
// several "data:" lines per event, comments and the event, id and retry
// fields. One event's data is capped at max bytes (DefaultMaxEventSize if
// max <= 0). Any error ends the sequence. A stream that ends inside an event
// yields the event if its data is complete JSON, else an error wrapping
// ErrTruncatedFrame. Frame.Data is valid until the next iteration.
func ScanFrames(r io.Reader, max int) iter.Seq2[Frame, error] {
	if max <= 0 {
		max = DefaultMaxEventSize
	}
	return func(yield func(Frame, error) bool) {
		// Thousands of idle streams each hold this buffer for their
		// whole life: it is 1 KiB while the stream is quiet (most AG-UI
		// frames fit; a longer line grows a slice of its own, reused).
		br := newLineReader(r)
		defer br.release()
		var (
			f       Frame
			data    []byte
			hasData bool
			long    []byte
			lastID  string
		)
		for {
			line, err := br.readSlice()
			if errors.Is(err, bufio.ErrBufferFull) {
				long = append(long[:0], line...)
				for errors.Is(err, bufio.ErrBufferFull) {
					if len(long) > max+16 {
						yield(Frame{}, fmt.Errorf("%w: line longer than %d bytes", ErrEventTooLarge, max))
						return
					}
					line, err = br.readSlice()
					long = append(long, line...)
				}
				line = long
			}
			if err != nil && err != io.EOF {
				yield(Frame{}, err)
				return
			}
			eof := err == io.EOF
			line = bytes.TrimSuffix(line, []byte("\n"))
			line = bytes.TrimSuffix(line, []byte("\r"))
			if len(line) == 0 {
				if eof {
					// End of stream: dispatch what is complete.
					if hasData {
						if !json.Valid(data) {
							yield(Frame{}, fmt.Errorf("%w (%d bytes pending)", ErrTruncatedFrame, len(data)))
							return
						}
						f.Data, f.ID = data, lastID
						yield(f, nil)
					}
					return
				}
				if hasData {
					f.Data, f.ID = data, lastID
					if !yield(f, nil) {
						return
					}
				} else if f.Retry > 0 {
					f.ID = lastID
					if !yield(f, nil) {
						return
					}
				}
				f, data, hasData = Frame{}, data[:0], false
				continue
			}
			if line[0] != ':' {
				name, value := line, []byte(nil)
				if i := bytes.IndexByte(line, ':'); i >= 0 {
					name, value = line[:i], line[i+1:]
					if len(value) > 0 && value[0] == ' ' {
						value = value[1:]
					}
				}
				switch string(name) {
				case "data":
					if hasData {
						data = append(data, '\n')
					}
					data = append(data, value...)
					hasData = true
					if len(data) > max {
						yield(Frame{}, fmt.Errorf("%w: more than %d bytes", ErrEventTooLarge, max))
						return
					}
				case "event":
					f.Event = string(value)
				case "id":
					if bytes.IndexByte(value, 0) < 0 {
						lastID = string(value)
					}
				case "retry":
					if n, err := strconv.Atoi(string(value)); err == nil && n >= 0 {
						f.Retry = n
					}
				}
			}
			if eof {
				if hasData {
					if !json.Valid(data) {
						yield(Frame{}, fmt.Errorf("%w (%d bytes pending)", ErrTruncatedFrame, len(data)))
						return
					}
					f.Data, f.ID = data, lastID
					yield(f, nil)
				}
				return
			}
		}
	}
}

// A Decoder reads AG-UI events from SSE streams. The zero value decodes
// with the default frame cap and reports no repairs.
type Decoder struct {
	// MaxEventSize caps one frame's data in bytes (see ScanFrames).
	MaxEventSize int
	// Repaired, if set, receives each fix ParseEvent made to accept an
	// event (the Repair* kinds), before the event is yielded.
	Repaired func(kind string)
}

// Events reads events from r, one per frame with data. Any error ends the
// sequence: malformed data wraps ErrMalformedEvent.
func (d *Decoder) Events(r io.Reader) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		var a arena // the stream's deltas, once it is busy
		for f, err := range ScanFrames(r, d.MaxEventSize) {
			if err != nil {
				yield(nil, err)
				return
			}
			if len(f.Data) == 0 {
				continue // retry-only or empty frames carry no event
			}
			ev, err := parseEvent(&a, f.Data, d.Repaired)
			if err != nil {
				yield(nil, err)
				return
			}
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// Decode reads events from r with frames capped at max bytes, reporting
// no repairs: (&Decoder{MaxEventSize: max}).Events(r).
func Decode(r io.Reader, max int) iter.Seq2[Event, error] {
	return (&Decoder{MaxEventSize: max}).Events(r)
}
