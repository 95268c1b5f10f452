package natslog_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/runlog/natslog"
)

// A run written through one connection is resumed through another, as two
// server replicas would. The embedded server stands in for a NATS cluster;
// against a real one, only the URL (and credentials) change.
func Example() {
	dir, _ := os.MkdirTemp("", "natslog-example")
	defer os.RemoveAll(dir)
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true, StoreDir: dir, NoLog: true, NoSigs: true})
	if err != nil {
		panic(err)
	}
	go ns.Start()
	defer ns.Shutdown()
	ns.ReadyForConnections(30 * time.Second)

	ctx := context.Background()
	open := func() *natslog.Log {
		nc, err := nats.Connect(ns.ClientURL())
		if err != nil {
			panic(err)
		}
		js, _ := jetstream.New(nc)
		l, err := natslog.New(ctx, js, natslog.Options{})
		if err != nil {
			panic(err)
		}
		return l
	}
	a, b := open(), open()

	w, err := a.Start(ctx, "run-1")
	if err != nil {
		panic(err)
	}
	runlog.AppendEvent(ctx, w, codec.Codec{}, &event.RunStarted{ThreadID: "t", RunID: "run-1"})
	runlog.AppendEvent(ctx, w, codec.Codec{}, &event.TextMessageContent{MessageID: "m1", Delta: "Hello"})
	runlog.AppendEvent(ctx, w, codec.Codec{}, &event.RunFinished{ThreadID: "t", RunID: "run-1"})
	w.End(ctx)

	rd, err := b.Read(ctx, runlog.Cursor{Run: "run-1", Seq: 1})
	if err != nil {
		panic(err)
	}
	defer rd.Close()
	for {
		e, err := rd.Next(ctx)
		if err == io.EOF {
			break
		}
		ev, _ := e.Decode(codec.Codec{})
		c := e.Cursor("run-1") // bound to the run: its text carries the incarnation
		fmt.Println(c.Run, c.Seq, c.Inc == runlog.IncarnationOf(w), ev.Type())
	}
	// Output:
	// run-1 2 true TEXT_MESSAGE_CONTENT
	// run-1 3 true RUN_FINISHED
}
