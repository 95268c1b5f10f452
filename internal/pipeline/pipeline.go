package pipeline

import (
	"bufio"
	"errors"
	"io"
	"runtime"
	"strconv"
	"sync"

	"github.com/agwire/agwire/framing"
)

// Options configures a conversion. The zero value converts on GOMAXPROCS
// workers with the default batch size and depth, and stops at the first
// error.
type Options struct {
	// Workers is the number of goroutines converting batches; 0 (or less)
	// means runtime.GOMAXPROCS(0). 1 runs the sequential conversion, with
	// no goroutine and no batch.
	Workers int
	// BatchSize is the most input, in bytes, gathered into one batch
	// before it is handed to a worker (a batch is handed on earlier
	// before a read of the input that may block, which for most sources
	// is every 64 KiB). 0 (or less) means DefaultBatchSize.
	BatchSize int
	// Depth is the number of batches in flight at once; 0 (or less) means
	// 2 x Workers, and it is at least 3 (one filling, one converting, one
	// being written).
	Depth int
	// OnError is called, in input order and on the goroutine that called
	// the conversion, with each error about the input (see the package
	// documentation). For a record that could not be converted its result
	// says whether to skip the record and go on; for an error that ends
	// the stream it is ignored. nil stops at the first error.
	OnError func(err error) (skip bool)
	// Progress, when set, is called after each record written, on the
	// goroutine that called the conversion.
	Progress func(Stats)
}

// DefaultBatchSize is the input gathered into one batch when
// Options.BatchSize is 0.
const DefaultBatchSize = 64 << 10

// maxBatchRecords bounds the records of one batch, so that a batch of tiny
// records does not wait long for its last ones.
const maxBatchRecords = 4096

// Stats counts what a conversion did.
type Stats struct {
	// Records is the number of records converted and written.
	Records int64
	// Skipped is the number of records OnError chose to skip.
	Skipped int64
	// BytesOut is the number of bytes written to the output.
	BytesOut int64
	// Offset is the byte offset in the input of the start of the record
	// last written or skipped (for a frame, its length prefix), or -1
	// before the first.
	Offset int64
	// PeakBuffered is the most bytes the batches in flight held at once
	// (their input and output buffers, by capacity); 0 for the sequential
	// conversion, which holds one record.
	PeakBuffered int64
}

// LineError is a JSON line that could not be converted.
type LineError struct {
	Line   int64  // 1-based line number
	Offset int64  // byte offset of the start of the line in the input
	Text   []byte // the line, without surrounding white space
	Err    error  // the *codec.Error, or a *framing.Error for a frame too large
}

func (e *LineError) Error() string {
	return "line " + strconv.FormatInt(e.Line, 10) + ": " + e.Err.Error()
}

func (e *LineError) Unwrap() error { return e.Err }

// Skippable reports true: the conversion can go on after a bad line.
func (e *LineError) Skippable() bool { return true }

// InputError is a failure reading JSON lines, which ends the conversion.
// Line is the number of lines read before it; a partial line before the
// failure has been converted as a line.
type InputError struct {
	Line int64
	Err  error
}

func (e *InputError) Error() string {
	return "reading input after line " + strconv.FormatInt(e.Line, 10) + ": " + e.Err.Error()
}

func (e *InputError) Unwrap() error { return e.Err }

// OutputError is a failure writing or flushing the output, which ends the
// conversion.
type OutputError struct{ Err error }

func (e *OutputError) Error() string { return "writing output: " + e.Err.Error() }
func (e *OutputError) Unwrap() error { return e.Err }

// flusher is an output that buffers.
type flusher interface{ Flush() error }

func (o Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

func (o Options) batchSize() int {
	if o.BatchSize > 0 {
		return o.BatchSize
	}
	return DefaultBatchSize
}

func (o Options) depth() int {
	d := o.Depth
	if d <= 0 {
		d = 2 * o.workers()
	}
	return max(d, 3)
}

// onError reports err and says whether to skip its record.
func (o Options) onError(err error) bool {
	return o.OnError != nil && o.OnError(err)
}

// errStopped ends the reader when the conversion has stopped.
var errStopped = errors.New("pipeline: stopped")

// watcher is the source under the pipeline's buffer: before each read that
// may block it calls before, which returns a non-nil error to fail the
// read instead (when the conversion has stopped).
type watcher struct {
	r      io.Reader
	br     *bufio.Reader // r, when it is one
	before func() error
}

func (w *watcher) Read(p []byte) (int, error) {
	if w.br == nil || w.br.Buffered() == 0 {
		if err := w.before(); err != nil {
			return 0, err
		}
	}
	return w.r.Read(p)
}

// readSize is the size of the pipeline's input buffer. It is the same
// whatever the options, so that the sequential and the parallel
// conversions read the input, and flush the output, at the same places.
const readSize = 64 << 10

// newSource returns the pipeline's buffered view of src, calling before
// ahead of each read of src that may block.
func newSource(src io.Reader, before func() error) *bufio.Reader {
	w := &watcher{r: src, before: before}
	w.br, _ = src.(*bufio.Reader)
	return bufio.NewReaderSize(w, readSize)
}

// rec is one record of a batch.
type rec struct {
	start, end int   // its bytes in batch.data
	num        int64 // its line number, or its frame index
	off        int64 // the byte offset of its start in the input
	outEnd     int   // the end of its output in batch.out
	err        error // why it could not be converted
	skip       bool  // dropped without an error
}

// batch is a run of consecutive records and their output.
type batch struct {
	data   []byte
	recs   []rec
	out    []byte
	flush  bool  // the input may block after it: flush the output once written
	endErr error // what ended the input after the records: nil, io.EOF or an error
	done   chan struct{}
	held   int64 // the capacity of data and out when last counted
}

func (b *batch) reset() {
	b.data, b.recs, b.out = b.data[:0], b.recs[:0], b.out[:0]
	b.flush, b.endErr = false, nil
	b.done = make(chan struct{})
}

func (b *batch) size() int64 { return int64(cap(b.data) + cap(b.out) + cap(b.recs)*48) }

// splitter reads the records of an input from a buffer over it.
type splitter interface {
	// take appends to b the records the buffer holds whole, as next would
	// one at a time but in one copy and without reading, until b holds
	// size bytes or maxBatchRecords records.
	take(b *batch, size int)
	// next appends the next record to dst, reading the input as needed,
	// and returns it with the record's number and input offset; at the
	// end it returns io.EOF, or the error that ended the input, and no
	// record.
	next(dst []byte) (out []byte, num, off int64, err error)
}

// sequencer does, in input order, what depends on the records before: it
// completes a record's error with the stream's counters and says whether
// it ends the stream.
type sequencer interface {
	ok(st *Stats)
	fail(r *rec, st *Stats) (err error, fatal bool)
}

// engine runs the parallel pipeline.
type engine struct {
	opts  Options
	size  int
	depth int

	pool  chan *batch   // free batches
	work  chan *batch   // batches for the workers, in input order
	order chan *batch   // the same batches, for the writer
	quit  chan struct{} // closed when the writer stops early

	made int // batches allocated (reader only)
	cur  *batch
	// unflushed: a batch without the flush mark went out since the last
	// one with it.
	unflushed bool
}

func newEngine(opts Options) *engine {
	d := opts.depth()
	return &engine{
		opts: opts, size: opts.batchSize(), depth: d,
		pool:  make(chan *batch, d),
		work:  make(chan *batch, d),
		order: make(chan *batch, d),
		quit:  make(chan struct{}),
	}
}

// get returns a free batch, waiting for one when Depth are in flight.
func (e *engine) get() (*batch, error) {
	var b *batch
	if e.made < e.depth {
		select {
		case b = <-e.pool:
		default:
			e.made++
			// Room for a batch's input and its output (a JSON line
			// is about 1.6 times its frame), so that they do not
			// grow by copies while the first batches fill.
			b = &batch{data: make([]byte, 0, e.size+e.size/4), out: make([]byte, 0, 2*e.size)}
		}
	} else {
		select {
		case b = <-e.pool:
		case <-e.quit:
			return nil, errStopped
		}
	}
	b.reset()
	return b, nil
}

// send hands b to the workers and the writer.
func (e *engine) send(b *batch) error {
	select {
	case e.order <- b:
	case <-e.quit:
		return errStopped
	}
	select {
	case e.work <- b:
	case <-e.quit:
		return errStopped
	}
	if b.flush {
		e.unflushed = false
	} else {
		e.unflushed = true
	}
	return nil
}

// beforeRead hands on the records read so far, marked for a flush, when
// the next read of the input may block.
func (e *engine) beforeRead() error {
	switch {
	case e.cur != nil && len(e.cur.recs) > 0:
	case e.unflushed:
		if e.cur == nil {
			b, err := e.get()
			if err != nil {
				return err
			}
			e.cur = b
		}
	default:
		return nil
	}
	e.cur.flush = true
	b := e.cur
	e.cur = nil
	return e.send(b)
}

// read is the reader stage.
func (e *engine) read(sp splitter) {
	defer close(e.order)
	defer close(e.work)
	var one []byte // a record read through next
	for {
		if e.cur == nil {
			b, err := e.get()
			if err != nil {
				return
			}
			e.cur = b
		}
		if sp.take(e.cur, e.size); e.full(e.cur) {
			if e.handOn() != nil {
				return
			}
			continue
		}
		// The next record needs a read, which may hand the batch on first
		// (before a read that may block): the record is read apart and
		// goes in the batch current after the read.
		var num, off int64
		var err error
		one, num, off, err = sp.next(one[:0])
		if errors.Is(err, errStopped) {
			return
		}
		if e.cur == nil {
			b, gerr := e.get()
			if gerr != nil {
				return
			}
			e.cur = b
		}
		b := e.cur
		if err != nil {
			b.endErr = err
			e.cur = nil
			e.send(b)
			return
		}
		start := len(b.data)
		b.data = append(b.data, one...)
		b.recs = append(b.recs, rec{start: start, end: len(b.data), num: num, off: off})
		if cap(one) > 2*e.size {
			one = nil // one long record is not kept
		}
		if e.full(b) && e.handOn() != nil {
			return
		}
	}
}

// full reports whether batch b is to be handed on: it holds the batch size
// or the most records.
func (e *engine) full(b *batch) bool {
	return len(b.data) >= e.size || len(b.recs) >= maxBatchRecords
}

// handOn sends the current batch to the workers and the writer.
func (e *engine) handOn() error {
	b := e.cur
	e.cur = nil
	return e.send(b)
}

// run converts the records of sp with workers made by newWorker, writing
// to dst in order.
func (e *engine) run(dst io.Writer, sp splitter, newWorker func() func(*batch), seq sequencer) (Stats, error) {
	st := Stats{Offset: -1}
	var wg sync.WaitGroup
	for range e.opts.workers() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			convert := newWorker()
			for {
				select {
				case b, ok := <-e.work:
					if !ok {
						return
					}
					convert(b)
					close(b.done)
				case <-e.quit:
					return
				}
			}
		}()
	}
	go e.read(sp)

	var held int64
	err := e.write(dst, seq, &st, &held)
	if err != nil {
		close(e.quit)
	}
	wg.Wait()
	return st, err
}

// write is the writer stage: it takes the batches in order and writes their
// records, reports their errors, and recycles the batches.
func (e *engine) write(dst io.Writer, seq sequencer, st *Stats, held *int64) error {
	fl, _ := dst.(flusher)
	for b := range e.order {
		<-b.done
		*held += b.size() - b.held
		b.held = b.size()
		st.PeakBuffered = max(st.PeakBuffered, *held)
		at := 0
		for i := range b.recs {
			r := &b.recs[i]
			if r.skip {
				continue
			}
			if r.err != nil {
				err, fatal := seq.fail(r, st)
				st.Offset = r.off
				if skip := e.opts.onError(err); fatal || !skip {
					return err
				}
				st.Skipped++
				continue
			}
			m, err := dst.Write(b.out[at:r.outEnd])
			st.BytesOut += int64(m)
			if err == nil && m < r.outEnd-at {
				err = io.ErrShortWrite
			}
			if err != nil {
				return &OutputError{err}
			}
			at = r.outEnd
			st.Records++
			st.Offset = r.off
			seq.ok(st)
			if e.opts.Progress != nil {
				e.opts.Progress(*st)
			}
		}
		if b.endErr != nil && b.endErr != io.EOF {
			var fe *framing.Error
			if errors.As(b.endErr, &fe) {
				st.Offset = fe.Offset
			}
			e.opts.onError(b.endErr)
			return b.endErr
		}
		if b.flush && fl != nil {
			if err := fl.Flush(); err != nil {
				return &OutputError{err}
			}
		}
		// A batch grown far beyond the batch size by one long record
		// gives its buffers back rather than keep them.
		if cap(b.data) > 2*e.size || cap(b.out) > 8*e.size {
			b.data, b.out = nil, nil
			*held -= b.held
			b.held = 0
		}
		e.pool <- b
	}
	return nil
}

// appender is an io.Writer appending to a batch's output.
type appender struct{ b *batch }

func (a *appender) Write(p []byte) (int, error) {
	a.b.out = append(a.b.out, p...)
	return len(p), nil
}
