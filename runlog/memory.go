package runlog

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"sync"
	"time"
)

// Defaults of MemoryOptions.
const (
	DefaultMaxAge   = time.Hour
	DefaultMaxBytes = 256 << 20
)

// Accounting of the in-memory log: what a held event and a held run cost
// beyond their bytes (an event counts its allocation, its size rounded up
// to the allocator's size class), counted against MaxBytes. They are
// estimates of the Go structures involved (per event a slice header and a
// queue entry, 48 bytes, with the slices' spare capacity, up to as much
// again; per run a map entry, the run's struct, its channel), compared
// with the heap actually used by BenchmarkMemoryHeldRun.
const (
	memEventOverhead = 72
	memRunOverhead   = 320
)

// MemoryOptions configures NewMemory. The zero value is ready to use.
type MemoryOptions struct {
	// MaxAge drops events (and end markers) older than this. 0 means
	// DefaultMaxAge (one hour); negative keeps events regardless of age.
	MaxAge time.Duration
	// MaxBytes bounds the memory the log holds: the sum of the events'
	// sizes plus a fixed overhead per event and per run (see the package
	// doc of retention). Past it the oldest events are dropped. 0 means
	// DefaultMaxBytes (256 MiB); negative means no bound.
	MaxBytes int64
	// MaxEventBytes is the largest event Append accepts (ErrTooLarge
	// beyond). 0 means DefaultMaxEventBytes.
	MaxEventBytes int
	// MaxTombstones bounds how many forgotten runs the log remembers, so
	// that reading one gives ErrEvicted rather than ErrUnknownRun and
	// starting one again gives ErrRunExists. The log remembers a dropped
	// run as a 64-bit keyed hash of its id (an entry of a map of uint64,
	// 24 to 38 bytes of heap; BenchmarkMemoryTombstones): a fresh id
	// whose hash equals a dropped one's, a chance of about n in 2^64
	// after n dropped runs, is refused with ErrRunExists. 0 (the default)
	// means no bound: a run id is never reused in the log's lifetime.
	// Positive: the oldest are forgotten beyond it, and their ids may
	// start new runs (a cursor with an incarnation token still never
	// reads them). Negative: none are remembered.
	MaxTombstones int
	// Now is the clock; nil means time.Now. For tests.
	Now func() time.Time
}

// Memory is the in-memory Log: runs live in this process, in at most
// MaxBytes (plus at most MaxTombstones remembered run ids), and are lost
// with it. It is safe for concurrent use.
//
// Age retention is applied whenever the log is used and by a timer set for
// the oldest event's expiry, so an idle log also shrinks; Close stops the
// timer.
type Memory struct {
	opts MemoryOptions
	seed maphash.Seed // of the tombstones' hashes, drawn per log

	mu     sync.Mutex
	runs   map[string]*memRun
	queue  memQueue // every held event and marker, oldest first
	bytes  int64
	tombs  map[uint64]struct{} // hashes of the dropped runs' ids
	tombQ  []uint64            // with MaxTombstones > 0, a ring in the order made
	tombI  int
	timer  *time.Timer
	closed bool
}

type memRun struct {
	id      string
	inc     string
	owner   string   // who started the run (StartOwned); "": Start
	base    uint64   // sequence number of events[0]
	events  [][]byte // held events
	ended   bool
	aborted error         // with ended: why the run was aborted (Abort)
	seen    int64         // last Touch, Unix nanoseconds of opts.Now; 0: never
	notify  chan struct{} // closed and replaced when the run changes, if waited on
	waited  bool
}

// last returns the sequence number of the run's last event (0: none).
func (r *memRun) last() uint64 { return r.base + uint64(len(r.events)) - 1 }

func (r *memRun) wake() {
	if r.waited {
		close(r.notify)
		r.notify = make(chan struct{})
		r.waited = false
	}
}

type memKind uint8

const (
	kindStart memKind = iota
	kindEvent
	kindEnd
)

type memItem struct {
	run  *memRun
	at   int64 // append time, Unix nanoseconds of opts.Now
	size int32 // bytes counted, overhead included
	kind memKind
}

// memQueue is a FIFO of memItem in blocks of queueBlock items, so that it
// grows and shrinks without copying what it holds.
type memQueue struct {
	blocks []*[queueBlock]memItem
	head   int // index of the front item in blocks[0]
	tail   int // index after the back item in the last block
	n      int
}

const queueBlock = 1024

func (q *memQueue) push(it memItem) {
	if len(q.blocks) == 0 || q.tail == queueBlock {
		q.blocks = append(q.blocks, new([queueBlock]memItem))
		q.tail = 0
	}
	q.blocks[len(q.blocks)-1][q.tail] = it
	q.tail++
	q.n++
}

func (q *memQueue) len() int        { return q.n }
func (q *memQueue) front() *memItem { return &q.blocks[0][q.head] }

func (q *memQueue) pop() memItem {
	b := q.blocks[0]
	it := b[q.head]
	b[q.head] = memItem{}
	q.head++
	q.n--
	if q.head == queueBlock || q.n == 0 {
		if len(q.blocks) == 1 {
			q.tail = 0
			if q.n == 0 {
				q.head = 0
				return it
			}
		}
		q.blocks[0] = nil
		q.blocks = q.blocks[1:]
		q.head = 0
	}
	return it
}

// NewMemory returns an empty in-memory log.
func NewMemory(opts MemoryOptions) *Memory {
	if opts.MaxAge == 0 {
		opts.MaxAge = DefaultMaxAge
	}
	if opts.MaxBytes == 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MaxEventBytes <= 0 {
		opts.MaxEventBytes = DefaultMaxEventBytes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Memory{opts: opts, seed: maphash.MakeSeed(), runs: make(map[string]*memRun), tombs: make(map[uint64]struct{})}
}

// Close stops the log's expiry timer and makes later Start, Read and
// Append fail with ErrClosed. Readers blocked in Next are not woken; their
// contexts end them.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	if m.timer != nil {
		m.timer.Stop()
	}
	return nil
}

// Start implements Log.
func (m *Memory) Start(ctx context.Context, run string) (Writer, error) {
	return m.start(run, "")
}

// StartOwned implements Owners: the owner is kept with the run, counted
// against MaxBytes with it, and forgotten when retention drops the run;
// the run's id stays unusable afterwards as any dropped run's (see
// MaxTombstones), so nobody else can take it.
func (m *Memory) StartOwned(ctx context.Context, run, owner string) (Writer, error) {
	if err := CheckOwner(owner); err != nil {
		return nil, err
	}
	return m.start(run, owner)
}

func (m *Memory) start(run, owner string) (Writer, error) {
	if err := CheckRunID(run); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	now := m.expireLocked()
	if _, ok := m.runs[run]; ok {
		return nil, fmt.Errorf("%w: run %q is held", ErrRunExists, run)
	}
	if _, ok := m.tombs[m.hash(run)]; ok {
		return nil, fmt.Errorf("%w: run %q was held and has been dropped; a run id is started once", ErrRunExists, run)
	}
	r := &memRun{id: run, inc: NewIncarnation(), owner: owner, base: 1, notify: make(chan struct{})}
	m.runs[run] = r
	m.pushLocked(memItem{run: r, kind: kindStart, size: int32(memRunOverhead + len(run) + len(owner))}, now)
	return &memWriter{m: m, r: r}, nil
}

// Read implements Log.
func (m *Memory) Read(ctx context.Context, from Cursor) (Reader, error) {
	if err := CheckRunID(from.Run); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	m.expireLocked()
	r, ok := m.runs[from.Run]
	if !ok {
		if _, ok := m.tombs[m.hash(from.Run)]; ok {
			return nil, fmt.Errorf("%w: run %q has been dropped entirely", ErrEvicted, from.Run)
		}
		return nil, fmt.Errorf("%w: %q", ErrUnknownRun, from.Run)
	}
	if from.Inc != "" && from.Inc != r.inc {
		return nil, fmt.Errorf("%w: the run of cursor %s is gone: run %q is now another run (incarnation %s)", ErrEvicted, from, from.Run, r.inc)
	}
	if err := checkFrom(from, r.base, r.last()); err != nil {
		return nil, err
	}
	return &memReader{m: m, r: r, next: from.Seq + 1}, nil
}

// checkFrom checks a cursor against a run that holds events first..last
// (first = last+1 when it holds none).
func checkFrom(from Cursor, first, last uint64) error {
	if from.Seq > last {
		return fmt.Errorf("%w: cursor %d of run %q is past its last event, %d", ErrBadCursor, from.Seq, from.Run, last)
	}
	if from.Seq+1 < first {
		return fmt.Errorf("%w: run %q: the event after cursor %d has been dropped; the log holds events %d to %d", ErrEvicted, from.Run, from.Seq, first, last)
	}
	return nil
}

// pushLocked queues it and drops the oldest items while the log holds more
// than MaxBytes. now is opts.Now().UnixNano().
func (m *Memory) pushLocked(it memItem, now int64) {
	it.at = now
	m.queue.push(it)
	m.bytes += int64(it.size)
	if m.opts.MaxBytes > 0 {
		for m.bytes > m.opts.MaxBytes && m.queue.len() > 0 {
			m.dropLocked()
		}
	}
	m.armLocked(now)
}

// expireLocked drops what is older than MaxAge, and returns the time it
// took as now, for pushLocked.
func (m *Memory) expireLocked() (now int64) {
	now = m.opts.Now().UnixNano()
	if m.opts.MaxAge < 0 {
		return now
	}
	limit := now - int64(m.opts.MaxAge)
	for m.queue.len() > 0 && m.queue.front().at <= limit {
		m.dropLocked()
	}
	return now
}

// dropLocked drops the oldest item of the queue.
func (m *Memory) dropLocked() {
	it := m.queue.pop()
	m.bytes -= int64(it.size)
	r := it.run
	switch it.kind {
	case kindEvent:
		r.events[0] = nil
		r.events = r.events[1:]
		r.base++
	case kindEnd:
		// Every event of r is older than its end marker: all are gone.
		delete(m.runs, r.id)
		m.tombLocked(r.id)
		r.wake()
	}
}

func (m *Memory) tombLocked(run string) {
	n := m.opts.MaxTombstones
	if n < 0 {
		return
	}
	h := m.hash(run)
	switch {
	case n == 0:
	case len(m.tombQ) < n:
		m.tombQ = append(m.tombQ, h)
	default:
		delete(m.tombs, m.tombQ[m.tombI])
		m.tombQ[m.tombI] = h
		m.tombI = (m.tombI + 1) % n
	}
	m.tombs[h] = struct{}{}
}

// hash is the tombstone of run: keyed with the log's seed, so that ids
// cannot be chosen to collide.
func (m *Memory) hash(run string) uint64 { return maphash.String(m.seed, run) }

// armLocked sets the timer for the oldest item's expiry, if none is set.
func (m *Memory) armLocked(now int64) {
	if m.opts.MaxAge < 0 || m.timer != nil || m.queue.len() == 0 || m.closed {
		return
	}
	d := time.Duration(m.queue.front().at+int64(m.opts.MaxAge)-now) + time.Millisecond
	m.timer = time.AfterFunc(d, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.timer = nil
		m.armLocked(m.expireLocked())
	})
}

// MemoryStats is what a Memory log holds.
type MemoryStats struct {
	Runs       int   // runs held (started and not yet forgotten)
	Events     int   // events held
	Bytes      int64 // bytes counted against MaxBytes
	Tombstones int   // dropped runs remembered (not counted in Bytes)
}

// Stats returns what the log holds now. It applies no retention itself.
func (m *Memory) Stats() MemoryStats {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := MemoryStats{Runs: len(m.runs), Bytes: m.bytes, Tombstones: len(m.tombs)}
	for _, r := range m.runs {
		s.Events += len(r.events)
	}
	return s
}

type memWriter struct {
	m *Memory
	r *memRun
}

func (w *memWriter) Run() string { return w.r.id }

// Incarnation implements Incarnated.
func (w *memWriter) Incarnation() string { return w.r.inc }

func (w *memWriter) Append(ctx context.Context, wire []byte) (uint64, error) {
	m := w.m
	if len(wire) > m.opts.MaxEventBytes {
		return 0, fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, len(wire), m.opts.MaxEventBytes)
	}
	b := append([]byte(nil), wire...) // capacity rounded up to the allocator's size class
	m.mu.Lock()
	defer m.mu.Unlock()
	r := w.r
	if m.closed {
		return 0, ErrClosed
	}
	if r.ended {
		return 0, endedErr(r)
	}
	now := m.expireLocked()
	r.events = append(r.events, b)
	seq := r.last()
	m.pushLocked(memItem{run: r, kind: kindEvent, size: int32(cap(b) + memEventOverhead)}, now)
	r.wake()
	return seq, nil
}

func (w *memWriter) End(ctx context.Context) error { return w.end(nil) }

// Abort implements Aborter: readers reaching the end of the run's events
// get ErrRunAborted, naming cause.
func (w *memWriter) Abort(ctx context.Context, cause error) error {
	if cause == nil {
		cause = errors.New("aborted by its writer")
	}
	return w.end(cause)
}

// endedErr is what appending to, ending or aborting an ended run gives.
func endedErr(r *memRun) error {
	if r.aborted != nil {
		return fmt.Errorf("%w: %q: %w: %v", ErrRunEnded, r.id, ErrRunAborted, r.aborted)
	}
	return fmt.Errorf("%w: %q", ErrRunEnded, r.id)
}

// end appends the end-of-run marker; aborted, when not nil, says why the
// run was aborted.
func (w *memWriter) end(aborted error) error {
	m := w.m
	m.mu.Lock()
	defer m.mu.Unlock()
	r := w.r
	if r.ended {
		return endedErr(r)
	}
	r.ended, r.aborted = true, aborted
	m.pushLocked(memItem{run: r, kind: kindEnd, size: memEventOverhead}, m.opts.Now().UnixNano())
	r.wake()
	return nil
}

type memReader struct {
	m      *Memory
	r      *memRun
	next   uint64
	closed bool
}

func (rd *memReader) Next(ctx context.Context) (Entry, error) {
	m, r := rd.m, rd.r
	for {
		if rd.closed {
			return Entry{}, ErrClosed
		}
		m.mu.Lock()
		m.expireLocked()
		if rd.next < r.base {
			m.mu.Unlock()
			return Entry{}, fmt.Errorf("%w: run %q: event %d was dropped before it was read; the log holds from %d", ErrEvicted, r.id, rd.next, r.base)
		}
		if i := rd.next - r.base; i < uint64(len(r.events)) {
			e := Entry{Seq: rd.next, Wire: r.events[i], Inc: r.inc}
			rd.next++
			m.mu.Unlock()
			return e, nil
		}
		if r.ended {
			aborted := r.aborted
			m.mu.Unlock()
			if aborted != nil {
				return Entry{}, fmt.Errorf("%w: run %q after event %d: %v", ErrRunAborted, r.id, rd.next-1, aborted)
			}
			return Entry{}, io.EOF
		}
		ch := r.notify
		r.waited = true
		m.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return Entry{}, ctx.Err()
		}
	}
}

func (rd *memReader) Close() error {
	rd.closed = true
	return nil
}

// Owner implements Owners: the owner of a run the log holds ("" if it was
// started by Start). A dropped run's owner is forgotten with it: ErrEvicted
// while the log remembers the run's id, ErrUnknownRun after.
func (m *Memory) Owner(ctx context.Context, run string) (string, error) {
	if err := CheckRunID(run); err != nil {
		return "", err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return "", ErrClosed
	}
	m.expireLocked()
	r, ok := m.runs[run]
	if !ok {
		if _, ok := m.tombs[m.hash(run)]; ok {
			return "", fmt.Errorf("%w: run %q has been dropped, its owner with it", ErrEvicted, run)
		}
		return "", fmt.Errorf("%w: %q", ErrUnknownRun, run)
	}
	return r.owner, nil
}

// Touch implements Presence: it records that a reader of run is
// connected now. A run the log does not hold gives ErrUnknownRun.
func (m *Memory) Touch(ctx context.Context, run string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.runs[run]
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownRun, run)
	}
	r.seen = m.opts.Now().UnixNano()
	return nil
}

// LastSeen implements Presence: the time of run's last Touch in this
// process, or the zero time.
func (m *Memory) LastSeen(ctx context.Context, run string) (time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.runs[run]; ok && r.seen != 0 {
		return time.Unix(0, r.seen), nil
	}
	return time.Time{}, nil
}

var (
	_ Log        = (*Memory)(nil)
	_ Presence   = (*Memory)(nil)
	_ Owners     = (*Memory)(nil)
	_ Aborter    = (*memWriter)(nil)
	_ Incarnated = (*memWriter)(nil)
)
