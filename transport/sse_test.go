package transport

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func TestSSEReader(t *testing.T) {
	type ev = SSEEvent
	tests := []struct {
		name    string
		in      string
		want    []SSEEvent
		wantErr error // after the events; io.EOF for a clean end
	}{
		{"empty stream", "", nil, io.EOF},
		{"one event LF", "data: x\n\n", []ev{{Data: "x"}}, io.EOF},
		{"CRLF", "data: x\r\n\r\ndata: y\r\n\r\n", []ev{{Data: "x"}, {Data: "y"}}, io.EOF},
		{"CR", "data: x\r\rdata: y\r\r", []ev{{Data: "x"}, {Data: "y"}}, io.EOF},
		{"mixed line ends", "data: a\r\ndata: b\rdata: c\n\r\n", []ev{{Data: "a\nb\nc"}}, io.EOF},
		{"multi-line data joined with LF", "data: a\ndata: b\ndata:\n\n", []ev{{Data: "a\nb\n"}}, io.EOF},
		{"one leading space removed", "data:  two\ndata:none\n\n", []ev{{Data: " two\nnone"}}, io.EOF},
		{"colon in value kept", "data: {\"a\":1}\n\n", []ev{{Data: `{"a":1}`}}, io.EOF},
		{"comments ignored", ": hi\ndata: x\n: there\n\n:keepalive\n\n", []ev{{Data: "x"}}, io.EOF},
		{"event field", "event: update\ndata: x\n\ndata: y\n\n", []ev{{Event: "update", Data: "x"}, {Data: "y"}}, io.EOF},
		{"id persists", "id: 7\ndata: x\n\ndata: y\n\nid\ndata: z\n\n", []ev{{ID: "7", Data: "x"}, {ID: "7", Data: "y"}, {Data: "z"}}, io.EOF},
		{"id with NUL ignored", "id: 1\n\nid: a\x00b\ndata: x\n\n", []ev{{ID: "1", Data: "x"}}, io.EOF},
		{"retry", "retry: 1500\ndata: x\n\nretry: 1.5\nretry: x\ndata: y\n\n", []ev{{Retry: 1500 * time.Millisecond, Data: "x"}, {Retry: 1500 * time.Millisecond, Data: "y"}}, io.EOF},
		{"no data: not dispatched, type reset", "event: a\n\ndata: x\n\n", []ev{{Data: "x"}}, io.EOF},
		{"empty data is dispatched", "data\n\ndata:\n\n", []ev{{Data: ""}, {Data: ""}}, io.EOF},
		{"field without colon", "data\ndata\n\n", []ev{{Data: "\n"}}, io.EOF},
		{"unknown fields ignored", "foo: bar\nDATA: no\ndata: x\n\n", []ev{{Data: "x"}}, io.EOF},
		{"blank lines between events", "\n\n\ndata: x\n\n\n\n", []ev{{Data: "x"}}, io.EOF},
		{"BOM skipped", "\xEF\xBB\xBFdata: x\n\n", []ev{{Data: "x"}}, io.EOF},
		{"only one BOM skipped", "\xEF\xBB\xBF\xEF\xBB\xBFdata: x\n\ndata: y\n\n", []ev{{Data: "y"}}, io.EOF},
		{"partial BOM is data", "\xEF\xBBdata: x\n\ndata: y\n\n", []ev{{Data: "y"}}, io.EOF},
		{"final event without blank line not dispatched", "data: x\n\ndata: y\n", []ev{{Data: "x"}}, io.ErrUnexpectedEOF},
		{"final line without terminator", "data: x\n\ndata: y", []ev{{Data: "x"}}, io.ErrUnexpectedEOF},
		{"trailing comment line unterminated", "data: x\n\n: bye", []ev{{Data: "x"}}, io.ErrUnexpectedEOF},
		{"trailing CR ends cleanly", "data: x\r\r", []ev{{Data: "x"}}, io.EOF},
		{"line too long", "data: " + strings.Repeat("a", 100) + "\n\n", nil, ErrEventTooLarge},
		{"data too long across lines", strings.Repeat("data: "+strings.Repeat("a", 40)+"\n", 3) + "\n", nil, ErrEventTooLarge},
		{"at the limit", "data: " + strings.Repeat("a", 58) + "\n\n", []ev{{Data: strings.Repeat("a", 58)}}, io.EOF},
	}
	readers := map[string]func(io.Reader) io.Reader{
		"whole":    func(r io.Reader) io.Reader { return r },
		"one byte": iotest.OneByteReader,
		"half":     iotest.HalfReader,
	}
	for _, tt := range tests {
		for rname, wrap := range readers {
			t.Run(tt.name+"/"+rname, func(t *testing.T) {
				r := NewSSEReader(wrap(strings.NewReader(tt.in)), 64)
				var got []SSEEvent
				var err error
				for {
					var e SSEEvent
					if e, err = r.Next(); err != nil {
						break
					}
					got = append(got, e)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("events = %+v; want %+v", got, tt.want)
				}
				if tt.wantErr == io.EOF && err != io.EOF || !errors.Is(err, tt.wantErr) {
					t.Errorf("error = %v; want %v", err, tt.wantErr)
				}
				if _, again := r.Next(); again != err {
					t.Errorf("error not sticky: %v, then %v", err, again)
				}
			})
		}
	}
}

// A CR at the end of one read and an LF at the start of the next are one
// line break, and the event before them is dispatched without waiting for
// more input.
func TestSSEReaderCRLFSplitAcrossReads(t *testing.T) {
	pr, pw := io.Pipe()
	r := NewSSEReader(pr, 0)
	done := make(chan SSEEvent)
	go func() {
		e, err := r.Next()
		if err != nil {
			t.Error(err)
		}
		done <- e
	}()
	pw.Write([]byte("data: x\r\n\r")) // dispatchable now: the blank line ended with CR
	if e := <-done; e.Data != "x" {
		t.Fatalf("got %+v", e)
	}
	go func() {
		pw.Write([]byte("\ndata: y\r\n\r\n")) // this LF belongs to the previous CR
		pw.Close()
	}()
	e, err := r.Next()
	if err != nil || e.Data != "y" {
		t.Fatalf("got %+v, %v; want data y", e, err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("got %v; want io.EOF", err)
	}
}

func TestSSEReaderSourceError(t *testing.T) {
	boom := errors.New("boom")
	r := NewSSEReader(io.MultiReader(strings.NewReader("data: x\n\ndata: y\n"), iotest.ErrReader(boom)), 0)
	if e, err := r.Next(); err != nil || e.Data != "x" {
		t.Fatalf("got %+v, %v", e, err)
	}
	if _, err := r.Next(); err != boom {
		t.Fatalf("got %v; want %v", err, boom)
	}
}
