// Command webagent serves package webagent's deterministic agent on
// loopback for the JavaScript companion's tests (clients/js/test): it
// listens on -addr, prints {"url":"http://HOST:PORT/agent"} on its first
// line of standard output, and exits when standard input closes.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/agwire/agwire/internal/webagent"
	"github.com/agwire/agwire/transport"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen on `HOST:PORT`")
	resumable := flag.Bool("resumable", true, "keep runs in an in-memory log")
	compression := flag.String("compression", "", "comma-separated codings (zstd, gzip)")
	heartbeat := flag.Duration("heartbeat", 0, "HandlerOptions.Heartbeat (0: the default)")
	grace := flag.Duration("reconnect-grace", 0, "HandlerOptions.ReconnectGrace (0: the default)")
	cors := flag.String("cors", "", "allow web pages of `ORIGIN` (HandlerOptions.CORS)")
	flag.Parse()

	o := webagent.Options{Resumable: *resumable, Heartbeat: *heartbeat}
	if *compression != "" {
		o.Compression = strings.Split(*compression, ",")
	}
	o.Configure = func(h *transport.HandlerOptions) {
		if *grace != 0 {
			h.ReconnectGrace = *grace
		}
		if *cors != "" {
			h.CORS = &transport.CORSOptions{AllowOrigins: []string{*cors}}
		}
	}
	h, release, err := webagent.Handler(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "webagent:", err)
		os.Exit(2)
	}
	defer release()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "webagent:", err)
		os.Exit(2)
	}
	mux := http.NewServeMux()
	mux.Handle("/agent", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	line, _ := json.Marshal(map[string]string{"url": "http://" + ln.Addr().String() + "/agent"})
	fmt.Println(string(line))
	io.Copy(io.Discard, os.Stdin)
	srv.Close()
}
