package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/transport"
)

const serveSynopsis = `Serve runs a demo AG-UI endpoint. POST a RunAgentInput (JSON) to / and it
streams the built-in sample run that "agwire demo" shows (a weather
assistant), or with -i FILE the run recorded in FILE (JSON lines, SSE or
binary, told from its first bytes unless --from says), with the threadId
and runId of every RUN_STARTED and RUN_FINISHED replaced by the request's
(and RUN_STARTED's input by the request), so that a UI posting its own ids
sees them come back; the rest of each event, its timestamp too, is sent as
recorded. A recording with an event the server could never send on one of
its carriers (THINKING_*, which has no protobuf form; an event over the
codec's memory budget or the stock client's 10 MiB) is refused at load,
naming the record. Events go one every --delay as if the agent were thinking, or
with --pace timestamps as far apart as their timestamp fields say (each gap
at most --max-gap; an event without a timestamp waits --delay). The Accept
header chooses Server-Sent Events or the AG-UI 1.0 binary stream, and
Accept-Encoding zstd or gzip compression; the request is checked as any
transport handler checks it (400 for a body that is not a valid
RunAgentInput, naming the field; 405, 406, 413, 415). GET / answers
with a short help page, or, asked for application/json, with the agent's
capabilities (AG-UI AgentCapabilities: binary, streaming, resumable with
--resumable).

Behind a browser UI and proxies: --cors ORIGIN (repeatable, or a
comma-separated list; * allows every origin) lets web pages of those
origins call the endpoint: preflights are answered (cached 10 minutes),
and the UI may send Authorization besides the headers AG-UI uses. Every
stream carries a keep-alive after --heartbeat of silence, so that a proxy's
idle timeout does not cut a slow run: an SSE comment, or, to a binary client
that asks with the header Agwire-Keepalive: 1 (agwire's client does), a
zero-length frame.

Each request is logged on standard error: method, path, status, content type
and coding, events written, duration. SIGINT (Ctrl-C) or SIGTERM stops the
server: it waits for the runs in progress to end, at most 5s, then ends them
with a RUN_ERROR event.

With --resumable each run's events go to an in-memory run log, and every
response is served from it: each SSE event carries its cursor as its id, a
binary response names where it starts in the Agwire-Cursor header, and a
request with Last-Event-ID resumes the run after that cursor without running
it again. GET /runs/RUN_ID follows a run from the start, or from
Last-Event-ID (agwire follow does this). A run whose clients all left
waits --reconnect-grace for one to come back (a follower counts) before it
ends with RUN_ERROR (a negative grace waits for none: the run ends when its
client leaves, and its RUN_ERROR says so); with --detach it goes on without clients until the
server stops. --auth bearer needs a bearer token (Authorization: Bearer
TOKEN) on every run request (403 without one) and binds each run to the
token of the request that started it: the run log records the token's
SHA-256 with the run once the run has started, never the token itself,
and keeps it as long as it keeps the run (with --nats, in the stream's ids
bucket, for every replica). Resuming or following a run with another
token, or none, is answered 404 exactly as a run that does not exist;
starting a run of an id the log holds is answered 409, whoever started it.
Without it a run's id is all a client needs to read it. --nats URL keeps the runs
on NATS JetStream instead, in the build of runlog/natslog/cmd/agwire.

Slow and idle clients are cut off: a request must arrive whole (headers and
body) within --read-timeout, a connection idle between requests is closed
after --idle-timeout, and a client that stops reading the stream fails the
run once one event has waited --write-timeout to be written. A run itself
may last as long as it likes.`

const serveExample = `  agwire serve --resumable --detach   # then: agwire follow http://127.0.0.1:8080/ r1
  agwire serve
  curl -N -H 'Content-Type: application/json' \
      -d '{"threadId":"t1","runId":"r1","messages":[]}' http://127.0.0.1:8080/
  curl -sN -H 'Content-Type: application/json' -H 'Accept: ` + transport.MediaTypeBinary + `' \
      -d '{"threadId":"t1","runId":"r1","messages":[]}' http://127.0.0.1:8080/ | agwire decode
  agwire serve --addr 127.0.0.1:9000 --delay 0 --compression none
  agwire serve -i recorded.sse --pace timestamps --max-gap 2s --cors http://localhost:5173
`

// serveShutdownTimeout is how long a stopping server waits for the runs in
// progress before it ends them. Tests shorten it.
var serveShutdownTimeout = 5 * time.Second

// errShuttingDown ends the runs still going when the server stops; the
// client reads it in a RUN_ERROR event.
var errShuttingDown = errors.New("the server is shutting down")

func runServe(o Options, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newBareCLI("serve", serveSynopsis, serveExample, stdin, stdout, stderr)
	addr := c.fs.String("addr", "127.0.0.1:8080", "listen on `HOST:PORT` (port 0 picks a free one)")
	delay := c.fs.Duration("delay", 50*time.Millisecond, "wait `DURATION` between two events (0 sends the run at once)")
	readTimeout := c.fs.Duration("read-timeout", 30*time.Second, "close a connection whose request (headers and body) has not arrived whole\nafter `DURATION`")
	idleTimeout := c.fs.Duration("idle-timeout", 60*time.Second, "close a kept-alive connection idle for `DURATION` between requests")
	writeTimeout := c.fs.Duration("write-timeout", 30*time.Second, "end a run when one event has waited `DURATION` to be written (the client\nstopped reading)")
	compression := c.fs.String("compression", transport.EncodingZstd+","+transport.EncodingGzip,
		"the content codings offered, in order of preference, when the client's\nAccept-Encoding asks: `LIST` of zstd and gzip, or none")
	resumable := c.fs.Bool("resumable", false, "keep each run in an in-memory run log: a cut client resumes with\nLast-Event-ID, and GET /runs/RUN_ID follows a run (agwire follow)")
	detach := c.fs.Bool("detach", false, "with --resumable: a run goes on when its client leaves, until the\nserver stops")
	natsURL := c.fs.String("nats", "", "with --resumable: keep runs on NATS JetStream at `URL` (stream AGWIRE_RUNS),\nshared by every server given the same URL; needs the build of\nrunlog/natslog/cmd/agwire")
	heartbeat := c.fs.Duration("heartbeat", transport.DefaultHeartbeat, "send a keep-alive after `DURATION` without an event: an SSE comment, or a\nzero-length frame to a binary client that asks (Agwire-Keepalive: 1)\n(0: the default; negative, such as -1s: none)")
	c.fs.StringVar(&c.in, "i", "", "serve the run recorded in `FILE` (JSON lines, SSE or binary; - is standard\ninput) instead of the built-in one")
	var from streamFormat
	c.fs.Var(&from, "from", "with -i: `sse|jsonl|binary`, the file's format; told from its first bytes\nwhen omitted")
	pace := paceDelay
	c.fs.Var(&pace, "pace", "`delay|timestamps`: send the events --delay apart, or as far apart as their\ntimestamp fields (milliseconds) say")
	maxGap := c.fs.Duration("max-gap", 5*time.Second, "with --pace timestamps: wait at most `DURATION` between two events")
	var cors listFlag
	c.fs.Var(&cors, "cors", "let web pages of `ORIGIN` call the endpoint from the browser (CORS):\nrepeatable, or a comma-separated list; * allows every origin")
	auth := c.fs.String("auth", "", "`bearer`: every run request needs Authorization: Bearer TOKEN, and a run\nis bound to the token that started it: with --resumable, resuming or\nfollowing it with another token is answered 404, as a run that does not exist")
	grace := c.fs.Duration("reconnect-grace", transport.DefaultReconnectGrace, "with --resumable: keep a run going `DURATION` after its last client left,\nfor one to resume it (0: the default; negative, such as -1s: none, the run\nends when its client leaves)")
	if code, ok := c.parse(args); !ok {
		return code
	}
	if (*detach || *natsURL != "") && !*resumable {
		return c.usageErrorf("--detach and --nats need --resumable")
	}
	if *maxGap <= 0 {
		return c.usageErrorf("--max-gap must be positive")
	}
	if c.in == "" && (from != "" || pace == paceTimestamps) {
		return c.usageErrorf("--from and --pace timestamps need -i FILE (the built-in run has no recorded pace)")
	}
	if len(cors) > 0 {
		// The handler's own check, for a usage error that names the flag.
		if _, err := transport.NewHandler(func(context.Context, *http.Request, *event.RunAgentInput, transport.EventWriter) error { return nil },
			transport.HandlerOptions{CORS: corsOptions(cors)}); err != nil {
			return c.usageErrorf("--cors: %v", err)
		}
	}
	if *auth != "" && *auth != "bearer" {
		return c.usageErrorf("--auth %q: the one scheme is bearer", *auth)
	}
	if *natsURL != "" && o.OpenNATS == nil {
		c.failf("--nats: this build of agwire has no NATS support (the main module has no NATS dependency); build the one that has: (cd runlog/natslog && go build -o agwire ./cmd/agwire)")
		return exitFail
	}
	if *delay < 0 {
		return c.usageErrorf("--delay must not be negative")
	}
	for name, d := range map[string]time.Duration{"read-timeout": *readTimeout, "idle-timeout": *idleTimeout, "write-timeout": *writeTimeout} {
		if d <= 0 {
			return c.usageErrorf("--%s must be positive", name)
		}
	}
	codings, err := parseCodings(*compression)
	if err != nil {
		return c.usageErrorf("--compression: %v", err)
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			c.failf("cannot listen on %s: the address is already in use (another server is running there?); choose another with --addr", *addr)
		} else {
			c.failf("cannot listen on %s: %v", *addr, err)
		}
		return exitFail
	}
	logw := &lockedWriter{w: stderr}
	logger := log.New(logw, "agwire serve: ", log.LstdFlags|log.Lmsgprefix)
	runs, endRuns := context.WithCancelCause(context.Background())
	defer endRuns(errShuttingDown)
	var recorded *recordedRun
	if c.in != "" {
		if recorded, err = loadRecorded(c.in, stdin, from); err != nil {
			c.failf("-i: %v", err)
			return exitFail
		}
		if recorded.skipped > 0 {
			c.notef("-i %s: %s of types this version does not know skipped", c.in, plural(int64(recorded.skipped), "event"))
		}
	}
	opts := serveOptions{
		cors:         cors,
		auth:         *auth,
		detach:       *detach,
		grace:        *grace,
		heartbeat:    *heartbeat,
		runs:         runs,
		delay:        *delay,
		compression:  codings,
		log:          logger,
		errorLog:     slog.New(slog.NewTextHandler(logw, nil)),
		readTimeout:  *readTimeout,
		idleTimeout:  *idleTimeout,
		writeTimeout: *writeTimeout,
	}
	switch {
	case *natsURL != "":
		l, err := o.OpenNATS(context.Background(), *natsURL)
		if err != nil {
			ln.Close()
			c.failf("--nats %s: %v", *natsURL, err)
			return exitFail
		}
		opts.runLog = l
	case *resumable:
		mem := runlog.NewMemory(runlog.MemoryOptions{})
		defer mem.Close()
		opts.runLog = mem
	}
	if recorded != nil {
		opts.recorded = c.in
		opts.events = recorded.events
		opts.gaps = gaps(recorded.events, pace, *delay, *maxGap)
	}
	h, err := newServeHandler(opts)
	if err != nil {
		ln.Close()
		c.failf("%v", err)
		return exitFail
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C kills the process at once
	}()
	url := serverURL(ln.Addr())
	what := "demo AG-UI agent"
	if recorded != nil {
		what = fmt.Sprintf("AG-UI agent replaying %s (%s)", describeInput(c.in), plural(int64(len(recorded.events)), "event"))
	}
	if *natsURL != "" {
		// Say where the runs are: an operator starting replicas sees
		// which share them (the same servers and stream).
		what += ", its runs on NATS JetStream at " + withoutCredentials(*natsURL)
		if s, ok := opts.runLog.(interface{ StreamName() string }); ok {
			what += " (stream " + s.StreamName() + ")"
		}
		what += ","
	}
	logger.Printf("%s listening on %s (POST a RunAgentInput; GET %s for help; Ctrl-C stops)", what, url, url)
	if err := serveOn(ctx, ln, h, opts); err != nil {
		logger.Printf("%v", err)
		return exitFail
	}
	logger.Printf("stopped")
	return exitOK
}

// parseCodings parses --compression: "none" (or "off", "false", "") for
// none, else a comma-separated list of zstd and gzip.
func parseCodings(s string) ([]string, error) {
	switch strings.TrimSpace(s) {
	case "", "none", "off", "false":
		return nil, nil
	}
	var out []string
	for c := range strings.SplitSeq(s, ",") {
		c = strings.ToLower(strings.TrimSpace(c))
		switch c {
		case transport.EncodingZstd, transport.EncodingGzip:
		default:
			return nil, fmt.Errorf("unknown coding %q: want zstd, gzip or none", c)
		}
		for _, have := range out {
			if have == c {
				return nil, fmt.Errorf("%s listed twice", c)
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// serverURL is the URL a client on this machine uses to reach the
// listener: an unspecified address (0.0.0.0, ::) becomes localhost.
// withoutCredentials is a NATS URL list as it can be printed: each URL
// without what precedes an @ in its host part (a user and password, or a
// token).
func withoutCredentials(urls string) string {
	list := strings.Split(urls, ",")
	for i, u := range list {
		u = strings.TrimSpace(u)
		if at := strings.LastIndexByte(u, '@'); at >= 0 {
			scheme := ""
			if j := strings.Index(u, "://"); j >= 0 && j < at {
				scheme = u[:j+3]
			}
			u = scheme + u[at+1:]
		}
		list[i] = u
	}
	return strings.Join(list, ",")
}

func serverURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String() + "/"
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}

// serveOn serves h on ln until ctx is done, then shuts the server down:
// it stops accepting, waits up to serveShutdownTimeout for the requests in
// progress, then ends the runs still going (their clients get a RUN_ERROR
// event) and closes what is left. It returns an error only if the server
// failed.
//
// The server's timeouts are those a transport handler (transport.NewHandler) needs: ReadTimeout
// bounds reading the request, headers and body (not the run: net/http does
// not cancel a request whose body was read in time),
// ReadHeaderTimeout the headers alone, IdleTimeout a kept-alive connection
// between requests. WriteTimeout stays 0: it would bound the whole
// response, that is the whole run; the Handler's per-event
// HandlerOptions.WriteTimeout bounds a client that stops reading instead.
func serveOn(ctx context.Context, ln net.Listener, h http.Handler, opts serveOptions) error {
	logger := opts.log
	if logger == nil {
		logger = log.New(io.Discard, "", 0)
	}
	runs, endRuns := context.WithCancelCause(context.Background())
	defer endRuns(nil)
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: min(10*time.Second, orDefault(opts.readTimeout, 30*time.Second)),
		ReadTimeout:       orDefault(opts.readTimeout, 30*time.Second),
		IdleTimeout:       orDefault(opts.idleTimeout, 60*time.Second),
		BaseContext:       func(net.Listener) context.Context { return runs },
		ErrorLog:          log.New(logger.Writer(), logger.Prefix()+"http: ", logger.Flags()),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}

	logger.Printf("shutting down")
	wait, cancel := context.WithTimeout(context.Background(), serveShutdownTimeout)
	err := srv.Shutdown(wait)
	cancel()
	if err != nil {
		logger.Printf("runs still going after %v: ending them", serveShutdownTimeout)
		endRuns(errShuttingDown)
		wait, cancel := context.WithTimeout(context.Background(), time.Second)
		if srv.Shutdown(wait) != nil {
			srv.Close()
		}
		cancel()
	}
	<-served // http.ErrServerClosed
	return nil
}

// serveOptions configures the demo endpoint.
type serveOptions struct {
	delay       time.Duration         // between two events, when gaps is nil
	events      []event.Event         // the run served; nil: the built-in one
	gaps        []time.Duration       // the wait before each of events; nil: delay
	recorded    string                // the file events came from, for the help page
	cors        []string              // CORSOptions.AllowOrigins; none: no CORS
	auth        string                // "bearer": runs bound to their starter's bearer token; "": none
	compression transport.Compression // HandlerOptions.Compression
	log         *log.Logger           // the request log; nil logs nothing
	errorLog    *slog.Logger          // HandlerOptions.ErrorLog

	// Resumable runs: runLog nil serves each run to its client only.
	runLog    runlog.Log
	detach    bool            // HandlerOptions.Detach
	grace     time.Duration   // HandlerOptions.ReconnectGrace: 0 the default, negative none
	heartbeat time.Duration   // HandlerOptions.Heartbeat: 0 the default, negative none
	runs      context.Context // HandlerOptions.RunContext: ends at shutdown

	// The limits on slow clients; 0 means the --flag's default.
	readTimeout  time.Duration // http.Server.ReadTimeout
	idleTimeout  time.Duration // http.Server.IdleTimeout
	writeTimeout time.Duration // HandlerOptions.WriteTimeout, per event
}

// orDefault returns d, or def when d is 0.
func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// demoServer is the demo endpoint: the help page on GET /, the built-in run
// on POST /.
type demoServer struct {
	opts   serveOptions
	events []event.Event // the built-in run, shared by all requests: read only
	run    http.Handler  // transport.NewHandler's
	follow http.Handler  // transport.NewFollowHandler's, with a run log
}

// newServeHandler returns the demo endpoint's handler.
func newServeHandler(opts serveOptions) (http.Handler, error) {
	s := &demoServer{opts: opts, events: opts.events}
	if s.events == nil {
		for i, line := range bytes.Split(demoRun, []byte("\n")) {
			if line = bytes.TrimSpace(line); len(line) == 0 {
				continue
			}
			ev, err := event.Parse(line)
			if err != nil {
				return nil, fmt.Errorf("the built-in run, line %d: %w", i+1, err)
			}
			s.events = append(s.events, ev)
		}
	}
	caps := demoCapabilities()
	if opts.events != nil {
		caps = recordedCapabilities(opts.recorded, opts.events)
	}
	ho := transport.HandlerOptions{
		Compression:  opts.compression,
		WriteTimeout: orDefault(opts.writeTimeout, 30*time.Second),
		ErrorLog:     opts.errorLog,
		Capabilities: caps,
		Heartbeat:    opts.heartbeat,
		// curl sends "Accept: */*": keep SSE, readable in a terminal, for
		// clients that do not name the binary type.
		WildcardSSE: true,
	}
	if len(opts.cors) > 0 {
		ho.CORS = corsOptions(opts.cors)
	}
	if opts.auth == "bearer" {
		// With a log, each run is bound to the token that started it,
		// recorded by the log with the run; without one, a run goes to its
		// starter only, and a token is all there is to check.
		if opts.runLog != nil {
			ho.Principal = bearerPrincipal
		} else {
			ho.Authorize = requireBearer
		}
	}
	if opts.runLog != nil {
		ho.Log, ho.Detach = opts.runLog, opts.detach
		ho.ReconnectGrace = opts.grace
		if opts.detach || opts.grace >= 0 {
			ho.RunContext = opts.runs
		}
		follow, err := transport.NewFollowHandler(opts.runLog, transport.FollowOptions{
			WildcardSSE:  true,
			Compression:  opts.compression,
			WriteTimeout: ho.WriteTimeout,
			Heartbeat:    opts.heartbeat,
			CORS:         ho.CORS,
			ErrorLog:     opts.errorLog,
			Principal:    ho.Principal,
		})
		if err != nil {
			return nil, err
		}
		s.follow = follow
	}
	run, err := transport.NewHandler(s.stream, ho)
	if err != nil {
		return nil, err
	}
	s.run = run
	return s, nil
}

// corsOptions are the CORS options of serve --cors: the origins, the
// Authorization header a UI may send with its requests, and preflights
// cached for 10 minutes.
func corsOptions(origins []string) *transport.CORSOptions {
	return &transport.CORSOptions{AllowOrigins: origins, AllowHeaders: []string{"Authorization"}, MaxAge: 10 * time.Minute}
}

// demoCapabilities is what the demo agent says it does (the handler adds
// the transport flags): the built-in run streams text, reasoning, tool
// calls and state snapshots and deltas.
func demoCapabilities() *event.AgentCapabilities {
	yes, name, desc := true, "agwire serve", "the built-in demo run of agwire: a weather assistant"
	return &event.AgentCapabilities{
		Identity:  &event.IdentityCapabilities{Name: &name, Description: &desc},
		Tools:     &event.ToolsCapabilities{Supported: &yes},
		State:     &event.StateCapabilities{Snapshots: &yes, Deltas: &yes},
		Reasoning: &event.ReasoningCapabilities{Supported: &yes, Streaming: &yes},
	}
}

// wantsJSON reports whether a GET asks for JSON (the capabilities) rather
// than the help page: its Accept names application/json and not text/html.
func wantsJSON(r *http.Request) bool {
	a := strings.ToLower(strings.Join(r.Header.Values("Accept"), ","))
	return strings.Contains(a, "application/json") && !strings.Contains(a, "text/html")
}

// runStats is what the request log says about a run. A resumable run may
// outlive its response, so err is guarded.
type runStats struct {
	delivered transport.ResponseStats // the events the response delivered
	mu        sync.Mutex
	err       error // why the run stopped early
}

func (s *runStats) setErr(err error) {
	s.mu.Lock()
	s.err = err
	s.mu.Unlock()
}

func (s *runStats) getErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

type runStatsKey struct{}

func (s *demoServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &responseRecorder{ResponseWriter: w}
	stats := &runStats{}
	switch {
	case s.follow != nil && strings.HasPrefix(r.URL.Path, "/runs/") && (r.Method == http.MethodGet || r.Method == http.MethodOptions):
		r.SetPathValue("run", strings.TrimPrefix(r.URL.Path, "/runs/"))
		s.follow.ServeHTTP(rec, r)
	case r.URL.Path != "/":
		http.Error(rec, "404 not found: the demo AG-UI agent is at /", http.StatusNotFound)
	case (r.Method == http.MethodGet || r.Method == http.MethodHead) && wantsJSON(r):
		s.run.ServeHTTP(rec, r) // the capabilities
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		s.help(rec, r)
	case r.Method == http.MethodOptions && len(s.opts.cors) > 0:
		s.run.ServeHTTP(rec, r) // a CORS preflight
	case r.Method == http.MethodPost:
		ctx := transport.WithResponseStats(context.WithValue(r.Context(), runStatsKey{}, stats), &stats.delivered)
		s.run.ServeHTTP(rec, r.WithContext(ctx))
	default:
		rec.Header().Set("Allow", "GET, HEAD, POST")
		http.Error(rec, "405 method not allowed: POST a RunAgentInput to start a run, GET for help", http.StatusMethodNotAllowed)
	}
	if s.opts.log != nil {
		s.opts.log.Print(requestLine(r, rec, stats, time.Since(start)))
	}
}

// requestLine is the request log's line for a request:
//
//	127.0.0.1:50412 POST / 200 application/vnd.ag-ui.event+proto zstd, 27 events, 1.502s
func requestLine(r *http.Request, rec *responseRecorder, stats *runStats, d time.Duration) string {
	status := rec.status
	if status == 0 {
		status = http.StatusOK // the header went out with a flush
	}
	ct, _, err := mime.ParseMediaType(rec.Header().Get("Content-Type"))
	if err != nil {
		ct = "-"
	}
	coding := rec.Header().Get("Content-Encoding")
	if coding == "" {
		coding = "identity"
	}
	line := fmt.Sprintf("%s %s %s %d %s", r.RemoteAddr, r.Method, r.URL.Path, status, ct)
	if r.Method == http.MethodPost && status == http.StatusOK {
		line += fmt.Sprintf(" %s, %s", coding, plural(stats.delivered.Events, "event"))
	}
	line += fmt.Sprintf(", %v", d.Round(time.Microsecond))
	switch err := stats.getErr(); {
	case err == nil:
	case errors.Is(err, context.Canceled):
		line += ", stopped: the client went away"
	default:
		line += ", stopped: " + err.Error()
	}
	if status >= 400 {
		msg, _, _ := strings.Cut(strings.TrimSpace(string(rec.body)), "\n")
		line += ": " + msg
	}
	return line
}

// stream is the run: the built-in or recorded events, the request's ids
// in RUN_STARTED and RUN_FINISHED, the request itself as RUN_STARTED's
// input (the protocol's echo), opts.delay apart or as opts.gaps say.
func (s *demoServer) stream(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
	stats, _ := ctx.Value(runStatsKey{}).(*runStats)
	if stats == nil {
		stats = &runStats{}
	}
	// The run needs its input for RUN_STARTED only: once that is written it
	// lets go of it, so that a long run does not hold a large request.
	threadID, runID := strings.Clone(in.ThreadID), strings.Clone(in.RunID) // not pieces of the body
	var timer *time.Timer
	for i, ev := range s.events {
		gap := s.opts.delay
		if s.opts.gaps != nil {
			gap = s.opts.gaps[i]
		}
		if i > 0 && gap > 0 {
			if timer == nil {
				timer = time.NewTimer(gap)
				defer timer.Stop()
			} else {
				timer.Reset(gap)
			}
			select {
			case <-ctx.Done():
				err := context.Cause(ctx)
				stats.setErr(err)
				return err
			case <-timer.C:
			}
		}
		switch e := ev.(type) {
		case *event.RunStarted:
			c := *e
			c.ThreadID, c.RunID, c.Input = threadID, runID, in
			ev = &c
		case *event.RunFinished:
			c := *e
			c.ThreadID, c.RunID = threadID, runID
			ev = &c
		}
		err := w.WriteEvent(ev)
		if ev.Type() == event.TypeRunStarted {
			in, ev = nil, nil
		}
		if err != nil {
			stats.setErr(err)
			return err
		}
	}
	return nil
}

// help writes the help page, with curl commands for this server's URL.
func (s *demoServer) help(w http.ResponseWriter, r *http.Request) {
	url := "http://" + r.Host + "/"
	if r.Host == "" {
		url = "http://127.0.0.1:8080/"
	}
	body := `{"threadId":"t1","runId":"r1","messages":[{"id":"m1","role":"user","content":"Weather in Lisbon?"}]}`
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	fmt.Fprintf(w, `agwire serve: a demo AG-UI endpoint at

  %[1]s

POST a RunAgentInput (Content-Type: application/json) here and it streams
%[2]s, with your threadId
and runId in RUN_STARTED and RUN_FINISHED. The Accept header picks the
transport: %[3]s (the default) or
%[4]s; Accept-Encoding picks zstd or gzip
compression%[5]s.

As Server-Sent Events:

  curl -N -H 'Content-Type: application/json' \
      -d '%[6]s' \
      %[1]s

As the AG-UI 1.0 binary stream, decoded to JSON lines:

  curl -sN -H 'Content-Type: application/json' -H 'Accept: %[4]s' \
      -d '%[6]s' \
      %[1]s | agwire decode
`, url, s.describeRun(), transport.MediaTypeSSE, transport.MediaTypeBinary, s.compressionNote(), body)
}

// describeRun says what the server streams, for the help page.
func (s *demoServer) describeRun() string {
	if s.opts.events != nil {
		return fmt.Sprintf("the run recorded in %s (%s)", describeInput(s.opts.recorded), plural(int64(len(s.events)), "event"))
	}
	return fmt.Sprintf("a built-in sample run of %d events (a weather assistant)", len(s.events))
}

func (s *demoServer) compressionNote() string {
	if len(s.opts.compression) == 0 {
		return " (off on this server)"
	}
	return ""
}

// responseRecorder notes the status of a response and the start of an
// error body, for the request log. Unwrap lets http.ResponseController
// reach the connection's Flush and SetWriteDeadline.
type responseRecorder struct {
	http.ResponseWriter
	status int
	body   []byte // the first bytes of an error response's body
}

func (r *responseRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *responseRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if r.status >= 400 && len(r.body) < 512 {
		r.body = append(r.body, b[:min(len(b), 512-len(r.body))]...)
	}
	return r.ResponseWriter.Write(b)
}

func (r *responseRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// lockedWriter serializes the writes of the request log, the handler's
// error log and the http.Server's to one stderr.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
