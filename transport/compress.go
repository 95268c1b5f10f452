package transport

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// The content codings of a Compression list.
const (
	EncodingZstd = "zstd"
	EncodingGzip = "gzip"
)

// Compression lists content codings, EncodingZstd and EncodingGzip, in
// order of preference. It is one type for both sides:
//
//   - on a server (HandlerOptions, FollowOptions, WriterOptions) it is the
//     codings the stream may use: the client's Accept-Encoding decides
//     among them (highest q first, then this order), and a client that
//     asks for none of them gets the identity coding;
//   - on a client (ClientOptions) it is the codings requests ask for: their
//     Accept-Encoding lists them in this order.
//
// The zero value, nil (or any empty list), is no compression: a server
// never compresses, and a client sends "Accept-Encoding: identity", which
// also keeps net/http's transparent gzip out of the way. A client decodes
// a response according to its Content-Encoding whatever it asked for. An
// unknown coding in the list is an error of the constructor given it.
//
//	transport.Compression{transport.EncodingZstd, transport.EncodingGzip}
type Compression []string

// check refuses a coding this package does not implement; option names
// the field in the error.
func (c Compression) check(option string) error {
	for _, coding := range c {
		if coding != EncodingZstd && coding != EncodingGzip {
			return fmt.Errorf("transport: %s: unknown content coding %q (use %q or %q)", option, coding, EncodingZstd, EncodingGzip)
		}
	}
	return nil
}

// zstdWindow is the zstd window of the server's encoders. A stream of
// small events gains nothing from a larger one, and each pooled encoder
// costs about three times its window in memory (about 0.8 MB here; 10 MB
// with the library default of 8 MiB). RFC 9659 caps the window of the zstd
// content coding at 8 MiB, which zstdMaxWindow enforces on the client.
const (
	zstdWindow    = 256 << 10
	zstdMaxWindow = 8 << 20
)

// compressor is what both encoders offer: Write, Flush (emit everything
// written so far as decodable bytes), Close (end the stream) and Reset.
type compressor interface {
	io.Writer
	Flush() error
	Close() error
	Reset(io.Writer)
}

// Encoders are pooled across streams: a zstd encoder holds about 0.8 MB and
// a gzip writer about 0.8 MB of tables and history, too much to build per
// request. Both are set up for a stream of small writes each followed by a
// Flush: zstd at its fastest level with one goroutine (no block pipeline to
// wait for at each flush), gzip at BestSpeed. With a flush per event, block
// overhead dominates and higher levels compress no better.
var (
	zstdPool = sync.Pool{New: func() any {
		e, err := zstd.NewWriter(nil,
			zstd.WithEncoderConcurrency(1),
			zstd.WithLowerEncoderMem(true),
			zstd.WithWindowSize(zstdWindow),
			zstd.WithEncoderLevel(zstd.SpeedFastest),
			zstd.WithZeroFrames(true), // an empty stream is still a valid zstd frame
		)
		if err != nil {
			panic("transport: zstd encoder options: " + err.Error())
		}
		return e
	}}
	gzipPool = sync.Pool{New: func() any {
		w, err := gzip.NewWriterLevel(nil, gzip.BestSpeed)
		if err != nil {
			panic("transport: gzip level: " + err.Error())
		}
		return w
	}}
)

// getCompressor returns a pooled encoder for coding, writing to w.
func getCompressor(coding string, w io.Writer) compressor {
	var c compressor
	switch coding {
	case EncodingZstd:
		c = zstdPool.Get().(*zstd.Encoder)
	case EncodingGzip:
		c = gzipPool.Get().(*gzip.Writer)
	default:
		panic("transport: unknown coding " + coding)
	}
	c.Reset(w)
	return c
}

// putCompressor returns an encoder whose stream ended cleanly to its pool,
// detached from the response it wrote to.
func putCompressor(c compressor) {
	c.Reset(io.Discard)
	switch c := c.(type) {
	case *zstd.Encoder:
		zstdPool.Put(c)
	case *gzip.Writer:
		gzipPool.Put(c)
	}
}

// decompress wraps body in a decoder for the response's Content-Encoding
// values. Decoders are not pooled: a client reads few streams at once, and
// a zstd decoder in synchronous mode holds no goroutine, so dropping it is
// enough.
func decompress(contentEncoding []string, body io.Reader) (io.Reader, string, error) {
	var coding string
	for _, h := range contentEncoding {
		for elem := range splitList(h) {
			c := strings.ToLower(elem)
			if c == "identity" {
				continue
			}
			if c == "x-gzip" {
				c = EncodingGzip
			}
			if coding != "" {
				return nil, "", fmt.Errorf("%w: %q (more than one coding)", ErrUnsupportedEncoding, strings.Join(contentEncoding, ", "))
			}
			coding = c
		}
	}
	if coding == "" {
		return body, "", nil
	}
	src := &sourceReader{r: body}
	switch coding {
	case EncodingGzip:
		return &codingReader{r: &lazyGzip{src: src}, src: src, coding: coding}, coding, nil
	case EncodingZstd:
		d, err := zstd.NewReader(src,
			zstd.WithDecoderConcurrency(1), // synchronous: returns each flushed block as it arrives
			zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(zstdMaxWindow),
		)
		if err != nil {
			return nil, "", fmt.Errorf("transport: zstd decoder: %w", err)
		}
		return &codingReader{r: d, src: src, coding: coding}, coding, nil
	}
	return nil, "", fmt.Errorf("%w: %q", ErrUnsupportedEncoding, coding)
}

// sourceReader remembers the last error of the compressed body, so that
// codingReader can tell the connection's errors from the decoder's.
type sourceReader struct {
	r   io.Reader
	err error
	eof bool
}

func (s *sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	switch {
	case err == io.EOF:
		s.eof = true
	case err != nil:
		s.err = err
	}
	return n, err
}

// codingReader types a decoder's failures: ErrCorruptBody wrapping the
// decoder's error, unless the error is the body's own (a cut connection,
// a timeout) or the body simply ended early (io.ErrUnexpectedEOF after the
// source's EOF: a truncated stream), which pass as they are.
type codingReader struct {
	r      io.Reader
	src    *sourceReader
	coding string
}

func (c *codingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err != nil && err != io.EOF && (c.src.err == nil || !errors.Is(err, c.src.err)) && !errors.Is(err, ErrCorruptBody) &&
		!(c.src.eof && errors.Is(err, io.ErrUnexpectedEOF)) {
		err = fmt.Errorf("%w (%s): %w", ErrCorruptBody, c.coding, err)
	}
	return n, err
}

// lazyGzip reads the gzip header on the first Read rather than when the
// response arrives: a server writes it with the first event, and
// NewEventReader must not wait for that.
type lazyGzip struct {
	src io.Reader
	zr  *gzip.Reader
	err error
}

func (l *lazyGzip) Read(p []byte) (int, error) {
	if l.zr == nil {
		if l.err != nil {
			return 0, l.err
		}
		zr, err := gzip.NewReader(l.src)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				err = fmt.Errorf("transport: gzip: %w", err)
			}
			l.err = err // an empty body is an empty stream: io.EOF
			return 0, err
		}
		l.zr = zr
	}
	return l.zr.Read(p)
}
