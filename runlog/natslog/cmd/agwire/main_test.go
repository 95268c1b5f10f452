package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/agwire/agwire/cli"
	"github.com/agwire/agwire/runlog"
)

// The NATS build opens a working run log on the server it is given.
func TestOpenNATS(t *testing.T) {
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	defer ns.Shutdown()
	if !ns.ReadyForConnections(30 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	ctx := context.Background()
	l, err := openNATS(ctx, ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	// serve --auth bearer records each run's owner in the log: a NATS log
	// must keep owners, or the handler refuses to bind runs.
	if _, ok := l.(runlog.Owners); !ok {
		t.Fatalf("the NATS run log (%T) does not keep owners (runlog.Owners)", l)
	}
	w, err := l.Start(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	w.Append(ctx, []byte{0x0a, 0x00})
	w.End(ctx)
	rd, err := l.Read(ctx, runlog.Cursor{Run: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	if e, err := rd.Next(ctx); err != nil || e.Seq != 1 {
		t.Fatalf("Next = %d, %v", e.Seq, err)
	}
	if _, err := rd.Next(ctx); err != io.EOF {
		t.Fatalf("Next at the end = %v", err)
	}
	if _, err := openNATS(ctx, "nats://127.0.0.1:1"); err == nil {
		t.Fatal("openNATS of a closed port succeeded")
	}
}

// "agwire serve --nats URL" says in its start line that the runs are on
// NATS JetStream, at which servers and in which stream, without the URL's
// credentials; then it listens, and stops on SIGINT.
func TestServeStartLineNamesNATS(t *testing.T) {
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	defer ns.Shutdown()
	if !ns.ReadyForConnections(30 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	at := strings.TrimPrefix(ns.ClientURL(), "nats://")
	pr, pw := io.Pipe()
	code := make(chan int, 1)
	go func() {
		build := cli.Options{OpenNATS: openNATS}
		code <- build.Main([]string{"serve", "--addr", "127.0.0.1:0", "--resumable", "--nats", "nats://agwire:s3cret@" + at}, nil, io.Discard, pw)
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	if !lines.Scan() {
		t.Fatal("no start line")
	}
	first := lines.Text()
	go io.Copy(io.Discard, pr)
	if want := "its runs on NATS JetStream at nats://" + at + " (stream AGWIRE_RUNS), listening on http://127.0.0.1:"; !strings.Contains(first, want) || strings.Contains(first, "s3cret") {
		t.Errorf("start line %q; want it to contain %q, and no credentials", first, want)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("exit %d", c)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop on SIGINT")
	}
}
