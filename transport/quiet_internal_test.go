package transport

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// MaxQuiet's default is DefaultMaxQuiet, 10 minutes; a negative value is
// no limit, and the error names the limit as Go writes a duration.
func TestMaxQuietDefault(t *testing.T) {
	resp := func() *http.Response {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {MediaTypeSSE}}, Body: io.NopCloser(strings.NewReader(""))}
	}
	r, err := NewEventReader(resp(), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.quiet == nil || r.quiet.d != DefaultMaxQuiet || DefaultMaxQuiet != 10*time.Minute {
		t.Fatalf("the zero ReaderOptions' MaxQuiet clock: %+v", r.quiet)
	}
	if got := r.quiet.err(2).Error(); !strings.HasPrefix(got, "transport: no event for 10m0s (only keep-alives: 2 since the last event)") {
		t.Fatalf("error %q", got)
	}
	if (&ClientOptions{}).reader().MaxQuiet != 0 || (&ClientOptions{MaxQuiet: time.Second}).reader().MaxQuiet != time.Second {
		t.Fatal("ClientOptions.MaxQuiet does not reach the reader")
	}
	off, err := NewEventReader(resp(), ReaderOptions{MaxQuiet: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer off.Close()
	if off.quiet != nil {
		t.Fatal("a negative MaxQuiet has a clock")
	}
}
