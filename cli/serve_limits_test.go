package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agwire/agwire/transport"
)

// guard bounds a test that waits for the server: it is a failure guard, far
// above the limits under test, not a measurement.
const guard = 20 * time.Second

func dialServe(t *testing.T, s *testServer) net.Conn {
	t.Helper()
	u, err := url.Parse(s.url)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestServeSlowBody: connections that send their body at a trickle are
// closed by the server once its read limit has passed, long before the
// body is complete.
func TestServeSlowBody(t *testing.T) {
	s := startServe(t, serveOptions{delay: 0, readTimeout: 300 * time.Millisecond})
	const conns = 50
	const bodyLen = 100000 // a trickle of a byte every 10ms would take 1000s
	var wg sync.WaitGroup
	sent := make([]int, conns)
	closed := make([]bool, conns)
	for i := range conns {
		c := dialServe(t, s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", bodyLen)
			gone := make(chan struct{})
			go func() {
				io.Copy(io.Discard, c) // returns when the server closes the connection
				close(gone)
			}()
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			deadline := time.After(guard)
			for sent[i] < bodyLen {
				select {
				case <-gone:
					closed[i] = true
					return
				case <-deadline:
					return
				case <-tick.C:
					if _, err := c.Write([]byte{' '}); err != nil {
						<-gone
						closed[i] = true
						return
					}
					sent[i]++
				}
			}
		}()
	}
	wg.Wait()
	for i := range conns {
		if !closed[i] || sent[i] >= bodyLen {
			t.Errorf("connection %d: closed by the server %v after %d of %d body bytes", i, closed[i], sent[i], bodyLen)
		}
	}
}

// TestServeIdle: a kept-alive connection idle after its request is closed
// by the server.
func TestServeIdle(t *testing.T) {
	s := startServe(t, serveOptions{delay: 0, idleTimeout: 300 * time.Millisecond})
	c := dialServe(t, s)
	fmt.Fprint(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Close {
		t.Fatalf("status %d, close %v: want a kept-alive 200", resp.StatusCode, resp.Close)
	}
	c.SetReadDeadline(time.Now().Add(guard))
	n, err := br.Read(make([]byte, 1))
	if n != 0 || err != io.EOF {
		t.Errorf("idle connection: read %d bytes, %v; want the server to close it (EOF)", n, err)
	}
}

// TestServeSlowHeaders: a request whose headers never finish is closed too.
func TestServeSlowHeaders(t *testing.T) {
	s := startServe(t, serveOptions{delay: 0, readTimeout: 300 * time.Millisecond})
	c := dialServe(t, s)
	fmt.Fprint(c, "POST / HTTP/1.1\r\nHost: x\r\n")
	c.SetReadDeadline(time.Now().Add(guard))
	_, err := io.Copy(io.Discard, c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Errorf("the server kept a connection with unfinished headers open")
	}
}

// TestServeLongRun: the read limit bounds reading the request, not the
// run: a run lasting several times the limit streams to its end.
func TestServeLongRun(t *testing.T) {
	s := startServe(t, serveOptions{delay: 40 * time.Millisecond, readTimeout: 100 * time.Millisecond, idleTimeout: 100 * time.Millisecond})
	for _, sse := range []bool{false, true} {
		r, err := startRun(context.Background(), nil, s.url, runInput("t", "r"), transport.ClientOptions{Prefer: prefer(sse)})
		if err != nil {
			t.Fatal(err)
		}
		got := readRun(t, r)
		r.Close()
		if want := wantDemoRun(t, "t", "r"); len(got) != len(want) {
			t.Errorf("SSE %v: %d events, want %d", sse, len(got), len(want))
		}
	}
}

// TestServeLimitFlags: the limits are flags, and must be positive.
func TestServeLimitFlags(t *testing.T) {
	out, _, _ := agwire(t, nil, "serve", "--help")
	for _, f := range []string{"--read-timeout DURATION", "--idle-timeout DURATION", "--write-timeout DURATION"} {
		if !strings.Contains(out, f) {
			t.Errorf("help lacks %s", f)
		}
	}
	for _, f := range []string{"--read-timeout", "--idle-timeout", "--write-timeout"} {
		if _, errOut, code := agwire(t, nil, "serve", f, "0s"); code != exitUsage || !strings.Contains(errOut, f+" must be positive") {
			t.Errorf("%s 0s: exit %d, %s", f, code, errOut)
		}
	}
}
