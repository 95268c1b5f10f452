// Package natslog keeps AG-UI runs in a NATS JetStream stream: a
// runlog.Log that any number of server replicas share, so a client cut off
// from one replica resumes on another, and a run started on one is
// followed from all.
//
// # Layout
//
// One stream per deployment (Options.Stream, default "AGWIRE_RUNS") holds
// every run; each run is one subject, Options.Subject + "." + the run id in
// unpadded base64url (so any run id is a valid subject token). A run's
// messages are a start marker, its events (the codec's wire bytes, as
// they are), and an end marker (or an abort marker, whose data is the
// cause). Every message carries the header Agwire-Seq, the number of the
// run's events up to and including it; markers carry Agwire-Mark: start,
// end or abort. An event's cursor is its
// Agwire-Seq, so cursors number a run's events 1, 2, 3 … whatever else
// the stream holds, exactly as the in-memory log does; reading from a
// cursor finds its place by a binary search over the stream's sequence
// numbers (a few direct message reads, at most log2 of the stream's
// length), then follows the subject with an ordered consumer.
//
// Two key-value buckets go with the stream. IDsBucket (Stream + "_IDS",
// no TTL) holds one entry per run ever started: its incarnation token, its
// owner when it was started by StartOwned (runlog.Owners), and the cause
// if the run was aborted. LiveBucket (Stream + "_LIVE", a TTL of
// PresenceTTL) holds the writers' heartbeats and the readers' presence
// (runlog.Presence).
//
// # Guarantees, and what failures cost
//
// Start creates the run's entry in the ids bucket, which succeeds only
// for an id never started in it, then publishes the start marker only if
// the subject is empty (Nats-Expected-Last-Subject-Sequence: 0): across
// replicas, and for the bucket's lifetime (long after retention dropped
// the run), a run id is started once; a second Start gets
// runlog.ErrRunExists. Each Start draws an incarnation token, which the
// readers' entries carry: a cursor bound to it (runlog.Entry.Cursor)
// reads that run only. StartOwned writes the run's owner into the same
// entry, in the same create, so that every replica finds it and no
// refused start writes one; Owner names it only while the run the stream
// holds is that entry's incarnation. Each Append
// and End publishes only if the run's last message is the one this Writer
// wrote last, so a second writer, or a message published to the subject by
// anything else, gets runlog.ErrConflict rather than interleaving. A
// publish is acknowledged by JetStream after it is stored (by a majority
// of Replicas): an acknowledged event survives the loss of this process.
// Every message carries a Nats-Msg-Id: the Writer's incarnation (96
// random bits drawn by Start), the message's place in the run and a hash
// of its bytes. If an acknowledgement is lost (a timeout, a broken
// connection), the Writer reads the run's last message: if the event
// landed, Append succeeds. If the tail cannot be read either (the server
// is unreachable for longer than Options.AckTimeout), Append fails with
// runlog.ErrUnacknowledged and the Writer stays unsure: its next Append or
// End first reads the tail again and adopts its own message if it landed.
// So Append of the same event again, once the server is back, appends it
// exactly once (it is found, or published now), and End and every later
// Append succeed; an Append of another event instead follows whatever
// landed. JetStream's duplicate window (the stream's Duplicates) also
// drops a second copy published with the same id.
//
// A run whose writer dies never gets its end marker: readers receive every
// acknowledged event; a reader waiting at the run's end checks, every
// WriterTimeout/3, the run's entry and the writer's heartbeat (a Writer
// records one every Heartbeat until End or Abort), and ends with
// runlog.ErrRunAborted when the run was aborted or its writer has not been
// heard from for WriterTimeout (the heartbeat's time is the NATS server's:
// replicas' clocks must agree within a fraction of WriterTimeout). A
// Writer's Abort records the cause in the ids bucket, which needs no room
// in the stream, and appends an abort marker when it can.
//
// A NATS server that stops answering (stopped, wedged, out of storage, or
// cut off from this process) leaves nothing waiting for it: each request
// of a reader is bounded by AckTimeout; the writer's Append fails
// (runlog.ErrUnacknowledged; the transport then aborts the run, which the
// readers cannot read either); and a reader waiting at the run's end that
// has not been able to confirm its writer alive for WriterTimeout of
// waiting, its checks unanswered, ends with ErrNoAnswer, an error wrapping
// runlog.ErrRunAborted (time when Next is not called, and nothing asks the
// server, does not count). Its checks are due every WriterTimeout/3 and no
// later than WriterTimeout after its last answer, and each takes at most
// AckTimeout, so it ends at most WriterTimeout + AckTimeout after the
// server stopped: 35 s with the defaults. A reader never waits inside its
// consumer (which, while the server is away, recreates itself for as long
// as it takes, heeding no context), so its context ends Next at once. A
// silence shorter than WriterTimeout costs nothing: the run goes on, and
// its readers get every event exactly once. A reader cannot tell a
// stopped server from its own process cut off from a working one: then
// the run may go on elsewhere, and reading it again from the reader's
// last cursor, once the server answers, gets the rest.
//
// Retention is the stream's: MaxAge and MaxBytes drop the oldest
// messages, of any run (Discard: DiscardOld); a reader whose next event
// was dropped gets runlog.ErrEvicted, as does a cursor of a run none of
// whose messages is left. With DiscardNew a full stream refuses the event
// instead: Append fails with runlog.ErrStoreFull, and the Writer aborts
// the run.
//
// # A real NATS cluster
//
// Connect as usual and hand the JetStream context to New; the stream is
// created, or its limits updated, with the Options (set NoCreate to use a
// stream and buckets your operators manage: the stream must have the
// subjects Subject+".>" and AllowDirect off, the buckets IDsBucket and
// LiveBucket must exist):
//
//	nc, err := nats.Connect("nats://nats-1:4222,nats://nats-2:4222,nats://nats-3:4222",
//		nats.UserCredentials("agwire.creds"), nats.MaxReconnects(-1))
//	js, err := jetstream.New(nc)
//	log, err := natslog.New(ctx, js, natslog.Options{
//		Replicas: 3,                 // survive the loss of one server
//		MaxAge:   24 * time.Hour,    // how long a run can be resumed
//		MaxBytes: 8 << 30,           // what the stream may hold
//	})
//
// Every replica of the server uses the same Stream, Subject, Heartbeat and
// WriterTimeout. Direct
// gets stay off (AllowDirect false) so that a cursor is always checked
// against the stream leader, never against a lagging replica. The account
// needs JetStream enabled and permission to publish on Subject+".>" and to
// use the JetStream API for the stream and its consumers: $JS.API.INFO,
// $JS.API.STREAM.INFO.<Stream> (and CREATE and UPDATE unless NoCreate),
// $JS.API.STREAM.MSG.GET.<Stream>, $JS.API.CONSUMER.> for the readers'
// ordered consumers, with replies on _INBOX.>; and the same for the two
// buckets: publish on $KV.<Stream>_IDS.> and $KV.<Stream>_LIVE.>, and the
// API of their streams KV_<Stream>_IDS and KV_<Stream>_LIVE.
package natslog

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agwire/agwire/runlog"
)

// Defaults of Options.
const (
	DefaultStream   = "AGWIRE_RUNS"
	DefaultSubject  = "agwire.runs"
	DefaultMaxAge   = time.Hour
	DefaultMaxBytes = 1 << 30
	// DefaultAckTimeout is Options.AckTimeout's default.
	DefaultAckTimeout = 5 * time.Second
	// DefaultHeartbeat is Options.Heartbeat's default.
	DefaultHeartbeat = 5 * time.Second
	// DefaultPresenceTTL is Options.PresenceTTL's default.
	DefaultPresenceTTL = 10 * time.Minute
)

// Headers of the messages of a run.
const (
	HeaderSeq  = "Agwire-Seq"
	HeaderMark = "Agwire-Mark"
)

// ErrNoAnswer: a reader waiting at the end of a run could not confirm for
// WriterTimeout that the run's writer is alive, because the NATS server
// did not answer its checks (stopped, wedged, out of resources, or cut off
// from this process). It wraps runlog.ErrRunAborted: the run cannot be
// known to go on, and its writer, which cannot write either, aborts it
// where it can. Over HTTP the reader's client gets a RUN_ERROR
// (transport.RunErrorCodeAborted) instead of waiting for as long as the
// server is away.
var ErrNoAnswer = fmt.Errorf("natslog: the log did not answer: %w", runlog.ErrRunAborted)

// Options configures New. The zero value uses a file-backed stream of one
// replica named DefaultStream.
type Options struct {
	// Stream is the JetStream stream's name; "" means DefaultStream.
	Stream string
	// Subject is the prefix of the runs' subjects; "" means
	// DefaultSubject. The stream holds Subject + ".>".
	Subject string
	// Replicas of the stream; 0 means 1. Use 3 on a cluster.
	Replicas int
	// Storage: jetstream.FileStorage (the zero value) or MemoryStorage.
	Storage jetstream.StorageType
	// MaxAge drops messages older than this; 0 means DefaultMaxAge,
	// negative keeps them regardless of age.
	MaxAge time.Duration
	// MaxBytes bounds the stream's size, oldest messages dropped first;
	// 0 means DefaultMaxBytes (1 GiB), negative means no bound.
	MaxBytes int64
	// MaxEventBytes is the largest event Append accepts
	// (runlog.ErrTooLarge beyond); 0 means runlog.DefaultMaxEventBytes.
	// Either way no more than a message can carry: the smaller of the
	// stream's MaxMsgSize and the server's max_payload (1 MiB by default),
	// less 1 KiB and the stream's name for the headers (Log.MaxEventBytes
	// says what it came to).
	MaxEventBytes int
	// NoCreate uses the stream as it is, without creating or updating it.
	NoCreate bool
	// AckTimeout is how long a publish waits for JetStream's
	// acknowledgement, and how long the writer then spends reading the
	// run's tail to learn whether an unacknowledged message landed; it
	// also bounds each request of a reader (Read's, and each check of a
	// run's writer) and of LastSeen, so that a server that does not answer
	// costs that long, not a wait for as long as it is away. 0 means
	// DefaultAckTimeout. A context deadline shortens them.
	AckTimeout time.Duration
	// Discard is what a full stream does: jetstream.DiscardOld (the zero
	// value) drops its oldest messages, of any run; DiscardNew refuses new
	// ones: the Append fails with runlog.ErrStoreFull and the Writer
	// aborts the run, so that its readers end with runlog.ErrRunAborted.
	Discard jetstream.DiscardPolicy
	// Heartbeat is how often a Writer records, in the live bucket, that
	// it is alive; a reader waiting on a run whose writer has not been
	// heard from for WriterTimeout ends with runlog.ErrRunAborted instead
	// of waiting for ever, and so does one that could not confirm the
	// writer alive for WriterTimeout because the server did not answer
	// (ErrNoAnswer). 0 means DefaultHeartbeat; negative turns heartbeats
	// and the readers' checks off (a reader then waits for the run's end
	// however long the server is away). Every replica uses the same.
	// A Writer beats (one goroutine) until End or Abort: call one of them.
	// Readers of a run written without heartbeats (by an earlier version)
	// end with runlog.ErrRunAborted after WriterTimeout of silence.
	Heartbeat time.Duration
	// WriterTimeout: see Heartbeat. 0 means 6 × Heartbeat (30 s).
	WriterTimeout time.Duration
	// PresenceTTL is how long the live bucket keeps a heartbeat or a
	// Touch; 0 means DefaultPresenceTTL. It is at least WriterTimeout.
	PresenceTTL time.Duration
}

// Log is a runlog.Log on a JetStream stream. It is safe for concurrent
// use; many Log values, in one process or many, may share one stream.
type Log struct {
	js         jetstream.JetStream
	stream     jetstream.Stream
	ids        jetstream.KeyValue // every run ever started: its incarnation, its owner, and why it was aborted
	live       jetstream.KeyValue // writers' heartbeats and readers' presence, with a TTL
	name       string
	subject    string
	maxEvent   int
	ackTimeout time.Duration
	heartbeat  time.Duration // < 0: off
	writerTO   time.Duration
}

var _ runlog.Log = (*Log)(nil)

// New returns a Log on the stream that opts name, creating it or updating
// its configuration unless opts.NoCreate.
func New(ctx context.Context, js jetstream.JetStream, opts Options) (*Log, error) {
	if opts.Stream == "" {
		opts.Stream = DefaultStream
	}
	if opts.Subject == "" {
		opts.Subject = DefaultSubject
	}
	if opts.Replicas <= 0 {
		opts.Replicas = 1
	}
	if opts.MaxAge == 0 {
		opts.MaxAge = DefaultMaxAge
	}
	if opts.MaxBytes == 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	var s jetstream.Stream
	var err error
	if opts.NoCreate {
		s, err = js.Stream(ctx, opts.Stream)
	} else {
		cfg := jetstream.StreamConfig{
			Name:        opts.Stream,
			Description: "agwire: AG-UI runs, one subject per run",
			Subjects:    []string{opts.Subject + ".>"},
			Storage:     opts.Storage,
			Replicas:    opts.Replicas,
			Retention:   jetstream.LimitsPolicy,
			Discard:     opts.Discard,
			MaxBytes:    -1,
			MaxMsgs:     -1,
			AllowDirect: false,
		}
		if opts.MaxAge > 0 {
			cfg.MaxAge = opts.MaxAge
		}
		if opts.MaxBytes > 0 {
			cfg.MaxBytes = opts.MaxBytes
		}
		s, err = js.CreateOrUpdateStream(ctx, cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("natslog: stream %s: %w", opts.Stream, err)
	}
	maxEvent := eventLimit(opts.MaxEventBytes, js.Conn().MaxPayload(), s.CachedInfo().Config.MaxMsgSize, opts.Stream)
	opts = opts.timing()
	l := &Log{js: js, stream: s, name: opts.Stream, subject: opts.Subject, maxEvent: maxEvent,
		ackTimeout: opts.AckTimeout, heartbeat: opts.Heartbeat, writerTO: opts.WriterTimeout}
	idsCfg := jetstream.KeyValueConfig{
		Bucket:      IDsBucket(opts.Stream),
		Description: "agwire: every run id started in stream " + opts.Stream + ", never reused",
		History:     1,
		Storage:     opts.Storage,
		Replicas:    opts.Replicas,
	}
	liveCfg := jetstream.KeyValueConfig{
		Bucket:      LiveBucket(opts.Stream),
		Description: "agwire: heartbeats of the writers and presence of the readers of stream " + opts.Stream,
		History:     1,
		TTL:         opts.PresenceTTL,
		Storage:     opts.Storage,
		Replicas:    opts.Replicas,
	}
	for _, b := range []struct {
		kv  *jetstream.KeyValue
		cfg jetstream.KeyValueConfig
	}{{&l.ids, idsCfg}, {&l.live, liveCfg}} {
		if opts.NoCreate {
			*b.kv, err = js.KeyValue(ctx, b.cfg.Bucket)
		} else {
			*b.kv, err = js.CreateOrUpdateKeyValue(ctx, b.cfg)
		}
		if err != nil {
			return nil, fmt.Errorf("natslog: key-value bucket %s: %w", b.cfg.Bucket, err)
		}
	}
	return l, nil
}

// timing returns o with the defaults of the options that time writers and
// readers filled in.
func (o Options) timing() Options {
	if o.AckTimeout <= 0 {
		o.AckTimeout = DefaultAckTimeout
	}
	if o.Heartbeat == 0 {
		o.Heartbeat = DefaultHeartbeat
	}
	if o.WriterTimeout <= 0 {
		o.WriterTimeout = 6 * o.Heartbeat
	}
	if o.PresenceTTL <= 0 {
		o.PresenceTTL = DefaultPresenceTTL
	}
	o.PresenceTTL = max(o.PresenceTTL, o.WriterTimeout)
	return o
}

// headerRoom is what the headers of a run's message may take: the header
// line, Agwire-Seq, Agwire-Mark, Nats-Msg-Id and the expectations
// (Nats-Expected-Last-Subject-Sequence, Nats-Expected-Stream with the
// stream's name) are under 250 bytes and the name; the server counts them
// in both its max_payload and the stream's MaxMsgSize.
const headerRoom = 1024

// eventLimit is the largest event a log accepts: opt (Options.MaxEventBytes;
// 0: runlog.DefaultMaxEventBytes), or less when a message of the stream
// (maxMsgSize, unbounded when not positive) or of the connection
// (maxPayload, the server's max_payload) holds less, headers included.
func eventLimit(opt int, maxPayload int64, maxMsgSize int32, stream string) int {
	if opt <= 0 {
		opt = runlog.DefaultMaxEventBytes
	}
	if maxPayload <= 0 { // not connected yet: the server's default
		maxPayload = 1 << 20
	}
	msg := maxPayload
	if maxMsgSize > 0 {
		msg = min(msg, int64(maxMsgSize))
	}
	return int(max(0, min(int64(opt), msg-headerRoom-int64(len(stream)))))
}

// MaxEventBytes implements runlog.EventLimiter: the largest event Append
// accepts, in wire bytes (runlog.ErrTooLarge beyond): Options.MaxEventBytes,
// or less when the stream's MaxMsgSize or the server's max_payload, as
// they were when New was called, leave less room for an event and its
// message's headers. A server refuses a run whose RUN_STARTED is larger
// before it starts (transport answers 422).
func (l *Log) MaxEventBytes() int { return l.maxEvent }

// IDsBucket is the name of the key-value bucket where the log on stream
// keeps every run id it started (so that none is started again, even
// after retention dropped the run), the run's owner (StartOwned) and why
// a run was aborted: stream + "_IDS". It has no TTL: one entry per run
// for the bucket's lifetime, 115 bytes for a 12-byte run id without an
// owner (BenchmarkStart), plus the owner's bytes and one.
func IDsBucket(stream string) string { return stream + "_IDS" }

// LiveBucket is the name of the key-value bucket where the log on stream
// keeps the writers' heartbeats and the readers' presence: stream +
// "_LIVE", with a TTL of Options.PresenceTTL.
func LiveBucket(stream string) string { return stream + "_LIVE" }

// key is run's key in the buckets: its id in unpadded base64url.
func key(run string) string { return base64.RawURLEncoding.EncodeToString([]byte(run)) }

// StreamName returns the name of the log's stream.
func (l *Log) StreamName() string { return l.name }

// SubjectOf returns the subject that holds run.
func (l *Log) SubjectOf(run string) string {
	return l.subject + "." + base64.RawURLEncoding.EncodeToString([]byte(run))
}

// Start implements runlog.Log.
func (l *Log) Start(ctx context.Context, run string) (runlog.Writer, error) {
	return l.start(ctx, run, "")
}

// StartOwned implements runlog.Owners: Start, with owner written into the
// run's entry in the ids bucket by the create that takes the id, so that
// the owner is there for every replica as soon as the run is, and a start
// refused because the id is taken writes nothing.
func (l *Log) StartOwned(ctx context.Context, run, owner string) (runlog.Writer, error) {
	if err := runlog.CheckOwner(owner); err != nil {
		return nil, err
	}
	return l.start(ctx, run, owner)
}

func (l *Log) start(ctx context.Context, run, owner string) (runlog.Writer, error) {
	if err := runlog.CheckRunID(run); err != nil {
		return nil, err
	}
	w := &writer{l: l, run: run, subject: l.SubjectOf(run), key: key(run), inc: runlog.NewIncarnation(), owner: owner}
	// The id is taken for good first: a run id is started once in the
	// stream's lifetime, whatever retention dropped since.
	if _, err := l.ids.Create(ctx, w.key, []byte(w.record())); err != nil {
		if e, gerr := l.ids.Get(ctx, w.key); gerr == nil && parseIDRecord(e.Value()).inc == w.inc {
			// This Start's own record: its acknowledgement was lost.
		} else if errors.Is(err, jetstream.ErrKeyExists) {
			return nil, fmt.Errorf("%w: run %q was started in stream %s before; a run id is started once", runlog.ErrRunExists, run, l.name)
		} else {
			return nil, fmt.Errorf("natslog: run %q: %w", run, storeErr(err))
		}
	}
	if err := w.put(ctx, nil, "start"); err != nil {
		if errors.Is(err, runlog.ErrConflict) {
			return nil, fmt.Errorf("%w: run %q is in stream %s", runlog.ErrRunExists, run, l.name)
		}
		return nil, err
	}
	if l.heartbeat > 0 {
		w.stop = make(chan struct{})
		w.beat(ctx)
		go w.heartbeats(w.stop)
	}
	return w, nil
}

// The ids bucket's record of a run is a line: its incarnation, then, if
// it has an owner, a space and the owner (runlog.CheckOwner admits no line
// break, and an incarnation token no space); then, if the run was aborted,
// a line break and the cause. A record of an earlier version has no owner.
// An earlier version reading a record with an owner takes the whole line
// for the incarnation, and so misses an abort cause recorded there: its
// readers of that run end on the abort marker, or when the writer's
// heartbeat stops.
type idRecord struct {
	inc, owner, cause string
}

func parseIDRecord(v []byte) idRecord {
	line, cause, _ := bytes.Cut(v, []byte{'\n'})
	inc, owner, _ := bytes.Cut(line, []byte{' '})
	return idRecord{inc: string(inc), owner: string(owner), cause: string(cause)}
}

// record is the writer's run's record, without a cause.
func (w *writer) record() string {
	if w.owner == "" {
		return w.inc
	}
	return w.inc + " " + w.owner
}

// beat records that the writer is alive.
func (w *writer) beat(ctx context.Context) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.l.ackTimeout)
	defer cancel()
	_, _ = w.l.live.Put(cctx, "w."+w.key, []byte(w.inc)) // a lost beat is made up by the next
}

func (w *writer) heartbeats(stop chan struct{}) {
	t := time.NewTicker(w.l.heartbeat)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			w.beat(context.Background())
		}
	}
}

// stopBeating ends the heartbeats, once.
func (w *writer) stopBeating() {
	if w.stop != nil {
		close(w.stop)
		w.stop = nil
	}
}

type writer struct {
	l       *Log
	run     string
	subject string
	key     string        // the run's key in the buckets
	inc     string        // this Start's token: the prefix of every message id
	owner   string        // the run's owner (StartOwned); "": none
	stop    chan struct{} // closed to end the heartbeats
	aborted error         // why the run was aborted
	last    uint64        // stream sequence of the run's last message
	n       uint64        // events appended
	ended   bool
	// unsure: the outcome of the last publish is unknown (its
	// acknowledgement was lost): the run's tail says, before anything
	// else is published.
	unsure bool
}

func (w *writer) Run() string { return w.run }

// Incarnation implements runlog.Incarnated.
func (w *writer) Incarnation() string { return w.inc }

func (w *writer) endedErr() error {
	if w.aborted != nil {
		return fmt.Errorf("%w: %q: %w: %v", runlog.ErrRunEnded, w.run, runlog.ErrRunAborted, w.aborted)
	}
	return fmt.Errorf("%w: %q", runlog.ErrRunEnded, w.run)
}

func (w *writer) Append(ctx context.Context, wire []byte) (uint64, error) {
	if w.ended {
		return 0, w.endedErr()
	}
	if len(wire) > w.l.maxEvent {
		return 0, fmt.Errorf("%w: %d bytes, the limit is %d", runlog.ErrTooLarge, len(wire), w.l.maxEvent)
	}
	if err := w.put(ctx, wire, ""); err != nil {
		return 0, w.fullAbort(ctx, err)
	}
	return w.n, nil
}

func (w *writer) End(ctx context.Context) error {
	if w.ended {
		return w.endedErr()
	}
	if err := w.put(ctx, nil, "end"); err != nil {
		return w.fullAbort(ctx, err)
	}
	w.stopBeating()
	return nil
}

// fullAbort aborts the run when err says the stream is full: the run
// cannot go on, and its readers must not wait for it. It returns err.
func (w *writer) fullAbort(ctx context.Context, err error) error {
	if errors.Is(err, runlog.ErrStoreFull) {
		if aerr := w.Abort(ctx, err); aerr != nil {
			return fmt.Errorf("%w (and aborting the run failed: %v)", err, aerr)
		}
	}
	return err
}

// Abort implements runlog.Aborter. It needs no room in the stream: the
// cause goes to the ids bucket, where waiting readers look; an abort
// marker is appended to the stream too when there is room, so that they
// end at once. The heartbeats stop.
func (w *writer) Abort(ctx context.Context, cause error) error {
	if w.ended {
		return w.endedErr()
	}
	if cause == nil {
		cause = errors.New("aborted by its writer")
	}
	w.stopBeating()
	w.ended, w.aborted = true, cause
	text := cause.Error()
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.l.ackTimeout)
	defer cancel()
	_, kerr := w.l.ids.Put(cctx, w.key, []byte(w.record()+"\n"+text))
	if !errors.Is(cause, runlog.ErrStoreFull) && !w.unsure {
		_ = w.publishMark(cctx, []byte(text), "abort") // best effort: readers also find the record
	}
	if kerr != nil {
		return fmt.Errorf("natslog: run %q: recording its abort: %w (its readers end when they miss its heartbeat)", w.run, storeErr(kerr))
	}
	return nil
}

// publishMark publishes a marker after the writer's last message, once.
func (w *writer) publishMark(ctx context.Context, data []byte, mark string) error {
	m := nats.NewMsg(w.subject)
	m.Data = data
	m.Header.Set(HeaderSeq, strconv.FormatUint(w.n, 10))
	m.Header.Set(HeaderMark, mark)
	ack, err := w.l.js.PublishMsg(ctx, m, jetstream.WithMsgID(w.inc+"."+strconv.FormatUint(w.n, 10)+".a"),
		jetstream.WithExpectLastSequencePerSubject(w.last), jetstream.WithExpectStream(w.l.name))
	if err == nil {
		w.last = ack.Sequence
	}
	return err
}

// storeErr wraps err with runlog.ErrStoreFull when JetStream refused a
// message for lack of space.
func storeErr(err error) error {
	var apiErr *jetstream.APIError
	if !errors.As(err, &apiErr) {
		return err
	}
	switch {
	case apiErr.ErrorCode == 10023, apiErr.ErrorCode == 10047: // insufficient resources, storage resources exceeded
	case apiErr.ErrorCode == 10077 && (strings.HasPrefix(apiErr.Description, "maximum bytes") || strings.HasPrefix(apiErr.Description, "maximum messages")):
	default:
		return err
	}
	return fmt.Errorf("%w: %w", runlog.ErrStoreFull, err)
}

// msgID is the Nats-Msg-Id of the message that would come next: the
// writer's incarnation, the message's Agwire-Seq, and what it is (a hash
// of an event's bytes, or the marker's initial). The id tells this
// writer's messages from any other's, and a retried message from another
// message at the same place.
func (w *writer) msgID(data []byte, mark string) string {
	switch mark {
	case "start":
		return w.inc + ".0.s"
	case "end":
		return w.inc + "." + strconv.FormatUint(w.n, 10) + ".e"
	}
	h := fnv.New64a()
	h.Write(data)
	return w.inc + "." + strconv.FormatUint(w.n+1, 10) + "." + strconv.FormatUint(h.Sum64(), 36)
}

// put publishes one message of the run, only if the run's last message is
// w.last (0: the subject is empty), and advances the writer past it.
//
// When an acknowledgement is lost (a timeout, a broken connection), the
// message may or may not have landed: the writer becomes unsure, and
// learns the outcome from the run's tail before it publishes anything
// else. A message of this writer's found there is adopted: if it is the
// very message being put (a retry), put succeeds without publishing it
// again, so a retried Append is appended exactly once; otherwise the
// writer moves past it. Every message carries a Nats-Msg-Id, so that
// JetStream also drops a duplicate within the stream's Duplicates window.
func (w *writer) put(ctx context.Context, data []byte, mark string) error {
	for attempt := 0; ; attempt++ {
		id := w.msgID(data, mark)
		if w.unsure {
			adopted, err := w.settle(ctx)
			if errors.Is(err, runlog.ErrConflict) {
				return err
			}
			if err != nil {
				return fmt.Errorf("natslog: run %q: %w: whether the previous message landed is still unknown (the run's tail could not be read: %v); put the same event again to retry it, it is appended once",
					w.run, runlog.ErrUnacknowledged, err)
			}
			if adopted == id {
				return nil
			}
			if adopted != "" {
				continue // the writer moved past an earlier message: a new id
			}
		}
		if attempt > 3 {
			// Each attempt adopted a message of this writer's or found
			// the tail moved and back: not a state a single writer makes.
			return fmt.Errorf("%w: run %q: the run's tail keeps moving", runlog.ErrConflict, w.run)
		}
		m := nats.NewMsg(w.subject)
		m.Data = data
		m.Header.Set(HeaderSeq, strconv.FormatUint(w.seqOf(mark), 10))
		if mark != "" {
			m.Header.Set(HeaderMark, mark)
		}
		pctx, cancel := context.WithTimeout(ctx, w.l.ackTimeout)
		ack, err := w.l.js.PublishMsg(pctx, m, jetstream.WithMsgID(id), jetstream.WithExpectLastSequencePerSubject(w.last), jetstream.WithExpectStream(w.l.name))
		cancel()
		if err == nil {
			w.advance(ack.Sequence, mark)
			return nil
		}
		var apiErr *jetstream.APIError
		switch {
		case isWrongLast(err):
			// Someone else's message, or one of this writer's that
			// landed after all: the tail says which.
			w.unsure = true
			continue
		case errors.As(err, &apiErr):
			return fmt.Errorf("natslog: run %q: %w", w.run, storeErr(err))
		}
		// The acknowledgement is what may have been lost.
		w.unsure = true
		adopted, serr := w.settle(ctx)
		switch {
		case serr == nil && adopted == id:
			return nil
		case serr == nil:
			continue
		case errors.Is(serr, runlog.ErrConflict):
			return serr
		}
		return fmt.Errorf("natslog: run %q: %w: %w (the run's tail could not be read: %v); put the same event again to retry it, it is appended once",
			w.run, runlog.ErrUnacknowledged, err, serr)
	}
}

// seqOf is the Agwire-Seq of the next message of kind mark.
func (w *writer) seqOf(mark string) uint64 {
	switch mark {
	case "start":
		return 0
	case "end", "abort":
		return w.n
	}
	return w.n + 1
}

// advance moves the writer past its message of kind mark at stream
// sequence seq.
func (w *writer) advance(seq uint64, mark string) {
	w.last = seq
	switch mark {
	case "":
		w.n++
	case "end", "abort":
		w.ended = true
	}
}

// settle reads the run's tail to learn the outcome of the writer's last
// unacknowledged message. It returns the message id of this writer's
// next message if that is the tail (adopted: the writer is past it), ""
// if nothing was appended after w.last, or an error: the tail could not
// be read (the writer stays unsure), or another writer's message is there
// (runlog.ErrConflict).
func (w *writer) settle(ctx context.Context) (string, error) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.l.ackTimeout)
	defer cancel()
	last, err := w.l.stream.GetLastMsgForSubject(cctx, w.subject)
	if errors.Is(err, jetstream.ErrMsgNotFound) && w.last == 0 {
		w.unsure = false
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if last.Sequence == w.last {
		w.unsure = false
		return "", nil
	}
	id := last.Header.Get(jetstream.MsgIDHeader)
	info, perr := parseHeaders(last.Header)
	if perr == nil && last.Sequence > w.last && strings.HasPrefix(id, w.inc+".") && info.seq == w.seqOf(info.mark) && (info.mark != "start" || w.last == 0) {
		w.unsure = false
		w.advance(last.Sequence, info.mark)
		return id, nil
	}
	return "", fmt.Errorf("%w: run %q has a message this writer did not write (stream sequence %d)", runlog.ErrConflict, w.run, last.Sequence)
}

func isWrongLast(err error) bool {
	var apiErr *jetstream.APIError
	if !errors.As(err, &apiErr) {
		return false
	}
	return apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence || apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant
}

// msgInfo is what a run's message says of its place.
type msgInfo struct {
	seq  uint64 // Agwire-Seq
	mark string // "", "start" or "end"
}

func parseHeaders(h nats.Header) (msgInfo, error) {
	seq, err := strconv.ParseUint(h.Get(HeaderSeq), 10, 64)
	if err != nil {
		return msgInfo{}, fmt.Errorf("natslog: a message without a valid %s header", HeaderSeq)
	}
	mark := h.Get(HeaderMark)
	if mark != "" && mark != "start" && mark != "end" && mark != "abort" {
		return msgInfo{}, fmt.Errorf("natslog: unknown %s %q", HeaderMark, mark)
	}
	return msgInfo{seq: seq, mark: mark}, nil
}

// key orders a run's messages for the search of a cursor's place: event k
// has key k, the start marker 0, the end marker after n events n+1.
func (i msgInfo) key() uint64 {
	switch i.mark {
	case "start":
		return 0
	case "end", "abort":
		return i.seq + 1
	}
	return i.seq
}

// consumerHeartbeat is the idle heartbeat of an ordered consumer's pulls
// by default.
const consumerHeartbeat = 5 * time.Second

// bounded bounds one request to the store by AckTimeout (or ctx's
// deadline, if sooner): a server that does not answer (stopped, wedged,
// cut off) costs a reader that long, not a wait for as long as it is away.
func (l *Log) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, l.ackTimeout)
}

// get reads the first message of subject at or after stream sequence from.
func (l *Log) get(ctx context.Context, subject string, from uint64) (*jetstream.RawStreamMsg, msgInfo, error) {
	ctx, cancel := l.bounded(ctx)
	defer cancel()
	m, err := l.stream.GetMsg(ctx, from, jetstream.WithGetMsgSubject(subject))
	if err != nil {
		return nil, msgInfo{}, err
	}
	info, err := parseHeaders(m.Header)
	return m, info, err
}

// Read implements runlog.Log.
func (l *Log) Read(ctx context.Context, from runlog.Cursor) (runlog.Reader, error) {
	if err := runlog.CheckRunID(from.Run); err != nil {
		return nil, err
	}
	if from.Inc != "" {
		if err := runlog.CheckInc(from.Inc); err != nil {
			return nil, err
		}
	}
	subject := l.SubjectOf(from.Run)
	lctx, cancel := l.bounded(ctx)
	last, err := l.stream.GetLastMsgForSubject(lctx, subject)
	cancel()
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		kctx, cancel := l.bounded(ctx)
		defer cancel()
		if _, kerr := l.ids.Get(kctx, key(from.Run)); kerr == nil {
			return nil, fmt.Errorf("%w: run %q has been dropped entirely", runlog.ErrEvicted, from.Run)
		}
		return nil, fmt.Errorf("%w: %q", runlog.ErrUnknownRun, from.Run)
	}
	if err != nil {
		return nil, fmt.Errorf("natslog: run %q: %w", from.Run, err)
	}
	lastInfo, err := parseHeaders(last.Header)
	if err != nil {
		return nil, err
	}
	inc := incOf(last.Header)
	if from.Inc != "" && from.Inc != inc {
		return nil, fmt.Errorf("%w: the run of cursor %s is gone: run %q is now another run (incarnation %q)", runlog.ErrEvicted, from, from.Run, inc)
	}
	first, firstInfo, err := l.get(ctx, subject, 1)
	if err != nil {
		return nil, fmt.Errorf("natslog: run %q: %w", from.Run, err)
	}
	held := firstInfo.seq // first event held
	if firstInfo.mark != "" {
		held++
	}
	if from.Seq > lastInfo.seq {
		return nil, fmt.Errorf("%w: cursor %d of run %q is past its last event, %d", runlog.ErrBadCursor, from.Seq, from.Run, lastInfo.seq)
	}
	if from.Seq+1 < held {
		return nil, fmt.Errorf("%w: run %q: the event after cursor %d has been dropped; the stream holds events %d to %d", runlog.ErrEvicted, from.Run, from.Seq, held, lastInfo.seq)
	}
	// The first message with key >= from.Seq+1, or after the last.
	target := from.Seq + 1
	var start uint64
	switch {
	case lastInfo.key() < target:
		start = last.Sequence + 1
	case firstInfo.key() >= target || from.Seq == 0:
		start = first.Sequence
	default:
		// The smallest stream sequence s whose next message on the
		// subject has key >= target; other runs' messages between the
		// run's are skipped by the consumer's filter.
		lo, hi := first.Sequence+1, last.Sequence
		for lo < hi {
			mid := lo + (hi-lo)/2
			m, info, err := l.get(ctx, subject, mid)
			if err != nil {
				return nil, fmt.Errorf("natslog: run %q: %w", from.Run, err)
			}
			if info.key() >= target {
				hi = mid
			} else {
				lo = m.Sequence + 1 // every s up to m.Sequence has m next
			}
		}
		start = lo
	}
	cctx, cancel := l.bounded(ctx)
	cons, err := l.js.OrderedConsumer(cctx, l.name, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{subject},
		DeliverPolicy:  jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:    start,
	})
	cancel()
	if err != nil {
		return nil, fmt.Errorf("natslog: run %q: %w", from.Run, err)
	}
	var mopts []jetstream.PullMessagesOpt
	if l.heartbeat > 0 && l.heartbeat < consumerHeartbeat {
		// The consumer's idle heartbeat follows the writers' when theirs
		// is shorter (500 ms at least, JetStream's shortest): it notices a
		// lost server after two are missed, and recreates itself, on the
		// time scale of the reader's checks of the writer.
		mopts = append(mopts, jetstream.PullHeartbeat(max(l.heartbeat, 500*time.Millisecond)))
	}
	it, err := cons.Messages(mopts...)
	if err != nil {
		return nil, fmt.Errorf("natslog: run %q: %w", from.Run, err)
	}
	now := time.Now()
	r := &reader{l: l, run: from.Run, key: key(from.Run), inc: inc, it: it, next: from.Seq + 1,
		msgs: make(chan delivery), done: make(chan struct{}), quiet: now, alive: now, checked: now}
	go r.pump()
	return r, nil
}

// incOf is the incarnation of the writer of a message: the first part of
// its message id ("" for a message of an earlier version, which has none).
func incOf(h nats.Header) string {
	id := h.Get(jetstream.MsgIDHeader)
	i := strings.IndexByte(id, '.')
	if i <= 0 || runlog.CheckInc(id[:i]) != nil {
		return ""
	}
	return id[:i]
}

type reader struct {
	l    *Log
	run  string
	key  string
	inc  string
	it   jetstream.MessagesContext
	msgs chan delivery // the consumer's messages, in order, from pump
	done chan struct{} // closed by Close: pump stops
	once sync.Once
	next uint64
	err  error // sticky
	// The clocks of a wait at the run's tail: when the last message
	// arrived (or the reader began), when the run was last known to go on
	// (a message, or a check that found its writer's heartbeat fresh), and
	// when the writer was last checked (or the last message arrived).
	quiet, alive, checked time.Time
	timer                 *time.Timer // reused by each wait
}

// delivery is what the consumer gave: a message or an error.
type delivery struct {
	m   jetstream.Msg
	err error
}

// pump moves the consumer's messages to r.msgs, so that Next never waits
// inside the consumer: while the server does not answer, the ordered
// consumer recreates itself, retrying for as long as it takes without a
// deadline and without looking at any context, and Next meanwhile goes on
// checking the run's writer and gives up on its own clock. pump ends after
// an error, or when the reader is closed.
func (r *reader) pump() {
	for {
		m, err := r.it.Next()
		select {
		case r.msgs <- delivery{m, err}:
		case <-r.done:
			return
		}
		if err != nil {
			return
		}
	}
}

func (r *reader) Next(ctx context.Context) (runlog.Entry, error) {
	for r.err == nil {
		var d delivery
		select {
		case d = <-r.msgs: // the common case: no timer
		default:
			var err error
			if d, err = r.await(ctx); err != nil {
				return runlog.Entry{}, err
			}
			if d.m == nil && d.err == nil {
				continue // a check of the writer: r.err says what it found
			}
		}
		if d.err != nil {
			switch {
			case errors.Is(d.err, jetstream.ErrMsgIteratorClosed):
				// Closed by Close, or with the connection (for good: a
				// connection that reconnects keeps its consumers). A
				// client ends its response and resumes elsewhere.
				r.err = fmt.Errorf("%w: run %q: %w", runlog.ErrClosed, r.run, d.err)
			default:
				r.err = fmt.Errorf("natslog: run %q: %w", r.run, d.err)
			}
			break
		}
		now := time.Now()
		r.quiet, r.alive, r.checked = now, now, now
		m := d.m
		info, err := parseHeaders(m.Headers())
		if err != nil {
			r.err = err
			break
		}
		switch {
		case info.mark == "start":
			continue
		case info.mark == "abort" && info.seq+1 == r.next:
			r.err = fmt.Errorf("%w: run %q after event %d: %s", runlog.ErrRunAborted, r.run, info.seq, m.Data())
		case info.mark == "end", info.mark == "abort":
			if info.seq >= r.next {
				r.err = fmt.Errorf("%w: run %q: events %d to %d were dropped before they were read", runlog.ErrEvicted, r.run, r.next, info.seq)
			} else {
				r.err = io.EOF
			}
		case info.seq < r.next:
			continue // not reached: the search starts at the cursor's place
		case info.seq > r.next:
			r.err = fmt.Errorf("%w: run %q: event %d was dropped before it was read", runlog.ErrEvicted, r.run, r.next)
		default:
			r.next++
			return runlog.Entry{Seq: info.seq, Wire: m.Data(), Inc: r.inc}, nil
		}
	}
	return runlog.Entry{}, r.err
}

// await waits for the consumer's next delivery; when the run has been
// quiet until the next check is due, it checks the writer instead and
// returns an empty delivery, with r.err set if the run will not go on. It
// returns ctx's error when ctx ends first.
func (r *reader) await(ctx context.Context) (delivery, error) {
	var due <-chan time.Time
	if r.l.heartbeat > 0 {
		if away := time.Since(r.due()); away > 0 {
			// Next was not called when a check fell due (its caller was
			// busy): that time, when the store was not asked, does not
			// count as time the store did not answer. The check is due
			// now.
			r.alive, r.checked = r.alive.Add(away), r.checked.Add(away)
		}
		wait := time.Until(r.due())
		if r.timer == nil {
			r.timer = time.NewTimer(wait)
		} else {
			r.timer.Reset(wait)
		}
		defer r.timer.Stop()
		due = r.timer.C
	}
	select {
	case d := <-r.msgs:
		return d, nil
	case <-ctx.Done():
		return delivery{}, ctx.Err()
	case <-r.done:
		return delivery{err: jetstream.ErrMsgIteratorClosed}, nil
	case <-due:
	}
	err := r.checkWriter(ctx)
	if ctx.Err() != nil {
		return delivery{}, ctx.Err() // the check was cut short: it says nothing
	}
	r.err = err
	return delivery{}, nil
}

// due is when the writer is to be checked: WriterTimeout/3 after the last
// message or check, but no later than WriterTimeout after the run was last
// known to go on. So a reader whose checks the store does not answer ends
// at the end of the check begun by then: at most WriterTimeout +
// AckTimeout (a check's bound) after the last answer it had, which came
// before the server stopped answering. With the defaults, 30 s + 5 s =
// 35 s after the server stopped (TestDefaultsEndReadersWithin40s).
func (r *reader) due() time.Time {
	d := r.checked.Add(r.l.writerTO / 3)
	if a := r.alive.Add(r.l.writerTO); a.Before(d) {
		return a
	}
	return d
}

// checkWriter is called when Next has waited at the run's tail: it returns
// an error wrapping runlog.ErrRunAborted if the run's writer aborted it
// (the ids bucket says), has not beaten its heart for WriterTimeout, or
// could not be confirmed alive for WriterTimeout because the store did
// not answer (ErrNoAnswer).
func (r *reader) checkWriter(ctx context.Context) error {
	start := time.Now()
	defer func() { r.checked = time.Now() }()
	cctx, cancel := r.l.bounded(ctx) // both requests together: one check costs at most AckTimeout
	defer cancel()
	if e, err := r.l.ids.Get(cctx, r.key); err == nil && (r.inc == "" || parseIDRecord(e.Value()).inc == r.inc) {
		if cause := parseIDRecord(e.Value()).cause; cause != "" {
			return fmt.Errorf("%w: run %q after event %d: %s", runlog.ErrRunAborted, r.run, r.next-1, cause)
		}
	}
	e, err := r.l.live.Get(cctx, "w."+r.key)
	switch {
	case err == nil && time.Since(e.Created()) < r.l.writerTO:
		r.alive = start // the heartbeat was fresh when the check began, at least
		return nil
	case err == nil: // a heartbeat older than WriterTimeout
	case errors.Is(err, jetstream.ErrKeyNotFound):
		if time.Since(r.quiet) < r.l.writerTO {
			return nil // none yet: the reader waits WriterTimeout itself
		}
	default:
		// The store did not answer (stopped, wedged, out of resources, or
		// cut off from this process): nothing says the run goes on, nor
		// that it stopped. Its writer, unable to write, aborts it, and
		// this reader cannot read the abort either: after WriterTimeout
		// without an answer it ends rather than wait for the server.
		if d := time.Since(r.alive); d >= r.l.writerTO {
			return fmt.Errorf("%w: run %q after event %d: nothing has confirmed that its writer is alive for %v (the last request: %v)",
				ErrNoAnswer, r.run, r.next-1, d.Round(time.Millisecond), err)
		}
		return nil
	}
	return fmt.Errorf("%w: run %q after event %d: its writer has not been heard from for %v (it stopped without ending the run)", runlog.ErrRunAborted, r.run, r.next-1, r.l.writerTO)
}

func (r *reader) Close() error {
	r.once.Do(func() {
		close(r.done)
		// Stop waits for a consumer being recreated, up to the attempt in
		// flight, while the server does not answer: not the caller's wait.
		go r.it.Stop()
	})
	if r.err == nil {
		r.err = runlog.ErrClosed
	}
	return nil
}

// Owner implements runlog.Owners: the owner in run's entry in the ids
// bucket, which every replica reads, kept as long as the entry (for good:
// the bucket has no TTL). It names the owner only while the run the
// stream holds is the one that entry's Start wrote (the same incarnation),
// or while the stream holds nothing of the run (retention dropped it;
// reading it gives runlog.ErrEvicted): a run the stream holds under
// another incarnation, such as one written before the ids bucket was
// recreated, has no owner (""). A run never started gives
// runlog.ErrUnknownRun.
func (l *Log) Owner(ctx context.Context, run string) (string, error) {
	if err := runlog.CheckRunID(run); err != nil {
		return "", err
	}
	e, err := l.ids.Get(ctx, key(run))
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return "", fmt.Errorf("%w: %q", runlog.ErrUnknownRun, run)
	case err != nil:
		return "", fmt.Errorf("natslog: run %q: %w", run, err)
	}
	rec := parseIDRecord(e.Value())
	if rec.owner == "" {
		return "", nil
	}
	last, err := l.stream.GetLastMsgForSubject(ctx, l.SubjectOf(run))
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return rec.owner, nil
	case err != nil:
		return "", fmt.Errorf("natslog: run %q: %w", run, err)
	}
	if incOf(last.Header) != rec.inc {
		return "", nil
	}
	return rec.owner, nil
}

// Touch implements runlog.Presence: it records, in the live bucket, that a
// reader of run is connected now, for every replica to see.
func (l *Log) Touch(ctx context.Context, run string) error {
	if err := runlog.CheckRunID(run); err != nil {
		return err
	}
	if _, err := l.live.Put(ctx, "r."+key(run), nil); err != nil {
		return fmt.Errorf("natslog: run %q: %w", run, storeErr(err))
	}
	return nil
}

// LastSeen implements runlog.Presence: when run was last touched, by the
// clock of the NATS server that stored the touch (compare it with a
// tolerance for clock skew), or the zero time if not within PresenceTTL.
func (l *Log) LastSeen(ctx context.Context, run string) (time.Time, error) {
	if err := runlog.CheckRunID(run); err != nil {
		return time.Time{}, err
	}
	ctx, cancel := l.bounded(ctx)
	defer cancel()
	e, err := l.live.Get(ctx, "r."+key(run))
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return time.Time{}, nil
	case err != nil:
		return time.Time{}, fmt.Errorf("natslog: run %q: %w", run, err)
	}
	return e.Created(), nil
}

var (
	_ runlog.Presence     = (*Log)(nil)
	_ runlog.Owners       = (*Log)(nil)
	_ runlog.EventLimiter = (*Log)(nil)
	_ runlog.Aborter      = (*writer)(nil)
	_ runlog.Incarnated   = (*writer)(nil)
)
