package main

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

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
