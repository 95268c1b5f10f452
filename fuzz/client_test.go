package fuzz

import (
	"bytes"
	stdgzip "compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/transport"
)

// Content codings of a client body.
const (
	codingIdentity = iota
	codingGzip
	codingZstd
)

var codingNames = [...]string{"identity", "gzip", "zstd"}

// bodyCase is one client body, decoded from the fuzzer's arguments.
type bodyCase struct {
	coding int
	sse    bool
	raw    bool   // the body is the fuzzer's bytes as they are
	plain  []byte // the plaintext the test compressed (nil when raw)
	body   []byte
	limit  int // ClientOptions.MaxEventSize
}

// maxPlain bounds the plaintext a fuzzed body expands to, to keep each
// execution fast; the seed run adds a 64 MiB bomb (clientBombs).
const maxPlain = 1 << 20

func compress(coding int, plain []byte) []byte {
	var buf bytes.Buffer
	switch coding {
	case codingIdentity:
		return append([]byte(nil), plain...)
	case codingGzip:
		w, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		w.Write(plain)
		w.Close()
	case codingZstd:
		w, _ := zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
		w.Write(plain)
		w.Close()
	}
	return buf.Bytes()
}

// makeBody decodes the fuzzer's arguments: mode picks the coding, the
// media type, whether unit is the body itself (raw) or a plaintext unit
// repeated `repeat` times and compressed by the test, and whether the
// compressed body is cut or has a byte flipped at a place drawn from seed.
func makeBody(mode uint8, unit []byte, repeat uint32, limitSel uint16, seed uint64) bodyCase {
	c := bodyCase{coding: int(mode % 3), sse: mode/3%2 == 1, raw: mode/6%2 == 1}
	c.limit = 0
	if limitSel != 0 {
		c.limit = 16 + int(limitSel)
	}
	if c.raw {
		c.body = unit
		return c
	}
	n := 1
	if len(unit) > 0 {
		n = 1 + int(repeat%uint32(max(1, maxPlain/len(unit))))
	}
	c.plain = bytes.Repeat(unit, n)
	c.body = compress(c.coding, c.plain)
	if len(c.body) > 0 {
		switch mode / 12 % 3 {
		case 1:
			c.body = c.body[:seed%uint64(len(c.body))]
			c.plain = nil // the reference decodes the cut body
		case 2:
			c.body[seed%uint64(len(c.body))] ^= byte(1 + seed>>8%255)
			c.plain = nil
		}
	}
	return c
}

// refDecompress decodes body with decoders other than transport's own
// wiring: compress/gzip of the standard library (an independent
// implementation) and a zstd decoder set up by the test. It stops after
// limit bytes and reports whether the body decoded cleanly to its end.
func refDecompress(coding int, body []byte, limit int) (plain []byte, clean bool) {
	var r io.Reader
	switch coding {
	case codingIdentity:
		return body, true
	case codingGzip:
		zr, err := stdgzip.NewReader(bytes.NewReader(body))
		if err == io.EOF {
			return nil, true // an empty body is an empty stream
		}
		if err != nil {
			return nil, false
		}
		r = zr
	case codingZstd:
		zr, err := zstd.NewReader(bytes.NewReader(body), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(8<<20))
		if err != nil {
			return nil, false
		}
		defer zr.Close()
		r = zr
	}
	plain, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	return plain, err == nil && len(plain) <= limit
}

// item is one thing a reader yielded: an event's JSON or a skippable error.
type item struct {
	json []byte
	err  error
}

// readAll reads every event of a stream with an EventReader, and the
// bytes it allocated doing so.
func readAll(t *testing.T, c bodyCase, body []byte, coding string) (items []item, end error, alloc uint64) {
	t.Helper()
	h := http.Header{}
	if c.sse {
		h.Set("Content-Type", transport.MediaTypeSSE)
	} else {
		h.Set("Content-Type", transport.MediaTypeBinary)
	}
	if coding != "" {
		h.Set("Content-Encoding", coding)
	}
	resp := &http.Response{StatusCode: 200, Status: "200 OK", Header: h, Body: io.NopCloser(bytes.NewReader(body))}
	alloc = allocated(func() {
		r, err := transport.NewEventReader(resp, transport.ClientOptions{MaxEventSize: c.limit})
		if err != nil {
			end = err
			return
		}
		defer r.Close()
		for {
			ev, err := r.Next()
			if err != nil && !framing.Skippable(err) {
				end = err
				return
			}
			if err != nil {
				if ev != nil {
					t.Fatalf("an event together with the error %v", err)
				}
				items = append(items, item{err: err})
				continue
			}
			items = append(items, item{json: mustMarshal(t, ev)})
		}
	})
	return items, end, alloc
}

// decompressErrors are the failures of the decoders themselves.
func isDecompressError(err error) bool {
	var ce flate.CorruptInputError
	if errors.As(err, &ce) {
		return true
	}
	return isAny(err, gzip.ErrChecksum, gzip.ErrHeader, io.ErrUnexpectedEOF,
		zstd.ErrBlockTooSmall, zstd.ErrCRCMismatch, zstd.ErrCompressedSizeTooBig, zstd.ErrFrameSizeExceeded,
		zstd.ErrFrameSizeMismatch, zstd.ErrMagicMismatch, zstd.ErrReservedBlockType, zstd.ErrUnexpectedBlockSize,
		zstd.ErrUnknownDictionary, zstd.ErrWindowSizeExceeded, zstd.ErrWindowSizeTooSmall, zstd.ErrDecoderSizeExceeded)
}

// clientAllocBound is the most bytes reading one body may allocate: a fixed
// allowance for the decoder (a zstd frame may declare a window of up to
// 8 MiB, which the decoder then holds twice at most; gzip and identity need
// well under 1 MiB), plus 8 bytes per byte of the event size limit (buffers
// for one line or frame, grown by doubling), plus 24 bytes per byte of the
// frames or events actually delivered (their decoding and their JSON here).
func clientAllocBound(coding, limit int, delivered int) uint64 {
	base := uint64(1 << 20)
	if coding == codingZstd {
		base = 17 << 20
	}
	return base + 8*uint64(limit) + 24*uint64(delivered) + allocSlack
}

// FuzzClientBody: an HTTP response body in gzip, zstd or identity coding,
// binary or SSE, read through transport's client reader (NewEventReader →
// ReadEvent), gives the events that the plaintext gives when read without
// compression, when the test's own decoders (compress/gzip of the standard
// library; a separately configured zstd decoder) decode the body cleanly;
// when they do not, the reader ends with an error, after events that the
// plaintext also starts with. Every error is typed: a skippable event error,
// framing.ErrTruncated / ErrFrameTooLarge, transport.ErrEventTooLarge,
// io.ErrUnexpectedEOF, or one of the decoders' own errors. Memory stays
// under clientAllocBound, so a decompression bomb (a body that expands to
// one endless line or frame) is refused with ErrEventTooLarge or
// ErrFrameTooLarge at the configured limit having cost a bounded amount.
func FuzzClientBody(f *testing.F) {
	ok := frameStream(wEvent(armTextMessageContent, enumTextMessageContent, wStr(2, "m"), wStr(3, "hi")))
	sseOK := []byte("data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"hi\"}\n\n")
	for coding := range uint8(3) {
		f.Add(coding, ok, uint32(3), uint16(0), uint64(0))
		f.Add(coding+3, sseOK, uint32(3), uint16(0), uint64(0))
		// Bombs: one endless line, one endless frame, a declared frame
		// over the limit, a huge run of blank lines (no event at all).
		// (repeat n-1 repeats the unit n times.)
		f.Add(coding+3, []byte("x"), uint32(maxPlain-1), uint16(1000), uint64(0))
		f.Add(coding, binary.BigEndian.AppendUint32(nil, 1<<19), uint32(maxPlain/4-1), uint16(0), uint64(0))
		f.Add(coding, binary.BigEndian.AppendUint32(nil, 1<<19), uint32(maxPlain/4-1), uint16(4000), uint64(0))
		f.Add(coding+3, []byte("\n"), uint32(maxPlain-1), uint16(10), uint64(0))
		// Cut and damaged bodies.
		f.Add(coding+12, ok, uint32(50), uint16(0), uint64(37))
		f.Add(coding+24, ok, uint32(50), uint16(0), uint64(999))
		f.Add(coding+15, sseOK, uint32(50), uint16(0), uint64(1234))
		// Raw bodies.
		f.Add(coding+6, compress(int(coding), ok), uint32(0), uint16(0), uint64(0))
	}
	f.Add(uint8(7), []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00"), uint32(0), uint16(0), uint64(0))
	f.Add(uint8(8), []byte("\x28\xb5\x2f\xfd\x00\x58"), uint32(0), uint16(0), uint64(0))
	f.Fuzz(func(t *testing.T, mode uint8, unit []byte, repeat uint32, limitSel uint16, seed uint64) {
		c := makeBody(mode, unit, repeat, limitSel, seed)
		checkClientBody(t, c)
	})
}

func checkClientBody(t *testing.T, c bodyCase) {
	t.Helper()
	limit := c.limit
	if limit == 0 {
		limit = transport.DefaultMaxEventSize
	}
	got, end, alloc := readAll(t, c, c.body, codingNames[c.coding])

	// The reference: the plaintext, read without compression.
	plain, clean := c.plain, true
	if plain == nil {
		plain, clean = refDecompress(c.coding, c.body, 4*maxPlain)
	}
	plainCase := c
	plainCase.coding = codingIdentity
	want, wantEnd, _ := readAll(t, plainCase, plain, "")

	n := min(len(got), len(want))
	for i := range n {
		g, w := got[i], want[i]
		if !bytes.Equal(g.json, w.json) || (g.err == nil) != (w.err == nil) {
			t.Fatalf("item %d: got %s %v, the plaintext gives %s %v", i, g.json, g.err, w.json, w.err)
		}
	}
	if clean {
		if len(got) != len(want) {
			t.Fatalf("%d items, the plaintext gives %d (ends: %v / %v)", len(got), len(want), end, wantEnd)
		}
		if end != wantEnd && !sameEnd(end, wantEnd) {
			t.Fatalf("the stream ends with %v, the plaintext with %v", end, wantEnd)
		}
	} else if end == io.EOF || end == nil {
		t.Fatalf("a body the reference decoder refuses ends cleanly after %d items", len(got))
	}
	var fe *framing.Error
	typed := end == io.EOF || errors.As(end, &fe) || isAny(end, transport.ErrEventTooLarge, framing.ErrTooManyErrors, transport.ErrCorruptBody, io.ErrUnexpectedEOF) ||
		isDecompressError(end)
	if !typed {
		t.Fatalf("untyped error %T: %v", end, end)
	}
	delivered := 0
	for _, it := range got {
		delivered += len(it.json) + 64
	}
	if bound := clientAllocBound(c.coding, limit, delivered); alloc > bound {
		t.Fatalf("%s body of %d bytes: reading allocated %d bytes, bound %d (limit %d, %d items)",
			codingNames[c.coding], len(c.body), alloc, bound, limit, len(got))
	}
}

// sameEnd compares two stream-ending errors by kind.
func sameEnd(a, b error) bool {
	for _, k := range []error{framing.ErrTruncated, framing.ErrFrameTooLarge, transport.ErrEventTooLarge, framing.ErrTooManyErrors, io.ErrUnexpectedEOF} {
		if errors.Is(a, k) && errors.Is(b, k) {
			return true
		}
	}
	return false
}

// TestClientBombs: bodies of a few KiB that expand to 32 MiB (one line, or
// one frame), read with a large limit (the default 16 MiB for frames,
// 1 MiB for SSE lines) and with a 4 KiB one, are refused with the typed
// error of the limit, within clientAllocBound. (SSE is not read up to the
// 16 MiB default here: the SSE reader rescans a line's buffered bytes on
// every read, so a line costs time quadratic in its length — see the fuzz
// README — and under the race detector a 16 MiB line takes minutes.)
func TestClientBombs(t *testing.T) {
	const size = 32 << 20
	for coding := codingGzip; coding <= codingZstd; coding++ {
		for _, sse := range []bool{false, true} {
			var plain []byte
			var wantErr error
			if sse {
				plain = append([]byte("data: "), bytes.Repeat([]byte("A"), size)...)
				wantErr = transport.ErrEventTooLarge
			} else {
				plain = binary.BigEndian.AppendUint32(make([]byte, 0, size+4), size)
				plain = append(plain, make([]byte, size)...)
				wantErr = framing.ErrFrameTooLarge
			}
			body := compress(coding, plain)
			if len(body) > 1<<20 {
				t.Fatalf("the bomb is %d bytes compressed", len(body))
			}
			large := 0
			if sse {
				large = 1 << 20
			}
			for _, limit := range []int{large, 4096} {
				c := bodyCase{coding: coding, sse: sse, limit: limit, body: body}
				name := codingNames[coding] + map[bool]string{false: "/binary", true: "/sse"}[sse] + "/limit=" + strconv.Itoa(limit)
				t.Run(name, func(t *testing.T) {
					items, end, alloc := readAll(t, c, c.body, codingNames[coding])
					if len(items) != 0 || !errors.Is(end, wantErr) {
						t.Fatalf("%d items, ends with %v; want %v", len(items), end, wantErr)
					}
					eff := limit
					if eff == 0 {
						eff = transport.DefaultMaxEventSize
					}
					if bound := clientAllocBound(coding, eff, 0); alloc > bound {
						t.Fatalf("%d-byte bomb: reading allocated %d bytes, bound %d", len(c.body), alloc, bound)
					}
					t.Logf("%d-byte body (%d MiB of plaintext): %v, after allocating %d KiB", len(body), len(plain)>>20, end, alloc>>10)
				})
			}
		}
	}
}
