package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/transport"
)

// emptyMessagesBody is a RunAgentInput of about size bytes: empty user
// messages, the densest input per byte of JSON.
func emptyMessagesBody(size int) []byte {
	const msg = `{"id":"m","role":"user","content":""}`
	head := `{"threadId":"t","runId":"RUNID","messages":[`
	n := (size - len(head) - 2) / (len(msg) + 1)
	var b bytes.Buffer
	b.Grow(size)
	b.WriteString(head)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(msg)
	}
	b.WriteString("]}")
	return b.Bytes()
}

// procStatus returns a field of /proc/self/status in bytes (VmRSS,
// VmHWM), or -1 where there is none.
func procStatus(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return -1
			}
			return kb << 10
		}
	}
	return -1
}

func heapInuse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// cutRuns starts the demo server (resumable, the default 30 s grace, a run
// that takes its time), sends it n concurrent runs of a body of size bytes,
// cuts each response after its first bytes, and returns the live heap the
// server then holds for them (after GC, above the heap before) and the
// growth of the process's peak RSS (VmHWM after, less VmRSS before; -1
// where /proc or resetting the peak is not available).
func cutRuns(t *testing.T, n, size int) (heap, rss int64) {
	// When it returns, the server and its runs are gone, so that the next
	// measurement starts from a heap without them.
	goroutines := runtime.NumGoroutine()
	defer func() {
		for deadline := time.Now().Add(20 * time.Second); runtime.NumGoroutine() > goroutines && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
	}()
	mem := runlog.NewMemory(runlog.MemoryOptions{})
	defer mem.Close()
	runs, endRuns := context.WithCancel(context.Background())
	defer endRuns()
	s := startServe(t, serveOptions{delay: time.Hour, runLog: mem, grace: transport.DefaultReconnectGrace, runs: runs})
	defer s.stop()
	defer endRuns()
	body := emptyMessagesBody(size)

	before := heapInuse()
	rssBefore := procStatus("VmRSS")
	if os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) != nil { // resets VmHWM
		rssBefore = -1
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DisableCompression: true}}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			// The body is shared: its run id is the first bytes.
			head, tail, _ := bytes.Cut(body, []byte("RUNID"))
			b := io.MultiReader(bytes.NewReader(head), strings.NewReader(fmt.Sprintf("cut-%d-%04d", size, i)), bytes.NewReader(tail))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.url, b)
			req.ContentLength = int64(len(head) + len(tail) + len(fmt.Sprintf("cut-%d-%04d", size, i)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", transport.MediaTypeSSE)
			resp, err := client.Do(req)
			if err != nil {
				errs <- err
				return
			}
			var first [64]byte
			_, err = resp.Body.Read(first[:]) // the first bytes of RUN_STARTED
			resp.Body.Close()                 // then the client is cut
			if resp.StatusCode != http.StatusOK || err != nil {
				errs <- fmt.Errorf("run %d: %s, %v", i, resp.Status, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// Each run has logged its RUN_STARTED and waits for its next event, in
	// its grace: the server's responses end when they see their connection
	// closed.
	for i := range n {
		run := fmt.Sprintf("cut-%d-%04d", size, i)
		for deadline := time.Now().Add(time.Minute); ; {
			if rd, err := mem.Read(context.Background(), runlog.Cursor{Run: run}); err == nil {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
				_, err = rd.Next(ctx)
				cancel()
				rd.Close()
				if err == nil {
					break
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("run %s logged nothing in a minute", run)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	time.Sleep(300 * time.Millisecond)
	after := heapInuse()
	if rssBefore >= 0 {
		rss = procStatus("VmHWM") - rssBefore
	} else {
		rss = -1
	}
	return int64(after) - int64(before), rss
}

// Ten runs of 8 MiB inputs whose clients were cut right after the first
// bytes, left running for their reconnect grace, hold a bounded heap: what
// a run holds is its input parsed, once, and the log's copy of its
// RUN_STARTED, not several renderings of it; four times the input is
// about four times the memory. The peak RSS of the whole exchange stays
// under 700 MiB (it reached 1.2 GB when each run held its input in several
// forms). Measured: live heap (runtime.MemStats.HeapInuse after GC) above
// the heap before, and the peak RSS (/proc/self/status VmHWM, reset before)
// above the RSS before.
func TestServeMemoryOfCutRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 100 MB of requests")
	}
	n := 10
	if raceEnabled {
		n = 4 // the race detector slows parsing tenfold
	}
	heap2, _ := cutRuns(t, n, 2<<20)
	heap8, rss8 := cutRuns(t, n, transport.DefaultMaxBodyBytes-1024)
	per2, per8 := heap2/int64(n), heap8/int64(n)
	t.Logf("live heap per cut run: %.1f MiB with 2 MiB inputs, %.1f MiB with 8 MiB; peak RSS growth for %d runs of 8 MiB: %.0f MiB",
		float64(per2)/(1<<20), float64(per8)/(1<<20), n, float64(rss8)/(1<<20))
	if per8 > 5*(8<<20) {
		t.Errorf("a cut run of an 8 MiB input holds %.1f MiB of heap; want at most 5× its input", float64(per8)/(1<<20))
	}
	if r := float64(per8) / float64(per2); r < 2.5 || r > 5.5 {
		t.Errorf("4× the input holds %.1f× the heap per run; want about 4×", r)
	}
	if rss8 >= 0 && !raceEnabled && rss8 > 700<<20 {
		t.Errorf("peak RSS grew by %.0f MiB for %d cut runs of 8 MiB inputs; want at most 700 MiB", float64(rss8)/(1<<20), n)
	}
}

// stalledFollowers starts the demo server (resumable, a run that takes its
// time, a write timeout longer than the test), starts one run of a body of
// size bytes and lets its client go once RUN_STARTED is logged, then
// connects n followers of the run (over SSE or binary, as mediaType says)
// that read the response's first
// bytes and then nothing: each has had the server begin writing
// RUN_STARTED to it, and holds the server's write until the connection
// closes. It returns the live heap the server then holds (after GC, above
// the heap before) and the growth of the process's peak RSS (VmHWM after,
// less VmRSS before; -1 where /proc or resetting the peak is not
// available).
func stalledFollowers(t *testing.T, n, size int, mediaType string) (heap, rss int64) {
	goroutines := runtime.NumGoroutine()
	defer func() {
		for deadline := time.Now().Add(20 * time.Second); runtime.NumGoroutine() > goroutines && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
	}()
	mem := runlog.NewMemory(runlog.MemoryOptions{})
	defer mem.Close()
	runs, endRuns := context.WithCancel(context.Background())
	defer endRuns()
	s := startServe(t, serveOptions{delay: time.Hour, runLog: mem, grace: transport.DefaultReconnectGrace, runs: runs, writeTimeout: 10 * time.Minute})
	defer s.stop()
	defer endRuns()
	const run = "followed"
	body := bytes.Replace(emptyMessagesBody(size), []byte("RUNID"), []byte(run), 1)

	before := heapInuse()
	rssBefore := procStatus("VmRSS")
	if os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) != nil { // resets VmHWM
		rssBefore = -1
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DisableCompression: true}}
	req, _ := http.NewRequest(http.MethodPost, s.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", transport.MediaTypeSSE)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var first [64]byte
	_, err = resp.Body.Read(first[:]) // the first bytes of RUN_STARTED: it is logged
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || err != nil {
		t.Fatalf("the run: %s, %v", resp.Status, err)
	}

	host := strings.TrimSuffix(strings.TrimPrefix(s.url, "http://"), "/")
	conns := make([]net.Conn, n)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			// A small receive window, so that the kernel's buffers do not
			// take in most of RUN_STARTED: the server's write stays blocked
			// with what it is writing, as behind a client that stopped.
			d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
				return rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 16<<10) })
			}}
			c, err := d.Dial("tcp", host)
			if err != nil {
				errs <- err
				return
			}
			conns[i] = c
			c.SetDeadline(time.Now().Add(2 * time.Minute)) // a hang guard
			if _, err := fmt.Fprintf(c, "GET /runs/%s HTTP/1.1\r\nHost: %s\r\nAccept: %s\r\n\r\n", run, host, mediaType); err != nil {
				errs <- err
				return
			}
			// The header and the first bytes of RUN_STARTED, then nothing
			// more.
			got, err := io.ReadAll(io.LimitReader(c, 1024))
			if err != nil || !bytes.Contains(got, []byte("200 OK")) || !bytes.Contains(got, []byte(mediaType)) {
				errs <- fmt.Errorf("follower %d: %q, %v", i, got, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	after := heapInuse()
	runtime.KeepAlive(body) // counted in the heap before and after
	if rssBefore >= 0 {
		rss = procStatus("VmHWM") - rssBefore
	} else {
		rss = -1
	}
	return int64(after) - int64(before), rss
}

// A hundred followers of a run of an 8 MiB input that never read past the
// first bytes of its RUN_STARTED hold one rendering of it between them, not
// one each: the server's live heap grows by about the run's own (its
// logged events and that one rendering) plus a little per follower, and
// the peak RSS of the whole exchange stays under 700 MiB (each follower
// held its own 8 MiB rendering until its write timeout: 100 of them took
// the RSS from 285 MB to 1,574 MB). Binary followers are held to the same
// heap bound: they are written the log's bytes, not a copy (this run's
// frame is about 2 MiB, which the kernel's buffers mostly take, so they
// held little before either). Measured as TestServeMemoryOfCutRuns
// measures; the peak RSS of the first exchange only, since the second
// reuses what the first let go.
func TestServeMemoryOfStalledFollowers(t *testing.T) {
	if testing.Short() {
		t.Skip("sends an 8 MB run to 100 followers")
	}
	n := 100
	if raceEnabled {
		n = 10 // the race detector's shadow memory; no RSS bound then
	}
	for i, mediaType := range []string{transport.MediaTypeSSE, transport.MediaTypeBinary} {
		heap, rss := stalledFollowers(t, n, transport.DefaultMaxBodyBytes-1024, mediaType)
		t.Logf("%d stalled followers (%s) of a run of an 8 MiB input: live heap %.1f MiB above the heap before, peak RSS growth %.0f MiB",
			n, mediaType, float64(heap)/(1<<20), float64(rss)/(1<<20))
		if want := int64(48<<20) + int64(n)*(256<<10); heap > want {
			t.Errorf("%d stalled followers (%s): the live heap grew by %.1f MiB; want at most %.1f MiB (one shared rendering, not one per follower)", n, mediaType, float64(heap)/(1<<20), float64(want)/(1<<20))
		}
		if i == 0 && rss >= 0 && !raceEnabled && rss > 700<<20 {
			t.Errorf("peak RSS grew by %.0f MiB for %d stalled followers (%s); want at most 700 MiB", float64(rss)/(1<<20), n, mediaType)
		}
	}
}
