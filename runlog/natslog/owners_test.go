package natslog_test

import (
	"context"
	"errors"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/runlog/natslog"
)

// A run's owner is in the ids bucket, so it holds across replicas: a run
// started by alice through one Log names her as its owner to a second
// Log on its own connection, and a start of its id there by mallory is
// refused without changing its owner.
func TestOwnersAcrossReplicas(t *testing.T) {
	ns := startServer(t)
	opts := natslog.Options{Stream: "OWNERS", Subject: "owners", Storage: jetstream.MemoryStorage}
	a, b := newLog(t, connect(t, ns), opts), newLog(t, connect(t, ns), opts)
	c := context.Background()
	w, err := a.StartOwned(c, "run", "alice")
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, w, 1, 2)
	if got, err := b.Owner(c, "run"); err != nil || got != "alice" {
		t.Fatalf("the other replica's Owner = %q, %v; want alice", got, err)
	}
	if _, err := b.StartOwned(c, "run", "mallory"); !errors.Is(err, runlog.ErrRunExists) {
		t.Fatalf("mallory's start on the other replica: %v; want ErrRunExists", err)
	}
	if err := w.End(c); err != nil {
		t.Fatal(err)
	}
	for _, l := range []*natslog.Log{a, b} {
		if got, err := l.Owner(c, "run"); err != nil || got != "alice" {
			t.Fatalf("Owner after the refused start = %q, %v; want alice", got, err)
		}
	}
}

// An owner names the run of its own incarnation only. If the ids bucket
// loses a run's entry (an operator purged or recreated it) while the
// stream still holds the run, a start of its id by someone else creates a
// new entry and is then refused (the stream holds the run): its owner
// must not become the owner of the run the stream holds.
func TestOwnerOfAnotherIncarnation(t *testing.T) {
	ns := startServer(t)
	js := connect(t, ns)
	opts := natslog.Options{Stream: "OWNERS", Subject: "owners", Storage: jetstream.MemoryStorage}
	l := newLog(t, js, opts)
	c := context.Background()
	w, err := l.StartOwned(c, "run", "alice")
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, w, 1, 1)
	ids, err := js.KeyValue(c, natslog.IDsBucket(opts.Stream))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := ids.Keys(c)
	if err != nil || len(keys) != 1 {
		t.Fatalf("the ids bucket's keys: %v, %v; want the run's one", keys, err)
	}
	if err := ids.Purge(c, keys[0]); err != nil {
		t.Fatal(err)
	}
	if got, err := l.Owner(c, "run"); !errors.Is(err, runlog.ErrUnknownRun) {
		t.Fatalf("Owner without the entry = %q, %v; want ErrUnknownRun", got, err)
	}
	if _, err := l.StartOwned(c, "run", "mallory"); !errors.Is(err, runlog.ErrRunExists) {
		t.Fatalf("mallory's start: %v; want ErrRunExists (the stream holds the run)", err)
	}
	if got, err := l.Owner(c, "run"); err != nil || got != "" {
		t.Fatalf("Owner after mallory's refused start = %q, %v; want none", got, err)
	}
}
