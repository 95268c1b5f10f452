// Package browser drives Debian's Chromium, headless, with a page that runs
// the stock HttpAgent of @ag-ui/client 1.0.0 (with and without the
// @agwire/fetch companion, clients/js) against agwire's Go handler.
//
// It is a nested module so that chromedp stays out of the main go.mod. It
// needs /usr/bin/chromium (apt-get install chromium), node and
// `cd clients/js && npm ci` (esbuild bundles the page each run). Without
// them the tests skip with one loud line, except when CI is set, where
// they fail.
package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// lane holds what every test shares: the bundle and the browser.
var lane struct {
	once    sync.Once
	err     error // why the lane cannot run
	bundle  []byte
	browser context.Context
	cancel  func()
}

var seq atomic.Int64

func sourceDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

func TestMain(m *testing.M) {
	code := m.Run()
	if lane.cancel != nil {
		lane.cancel()
	}
	os.Exit(code)
}

// errMissing marks what is not installed (skip, or fail under CI).
var errMissing = errors.New("browser lane unavailable")

// chromiumPath finds Debian's Chromium.
func chromiumPath() (string, error) {
	if p := os.Getenv("AGWIRE_CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w: AGWIRE_CHROMIUM=%s: %v", errMissing, p, err)
		}
		return p, nil
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: chromium is not installed (apt-get install chromium)", errMissing)
}

// setup bundles the page and starts the browser, once.
func setup(t *testing.T) {
	t.Helper()
	lane.once.Do(func() {
		chrome, err := chromiumPath()
		if err != nil {
			lane.err = err
			return
		}
		node, err := exec.LookPath("node")
		if err != nil {
			lane.err = fmt.Errorf("%w: node is not on PATH", errMissing)
			return
		}
		client := filepath.Join(sourceDir(), "..", "..", "clients", "js")
		if _, err := os.Stat(filepath.Join(client, "node_modules", "esbuild", "package.json")); err != nil {
			lane.err = fmt.Errorf("%w: clients/js/node_modules is not installed (cd clients/js && npm ci)", errMissing)
			return
		}
		dir, err := os.MkdirTemp("", "agwire-browser-")
		if err != nil {
			lane.err = err
			return
		}
		out := filepath.Join(dir, "app.js")
		cmd := exec.Command(node, filepath.Join(sourceDir(), "page", "build.mjs"), out)
		if b, err := cmd.CombinedOutput(); err != nil {
			lane.err = fmt.Errorf("bundling the page: %v\n%s", err, b)
			return
		}
		lane.bundle, lane.err = os.ReadFile(out)
		if lane.err != nil {
			return
		}
		opts := []chromedp.ExecAllocatorOption{
			chromedp.ExecPath(chrome),
			chromedp.Flag("headless", true),
			chromedp.Flag("no-sandbox", true),
			chromedp.Flag("disable-gpu", true),
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("no-first-run", true),
			chromedp.Flag("no-default-browser-check", true),
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.Flag("disable-dev-shm-usage", true),
			// A name for loopback that is not a secure context (127.0.0.1
			// and localhost are), to see what Chromium offers there.
			chromedp.Flag("host-resolver-rules", "MAP "+insecureHost+" 127.0.0.1"),
			chromedp.UserDataDir(filepath.Join(dir, "profile")),
		}
		actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
		bctx, bcancel := chromedp.NewContext(actx)
		// Start the browser now (no timeout on this first call: it would
		// bound the browser's life).
		if err := chromedp.Do(bctx, chromedp.Navigate("about:blank")); err != nil {
			bcancel()
			acancel()
			lane.err = fmt.Errorf("starting %s: %v", chrome, err)
			return
		}
		lane.browser = bctx
		lane.cancel = func() {
			bcancel()
			acancel()
			os.RemoveAll(dir)
		}
	})
	if lane.err != nil {
		if errors.Is(lane.err, errMissing) {
			if os.Getenv("CI") != "" {
				t.Fatalf("%v (CI is set, so the browser lane fails instead of skipping)", lane.err)
			}
			fmt.Fprintf(os.Stderr, "!!! BROWSER LANE SKIPPED: %v\n", lane.err)
			t.Skipf("%v", lane.err)
		}
		t.Fatal(lane.err)
	}
}

// insecureHost resolves to 127.0.0.1 in the lane's browser only.
const insecureHost = "agwire-lane.test"

const pageHTML = `<!doctype html><meta charset="utf-8"><title>agwire browser lane</title>
<script type="module" src="/app.js"></script>`

// pageHandler serves the page and its bundle.
func pageHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, pageHTML)
	})
	mux.HandleFunc("GET /app.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		w.Write(lane.bundle)
	})
	return mux
}

// counter counts the bytes a listener's connections write (the response
// bytes on the wire, headers and chunk framing included).
type counter struct {
	net.Listener
	written atomic.Int64
}

func (c *counter) Accept() (net.Conn, error) {
	conn, err := c.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countConn{Conn: conn, n: &c.written}, nil
}

type countConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.n.Add(int64(n))
	return n, err
}

// server starts h on loopback with a byte counter.
func server(t *testing.T, h http.Handler) (*httptest.Server, *counter) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &counter{Listener: ln}
	s := &httptest.Server{Listener: c, Config: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
	s.Start()
	t.Cleanup(s.Close)
	return s, c
}

// runResult is what the page's agwireRun resolves to.
type runResult struct {
	Carrier     string          `json:"carrier"`
	MS          float64         `json:"ms"`
	Events      int             `json:"events"`
	ContentType string          `json:"contentType"`
	Error       string          `json:"error"`
	Messages    json.RawMessage `json:"messages"`
	State       json.RawMessage `json:"state"`
	Result      json.RawMessage `json:"result"`
}

// runSpec is agwireRun's argument.
type runSpec struct {
	URL       string         `json:"url"`
	Carrier   string         `json:"carrier"`
	Companion any            `json:"companion"` // false, or createFetch's options
	Agent     string         `json:"agent"`     // "" (HttpAgent), or "agwire" (AgwireAgent)
	RunID     string         `json:"runId"`
	Test      map[string]int `json:"test"`
}

// page opens a tab on pageURL.
func page(t *testing.T, pageURL string) context.Context {
	t.Helper()
	tab, cancel := chromedp.NewContext(lane.browser)
	t.Cleanup(cancel)
	if err := chromedp.Do(tab, chromedp.Navigate(pageURL)); err != nil {
		t.Fatalf("loading %s: %v", pageURL, err)
	}
	ctx, tcancel := context.WithTimeout(tab, 30*time.Second)
	defer tcancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool]("window.agwireReady === true")); err != nil {
		t.Fatalf("loading %s: the page did not start: %v", pageURL, err)
	}
	return tab
}

// run calls agwireRun in the tab.
func run(t *testing.T, tab context.Context, spec runSpec) runResult {
	t.Helper()
	if spec.RunID == "" {
		spec.RunID = fmt.Sprintf("browser-%06d", seq.Add(1)) // one width: SSE ids carry it
	}
	arg, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(tab, 90*time.Second)
	defer cancel()
	res, err := chromedp.Run(ctx, chromedp.Evaluate[runResult]("window.agwireRun("+string(arg)+")", chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("agwireRun(%s): %v", arg, err)
	}
	return res
}

// conversation is the part of a run two clients must agree on.
func conversation(r runResult) string {
	return fmt.Sprintf("messages=%s\nstate=%s\nresult=%s", r.Messages, r.State, r.Result)
}

// nodeRun runs the same agent in node's stock client with the companion.
func nodeRun(t *testing.T, url, carrier string, events int) runResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(sourceDir(), "page", "noderun.mjs"), url, carrier, fmt.Sprint(events), fmt.Sprintf("node-%06d", seq.Add(1)))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node noderun.mjs: %v\n%s", err, stderr.String())
	}
	var r runResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("node noderun.mjs printed %q: %v", out, err)
	}
	return r
}

// proxy forwards TCP to target; the connection that carries the first POST
// is cut once cutAfter response bytes have followed it.
func proxy(t *testing.T, target string, cutAfter int64) (addr string, conns *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	conns = new(atomic.Int64)
	var cut atomic.Bool
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer c.Close()
				up, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer up.Close()
				var armed atomic.Bool // this connection carries the POST to cut
				go func() {
					buf := make([]byte, 32<<10)
					for {
						n, err := c.Read(buf)
						if n > 0 {
							if strings.HasPrefix(string(buf[:n]), "POST ") && cut.CompareAndSwap(false, true) {
								armed.Store(true)
							}
							if _, err := up.Write(buf[:n]); err != nil {
								return
							}
						}
						if err != nil {
							up.Close()
							return
						}
					}
				}()
				buf := make([]byte, 32<<10)
				var sent int64
				for {
					n, err := up.Read(buf)
					if n > 0 {
						if armed.Load() {
							if sent+int64(n) >= cutAfter {
								c.Write(buf[:cutAfter-sent])
								return // cut: both sides close
							}
							sent += int64(n)
						}
						if _, err := c.Write(buf[:n]); err != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String(), conns
}
