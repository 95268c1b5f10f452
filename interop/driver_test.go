package interop

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// ErrUnavailable reports that the reference peer cannot be started here:
// node is not on PATH, or the pinned packages are not installed in
// interop/node_modules. Install them with `cd interop && npm ci`.
var ErrUnavailable = errors.New("interop: reference peer unavailable")

// InstallHint says how to make the reference peer available.
const InstallHint = "install the pinned TypeScript peer with `cd interop && npm ci` (Node 20+ on PATH)"

// DefaultTimeout is how long a Peer waits for each response when
// Options.Timeout is 0.
const DefaultTimeout = 10 * time.Second

// DefaultStartTimeout is how long Start waits for the peer's first answer
// when Options.StartTimeout is 0. Loading the peer's modules is the slow
// part: well under a second on an idle machine, several seconds on a busy
// CI runner.
const DefaultStartTimeout = 60 * time.Second

// Options configures Start.
type Options struct {
	// Dir holds peer.mjs and node_modules. Empty means the directory this
	// source file was compiled from (the interop directory of the module),
	// falling back to the working directory.
	Dir string
	// Node is the node executable; empty means "node" looked up on PATH.
	Node string
	// Timeout bounds the wait for each response; 0 means DefaultTimeout. A
	// peer that does not answer in time is killed, and the Peer is broken
	// from then on: every later call fails at once.
	Timeout time.Duration
	// StartTimeout bounds the wait for the first answer, while node loads
	// the peer; 0 means DefaultStartTimeout.
	StartTimeout time.Duration
	// Stderr, when set, receives a copy of everything the peer prints on
	// stderr (its warnings among them).
	Stderr io.Writer
}

// Request is one request to `node peer.mjs serve` (see README.md); build it
// with the *Request constructors. The id is assigned by Peer.Do.
type Request struct {
	Op        string            `json:"op"`
	Event     json.RawMessage   `json:"event,omitempty"`
	Events    []json.RawMessage `json:"events,omitempty"`
	Accept    string            `json:"accept,omitempty"`
	Hex       *string           `json:"hex,omitempty"`
	Chunks    []string          `json:"chunks,omitempty"`
	ChunkSize int               `json:"chunkSize,omitempty"`
}

// EncodeRequest asks the peer for proto.encode(event). The event's JSON text
// is sent as it is, so its key order and number spelling reach JSON.parse on
// the peer's side unchanged.
func EncodeRequest(event json.RawMessage) Request {
	return Request{Op: "encode", Event: event}
}

// DecodeRequest asks the peer for proto.decode(payload).
func DecodeRequest(payload []byte) Request {
	h := hex.EncodeToString(payload)
	return Request{Op: "decode", Hex: &h}
}

// FrameRequest asks the peer's EventEncoder to frame events (4-byte
// big-endian length prefixes with the default accept type).
func FrameRequest(events []json.RawMessage) Request {
	return Request{Op: "frame", Events: events}
}

// ParseStreamRequest feeds stream to the peer's parseProtoStream, as one data
// chunk when chunkSize is 0, else split every chunkSize bytes.
func ParseStreamRequest(stream []byte, chunkSize int) Request {
	h := hex.EncodeToString(stream)
	return Request{Op: "parseStream", Hex: &h, ChunkSize: chunkSize}
}

// VersionsRequest asks for the installed versions of the peer packages.
func VersionsRequest() Request { return Request{Op: "versions"} }

// Response is the peer's answer to one Request. Which fields are set depends
// on the op; see README.md.
type Response struct {
	ID           int64             `json:"id"`
	OK           bool              `json:"ok"`
	Hex          string            `json:"hex"`
	Event        json.RawMessage   `json:"event"`
	Events       []json.RawMessage `json:"events"`
	ContentType  string            `json:"contentType"`
	FrameLengths []int             `json:"frameLengths"`
	Versions     map[string]string `json:"versions"`
	Error        string            `json:"error"`
	ErrorName    string            `json:"errorName"`
	ErrorClass   string            `json:"errorClass"`
	Warned       bool              `json:"warned"`
	Warnings     []string          `json:"warnings"`

	// Line is the response line as the peer wrote it, without the newline.
	Line []byte `json:"-"`
}

// Bytes returns the decoded Hex field.
func (r *Response) Bytes() ([]byte, error) { return hex.DecodeString(r.Hex) }

// Err returns nil for a successful response and a *PeerError otherwise.
func (r *Response) Err() error {
	if r.OK {
		return nil
	}
	return &PeerError{Message: r.Error, Name: r.ErrorName, Class: r.ErrorClass}
}

// PeerError is an error the peer threw while handling a request.
type PeerError struct {
	Message string
	// Name is "AGUIUnknownEventTypeError" for the peer's "event from a later
	// protocol" error and "Error" for everything else.
	Name string
	// Class is the thrown error's own class name ("RequestError" for a
	// request the driver could not understand).
	Class string
}

func (e *PeerError) Error() string {
	return fmt.Sprintf("peer threw %s (%s): %s", e.Name, e.Class, e.Message)
}

// Peer is a running `node peer.mjs serve`. Its methods are safe for
// concurrent use; requests are handled one batch at a time, in order.
type Peer struct {
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	lines    chan lineResult
	quit     chan struct{}
	exited   chan struct{}
	waitErr  error
	stderr   *tailBuffer
	timeout  time.Duration
	versions map[string]string

	mu     sync.Mutex
	nextID int64
	broken error

	closeOnce sync.Once
	closeErr  error
}

type lineResult struct {
	line []byte
	err  error
}

// Start starts `node peer.mjs serve` and checks that it answers. It fails
// with an error wrapping ErrUnavailable when node or the installed peer
// packages are missing.
func Start(opts Options) (*Peer, error) {
	dir := opts.Dir
	if dir == "" {
		dir = sourceDir()
	}
	node := opts.Node
	if node == "" {
		node = "node"
	}
	nodePath, err := exec.LookPath(node)
	if err != nil {
		return nil, fmt.Errorf("%w: %s not found (%v); %s", ErrUnavailable, node, err, InstallHint)
	}
	script := filepath.Join(dir, "peer.mjs")
	if _, err := os.Stat(script); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	for _, pkg := range []string{"proto", "core", "encoder", "client"} {
		manifest := filepath.Join(dir, "node_modules", "@ag-ui", pkg, "package.json")
		if _, err := os.Stat(manifest); err != nil {
			return nil, fmt.Errorf("%w: @ag-ui/%s is not installed in %s; %s", ErrUnavailable, pkg, filepath.Join(dir, "node_modules"), InstallHint)
		}
	}

	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	cmd := exec.Command(nodePath, "peer.mjs", "serve")
	cmd.Dir = dir
	// The peer refuses to run with its warnings silenced; make sure it can
	// run and that they stay visible.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SUPPRESS_TRANSFORMATION_WARNINGS=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	p := &Peer{
		cmd:     cmd,
		lines:   make(chan lineResult, 64),
		quit:    make(chan struct{}),
		exited:  make(chan struct{}),
		stderr:  &tailBuffer{max: 64 << 10, copy: opts.Stderr},
		timeout: timeout,
	}
	cmd.Stderr = p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// A pipe of our own rather than cmd.StdoutPipe: Wait closes the latter as
	// soon as the process exits, which could drop responses not yet read.
	stdout, stdoutW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = stdoutW
	p.stdin = stdin
	err = cmd.Start()
	stdoutW.Close()
	if err != nil {
		stdout.Close()
		return nil, fmt.Errorf("interop: starting %s peer.mjs serve: %w", nodePath, err)
	}
	go func() {
		defer stdout.Close()
		p.readLines(stdout)
	}()
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()

	startTimeout := opts.StartTimeout
	if startTimeout <= 0 {
		startTimeout = DefaultStartTimeout
	}
	resp, err := p.do(startTimeout, []Request{VersionsRequest()})
	if err != nil {
		p.Close()
		return nil, err
	}
	if err := resp[0].Err(); err != nil {
		p.Close()
		return nil, fmt.Errorf("interop: versions request failed: %w", err)
	}
	p.versions = resp[0].Versions
	return p, nil
}

// sourceDir is the directory of this file at build time, when it exists.
func sourceDir() string {
	if _, file, _, ok := runtime.Caller(0); ok {
		dir := filepath.Dir(file)
		if _, err := os.Stat(filepath.Join(dir, "peer.mjs")); err == nil {
			return dir
		}
	}
	return "."
}

func (p *Peer) readLines(stdout io.Reader) {
	r := bufio.NewReaderSize(stdout, 1<<16)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			if len(line) > 0 && err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			select {
			case p.lines <- lineResult{err: err}:
			case <-p.quit:
			}
			return
		}
		select {
		case p.lines <- lineResult{line: bytes.TrimSuffix(line, []byte("\n"))}:
		case <-p.quit:
			return
		}
	}
}

// Versions returns the installed versions of the four peer packages.
func (p *Peer) Versions() map[string]string { return p.versions }

// Do sends reqs in one pipelined batch and returns their responses, in
// order. Each response must arrive within the Peer's timeout of the previous
// one; otherwise the peer is killed and Do fails, as does every later call.
// A peer that throws is not an error of Do: see Response.Err.
func (p *Peer) Do(reqs ...Request) ([]Response, error) { return p.do(p.timeout, reqs) }

func (p *Peer) do(timeout time.Duration, reqs []Request) ([]Response, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.broken != nil {
		return nil, p.broken
	}

	var batch bytes.Buffer
	enc := json.NewEncoder(&batch)
	enc.SetEscapeHTML(false)
	first := p.nextID + 1
	for i, req := range reqs {
		wire := struct {
			ID int64 `json:"id"`
			Request
		}{first + int64(i), req}
		if err := enc.Encode(&wire); err != nil { // Encode appends the newline
			return nil, fmt.Errorf("interop: request %d (%s): %w", i, req.Op, err)
		}
	}
	p.nextID += int64(len(reqs))

	// Write concurrently with reading: the peer answers while it reads, and
	// both pipes are bounded.
	written := make(chan error, 1)
	go func() {
		_, err := p.stdin.Write(batch.Bytes())
		written <- err
	}()

	out := make([]Response, 0, len(reqs))
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for i, req := range reqs {
		timer.Reset(timeout)
		var lr lineResult
		select {
		case lr = <-p.lines:
		case <-timer.C:
			return nil, p.fail(fmt.Errorf("interop: peer did not answer request %d (%s) within %v; killed it", first+int64(i), req.Op, timeout))
		}
		if lr.err != nil {
			// The peer is gone; let its last words reach the stderr tail.
			select {
			case <-p.exited:
			case <-time.After(time.Second):
			}
			return nil, p.fail(fmt.Errorf("interop: peer stopped before answering request %d (%s): %v", first+int64(i), req.Op, lr.err))
		}
		var resp Response
		if err := json.Unmarshal(lr.line, &resp); err != nil {
			return nil, p.fail(fmt.Errorf("interop: response to request %d is not JSON: %v: %.200q", first+int64(i), err, lr.line))
		}
		if resp.ID != first+int64(i) {
			return nil, p.fail(fmt.Errorf("interop: expected the response to request %d, got %.200s", first+int64(i), lr.line))
		}
		resp.Line = lr.line
		out = append(out, resp)
	}
	timer.Reset(timeout)
	select {
	case err := <-written:
		if err != nil {
			return nil, p.fail(fmt.Errorf("interop: writing to the peer: %w", err))
		}
	case <-timer.C:
		return nil, p.fail(fmt.Errorf("interop: writing to the peer did not finish within %v", timeout))
	}
	return out, nil
}

// DoOne sends a single request.
func (p *Peer) DoOne(req Request) (Response, error) {
	resp, err := p.Do(req)
	if err != nil {
		return Response{}, err
	}
	return resp[0], nil
}

// fail marks the Peer broken, kills the process and returns err with the
// tail of the peer's stderr attached. Called with p.mu held.
func (p *Peer) fail(err error) error {
	_ = p.cmd.Process.Kill()
	if tail := p.stderr.String(); tail != "" {
		err = fmt.Errorf("%w\npeer stderr (tail):\n%s", err, tail)
	}
	p.broken = err
	return err
}

// Stderr returns the tail of what the peer has printed on stderr.
func (p *Peer) Stderr() string { return p.stderr.String() }

// Close ends the peer: it closes its stdin, waits for it to exit (killing it
// after the Peer's timeout) and stops the goroutines that serve it. It is
// safe to call more than once.
func (p *Peer) Close() error {
	p.closeOnce.Do(func() {
		_ = p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(p.timeout):
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
		close(p.quit)
		p.mu.Lock()
		if p.broken == nil {
			p.broken = errors.New("interop: peer closed")
			p.closeErr = p.waitErr
		}
		p.mu.Unlock()
	})
	return p.closeErr
}

// tailBuffer keeps the last max bytes written to it and copies everything to
// copy when set.
type tailBuffer struct {
	mu   sync.Mutex
	max  int
	buf  []byte
	copy io.Writer
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	if b.copy != nil {
		_, _ = b.copy.Write(p)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
