package transport

import (
	"bytes"
	"errors"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
)

// TestSSELineScanLinear: a line arriving one byte per read is searched for
// its end once, not once per read (which cost time quadratic in the line).
// (Found by fuzz.FuzzSSEReader: a 128 KiB line read byte by byte took 17 s.)
func TestSSELineScanLinear(t *testing.T) {
	for _, n := range []int{16 << 10, 64 << 10} {
		line := "data: " + strings.Repeat("x", n) + "\n\n"
		r := NewSSEReader(iotest.OneByteReader(strings.NewReader(line)), 0)
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
		if r.searched > int64(2*len(line)) {
			t.Errorf("a %d-byte line read byte by byte searched %d bytes", len(line), r.searched)
		}
	}
}

// TestSSERetryBeyondDuration: a retry too long for a time.Duration is the
// longest Duration, not a wrapped-around one. (Found by fuzz.FuzzSSEReader.)
func TestSSERetryBeyondDuration(t *testing.T) {
	r := NewSSEReader(strings.NewReader("retry: 99999999999999999999\ndata: x\n\n"), 0)
	ev, err := r.Next()
	if err != nil || ev.Retry != math.MaxInt64 {
		t.Errorf("Retry = %v, %v; want the largest Duration", ev.Retry, err)
	}
}

// TestSSEByteOrderMarkTinyLimit: a byte order mark is recognised however
// small the event size limit. (Found by fuzz.FuzzSSEReader.)
func TestSSEByteOrderMarkTinyLimit(t *testing.T) {
	r := NewSSEReader(iotest.OneByteReader(strings.NewReader("\xEF\xBB\xBF\n\n")), 1)
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("got %v, want io.EOF", err)
	}
}

// TestCorruptBodyTyped: a body broken in its content coding fails with
// ErrCorruptBody on both carriers, wrapping the decoder's error; a body
// merely cut short stays a truncation. (Found by fuzz.FuzzClientBody.)
func TestCorruptBodyTyped(t *testing.T) {
	for _, ct := range []string{MediaTypeSSE, MediaTypeBinary} {
		for _, tc := range []struct{ coding, body string }{
			{EncodingZstd, "\x28\xb5\x2f\xfd\x38"},
			{EncodingGzip, "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff\xff\xff\xff"},
		} {
			h := http.Header{}
			h.Set("Content-Type", ct)
			h.Set("Content-Encoding", tc.coding)
			resp := &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(bytes.NewReader([]byte(tc.body)))}
			r, err := NewEventReader(resp, ReaderOptions{})
			if err == nil {
				_, err = r.Next()
			}
			if !errors.Is(err, ErrCorruptBody) {
				t.Errorf("%s, %s: %v, want ErrCorruptBody", ct, tc.coding, err)
			}
		}
	}
}

// TestSSELineOverTinyLimit: a whole line over the limit that arrives in one
// read is refused as one that arrives in pieces is. (Found by
// fuzz.FuzzSSEReader once the buffer was made to hold a byte order mark.)
func TestSSELineOverTinyLimit(t *testing.T) {
	r := NewSSEReader(strings.NewReader("00\r"), 1)
	if _, err := r.Next(); !errors.Is(err, ErrEventTooLarge) {
		t.Errorf("got %v, want ErrEventTooLarge", err)
	}
}
