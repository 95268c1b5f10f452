package transport

import (
	"math"
	"runtime"
	"strings"
	"testing"
)

func TestNegotiate(t *testing.T) {
	const (
		sse = MediaTypeSSE
		bin = MediaTypeBinary
		no  = "" // not acceptable
	)
	tests := []struct {
		name   string
		accept []string
		want   string
	}{
		{"no header", nil, sse},
		{"empty header", []string{""}, sse},
		{"blank elements", []string{" , ,"}, sse},
		{"any admits binary", []string{"*/*"}, bin},
		{"sse exact", []string{"text/event-stream"}, sse},
		{"binary exact", []string{"application/vnd.ag-ui.event+proto"}, bin},
		{"both: binary admitted", []string{"application/vnd.ag-ui.event+proto, text/event-stream"}, bin},
		{"both, binary preferred by q", []string{"application/vnd.ag-ui.event+proto, text/event-stream;q=0.5"}, bin},
		{"q values of the two not compared", []string{"text/event-stream, application/vnd.ag-ui.event+proto;q=0.9"}, bin},
		{"binary higher q than sse", []string{"text/event-stream;q=0.4, application/vnd.ag-ui.event+proto;q=0.41"}, bin},
		{"binary exact beats */* at equal q", []string{"application/vnd.ag-ui.event+proto, */*"}, bin},
		{"*/* admits binary next to sse", []string{"*/*, text/event-stream"}, bin},
		{"exact range decides over a wildcard", []string{"application/vnd.ag-ui.event+proto;q=0.2, */*;q=0.8"}, bin},
		{"application/* gives binary", []string{"application/*"}, bin},
		{"text/* gives sse", []string{"text/*"}, sse},
		{"application/* and text/*", []string{"application/*, text/*"}, bin},
		{"text/* lower q than application/*", []string{"text/*;q=0.5, application/*"}, bin},
		{"q=0 rules sse out under */*", []string{"*/*, text/event-stream;q=0"}, bin},
		{"q=0 rules binary out", []string{"application/vnd.ag-ui.event+proto;q=0, text/*"}, sse},
		{"everything q=0", []string{"*/*;q=0"}, no},
		{"only unrelated types", []string{"application/json, text/html"}, no},
		{"unrelated and q=0.0", []string{"text/event-stream;q=0.0, application/json"}, no},
		{"more specific q=0 beats wildcard", []string{"text/*, text/event-stream;q=0"}, no},
		{"parameters ignored for matching", []string{"text/event-stream; charset=utf-8"}, sse},
		{"parameters other than q do not match", []string{`application/vnd.ag-ui.event+proto; v="1,2"; q=1, text/event-stream;q=0.1`}, sse},
		{"a parameter of value * matches", []string{"application/vnd.ag-ui.event+proto;version=*;q=0.3, text/event-stream;q=0.2"}, bin},
		{"accept-ext after q ignored", []string{"application/vnd.ag-ui.event+proto;q=0.9;ext=1, text/event-stream;q=0.8"}, bin},
		{"case-insensitive type", []string{"Application/VND.AG-UI.Event+Proto"}, bin},
		{"case-insensitive q", []string{"text/event-stream;Q=0, application/*"}, bin},
		{"whitespace", []string{"  text/event-stream ;  q=0.5 ,application/vnd.ag-ui.event+proto ; q=0.6 "}, bin},
		{"multiple header fields", []string{"text/event-stream;q=0.1", "application/vnd.ag-ui.event+proto"}, bin},
		{"multiple fields, q=0 in second", []string{"*/*", "text/event-stream;q=0"}, bin},
		{"duplicate range: highest q counts", []string{"text/event-stream;q=0, text/event-stream;q=0.5"}, sse},
		{"q=1.000", []string{"application/vnd.ag-ui.event+proto;q=1.000"}, bin},
		{"garbage only counts as absent", []string{"garbage"}, sse},
		{"garbage skipped", []string{"nonsense, application/vnd.ag-ui.event+proto"}, bin},
		{"bad q skips the range", []string{"text/event-stream;q=2, application/vnd.ag-ui.event+proto;q=0.5"}, bin},
		{"q read as a number", []string{"application/vnd.ag-ui.event+proto;q=.5, text/event-stream;q=0.1"}, bin},
		{"q with four decimals", []string{"application/vnd.ag-ui.event+proto;q=0.5555, text/event-stream;q=0.1"}, bin},
		{"*/subtype is invalid", []string{"*/event-stream"}, sse},
		{"missing subtype is invalid", []string{"text/, application/*"}, bin},
		{"parameter without value is invalid", []string{"application/*;q, text/*;q=0.1"}, sse},
		{"browser default", []string{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}, bin},
		{"fetch default", []string{"*/*"}, bin},
		{"Run's default", []string{acceptBinaryFirst}, bin},
		{"PreferSSEOnly", []string{acceptSSEOnly}, sse},
	}
	tests = append(tests, []struct {
		name   string
		accept []string
		want   string
	}{
		{"not a number q", []string{"application/vnd.ag-ui.event+proto;q=abc, */*"}, sse},
		{"not a number q, later exact", []string{"application/vnd.ag-ui.event+proto;q=abc, application/vnd.ag-ui.event+proto"}, bin},
		{"not a number q, earlier exact", []string{"application/vnd.ag-ui.event+proto, application/vnd.ag-ui.event+proto;q=abc"}, no},
		{"a lone quote", []string{`application/vnd.ag-ui.event+proto;v="`}, bin},
		{"exponent", []string{"application/vnd.ag-ui.event+proto;q=1e-3"}, bin},
		{"negative", []string{"application/vnd.ag-ui.event+proto;q=-1, text/*"}, sse},
		{"q=0 on sse only", []string{"text/event-stream;q=0, */*"}, bin},
		{"q=0 on both", []string{"text/event-stream;q=0, application/vnd.ag-ui.event+proto;q=0"}, no},
		{"text/* only", []string{"text/*"}, sse},
		{"*/*;q=0.1", []string{"*/*;q=0.1"}, bin},
	}...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Negotiate(tt.accept)
			if ok != (tt.want != "") || got != tt.want {
				t.Errorf("Negotiate(%q) = %q, %v; want %q, %v", tt.accept, got, ok, tt.want, tt.want != "")
			}
		})
	}
}

func TestNegotiateEncoding(t *testing.T) {
	both := []string{EncodingZstd, EncodingGzip}
	gzipFirst := []string{EncodingGzip, EncodingZstd}
	tests := []struct {
		name   string
		accept []string
		server []string
		want   string
	}{
		{"server compresses nothing", []string{"gzip, zstd"}, nil, ""},
		{"no header", nil, both, ""},
		{"empty header", []string{""}, both, ""},
		{"identity only", []string{"identity"}, both, ""},
		{"gzip", []string{"gzip"}, both, EncodingGzip},
		{"zstd", []string{"zstd"}, both, EncodingZstd},
		{"both: server order", []string{"gzip, zstd"}, both, EncodingZstd},
		{"both: server order gzip first", []string{"zstd, gzip"}, gzipFirst, EncodingGzip},
		{"client q beats server order", []string{"zstd;q=0.5, gzip"}, both, EncodingGzip},
		{"q=0 refuses", []string{"zstd;q=0, gzip;q=0"}, both, ""},
		{"star", []string{"*"}, both, EncodingZstd},
		{"star with zstd refused", []string{"*, zstd;q=0"}, both, EncodingGzip},
		{"star q=0 and gzip", []string{"*;q=0, gzip"}, both, EncodingGzip},
		{"x-gzip alias", []string{"x-gzip"}, both, EncodingGzip},
		{"case-insensitive", []string{"GZIP;Q=0.5"}, both, EncodingGzip},
		{"multiple fields", []string{"br", "zstd"}, both, EncodingZstd},
		{"unoffered codings", []string{"br, deflate"}, both, ""},
		{"server offers only gzip", []string{"zstd, gzip;q=0.1"}, []string{EncodingGzip}, EncodingGzip},
		{"browser default", []string{"gzip, deflate, br, zstd"}, both, EncodingZstd},
		{"garbage", []string{"gz ip;;;, zstd;q=x"}, both, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := negotiateEncoding(tt.accept, tt.server); got != tt.want {
				t.Errorf("negotiateEncoding(%q, %q) = %q; want %q", tt.accept, tt.server, got, tt.want)
			}
		})
	}
}

func TestParseQValue(t *testing.T) {
	good := map[string]int{"0": 0, "1": 1000, "0.5": 500, "0.05": 50, "0.001": 1, "1.": 1000, "0.": 0, "1.0": 1000, "1.000": 1000, "0.999": 999}
	for s, want := range good {
		if got, ok := parseQValue(s); !ok || got != want {
			t.Errorf("parseQValue(%q) = %d, %v; want %d", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "2", "1.001", "1.5", ".5", "0.1234", "0,5", "-0", "0.5 ", "01", "0x1"} {
		if got, ok := parseQValue(s); ok {
			t.Errorf("parseQValue(%q) = %d, true; want failure", s, got)
		}
	}
}

func TestSplitList(t *testing.T) {
	var got []string
	for e := range splitList(` a, "b,c" ;x="1,2", ,d\,e,`) {
		got = append(got, e)
	}
	want := []string{`a`, `"b,c" ;x="1,2"`, `d\`, `e`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("splitList = %q; want %q", got, want)
	}
}

// FuzzNegotiate: any Accept header gets an answer without a panic, binary
// exactly when the encoder's rule admits it, and the same answer twice.
func FuzzNegotiate(f *testing.F) {
	for _, s := range []string{"*/*", `application/vnd.ag-ui.event+proto;q="0.5"`, "text/*;q=0, */*;q=abc", `a/b;v="`, "application/*;q=1e5;q=0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		mt, ok := Negotiate([]string{h})
		_, bin := admitsBinary(h)
		if bin != (ok && mt == MediaTypeBinary) {
			t.Fatalf("%q: %q %v, admits binary %v", h, mt, ok, bin)
		}
		if mt2, ok2 := Negotiate([]string{h}); mt2 != mt || ok2 != ok {
			t.Fatalf("%q: two answers", h)
		}
	})
}

// TestNegotiateLinear: a hostile Accept header — an open quote and then
// nothing but separators — costs memory linear in its length: four times
// the header, about four times the bytes allocated.
func TestNegotiateLinear(t *testing.T) {
	// The fewest bytes of five runs: other goroutines' allocations only add.
	alloc := func(n int) uint64 {
		h := []string{`application/vnd.ag-ui.event+proto;v="` + strings.Repeat(",;", n)}
		least := uint64(math.MaxUint64)
		for range 5 {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			Negotiate(h)
			runtime.ReadMemStats(&after)
			least = min(least, after.TotalAlloc-before.TotalAlloc)
		}
		return least
	}
	small, large := alloc(20000), alloc(80000)
	if large > 6*small {
		t.Fatalf("4x the header allocates %d bytes, %.1fx the %d of 1x", large, float64(large)/float64(small), small)
	}
}
