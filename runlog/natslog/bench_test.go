package natslog_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/runlog/natslog"
)

func benchEvent(b *testing.B) []byte {
	w, err := codec.Codec{}.Append(nil, &event.TextMessageContent{MessageID: "msg-00000001", Delta: "Hello, world"})
	if err != nil {
		b.Fatal(err)
	}
	return w
}

// BenchmarkAppend: events/s appended (each acknowledged by JetStream
// before the next), in runs of 1,000 events, on an embedded server over
// loopback, by storage; and the stream's bytes per held event.
func BenchmarkAppend(b *testing.B) {
	for _, st := range []jetstream.StorageType{jetstream.MemoryStorage, jetstream.FileStorage} {
		b.Run(st.String(), func(b *testing.B) {
			ctx := context.Background()
			js := connect(b, startServer(b))
			l := newLog(b, js, natslog.Options{Storage: st})
			ev := benchEvent(b)
			var w runlog.Writer
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				if i%1000 == 0 {
					if w != nil {
						w.End(ctx)
					}
					w, _ = l.Start(ctx, fmt.Sprint("bench-", i))
				}
				i++
				if _, err := w.Append(ctx, ev); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
			s, _ := js.Stream(ctx, l.StreamName())
			info, _ := s.Info(ctx)
			b.ReportMetric(float64(info.State.Bytes)/float64(info.State.Msgs), "stream-B/msg")
			b.ReportMetric(float64(len(ev)), "event-B")
		})
	}
}

// BenchmarkFollow: events/s read by a follower replaying a held run of
// 10,000 events from its start.
func BenchmarkFollow(b *testing.B) {
	ctx := context.Background()
	js := connect(b, startServer(b))
	l := newLog(b, js, natslog.Options{Storage: jetstream.MemoryStorage})
	ev := benchEvent(b)
	const n = 10000
	w, _ := l.Start(ctx, "bench")
	for range n {
		if _, err := w.Append(ctx, ev); err != nil {
			b.Fatal(err)
		}
	}
	w.End(ctx)
	b.ReportAllocs()
	b.ResetTimer()
	got := 0
	for range b.N {
		rd, err := l.Read(ctx, runlog.Cursor{Run: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := rd.Next(ctx); err != nil {
				break
			}
			got++
		}
		rd.Close()
	}
	if got != b.N*n {
		b.Fatalf("read %d events, want %d", got, b.N*n)
	}
	b.ReportMetric(float64(got)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkAppendParallel: events/s appended by 32 concurrent runs (each
// run's appends are sequential, the runs' overlap), memory storage.
func BenchmarkAppendParallel(b *testing.B) {
	ctx := context.Background()
	js := connect(b, startServer(b))
	l := newLog(b, js, natslog.Options{Storage: jetstream.MemoryStorage})
	ev := benchEvent(b)
	var runs atomic.Int64
	b.SetParallelism(16)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		w, err := l.Start(ctx, fmt.Sprint("bench-", runs.Add(1)))
		if err != nil {
			b.Fatal(err)
		}
		for pb.Next() {
			if _, err := w.Append(ctx, ev); err != nil {
				b.Fatal(err)
			}
		}
		w.End(ctx)
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkStart: runs/s started and ended (each an entry in the ids
// bucket, a start and an end marker, a heartbeat), and what a run leaves
// in the ids bucket, which keeps it for good: bytes per run id of 12
// bytes.
func BenchmarkStart(b *testing.B) {
	ctx := context.Background()
	js := connect(b, startServer(b))
	l := newLog(b, js, natslog.Options{Storage: jetstream.MemoryStorage})
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		w, err := l.Start(ctx, fmt.Sprintf("run-%08d", i))
		if err != nil {
			b.Fatal(err)
		}
		if err := w.End(ctx); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
	s, _ := js.Stream(ctx, "KV_"+natslog.IDsBucket(l.StreamName()))
	info, _ := s.Info(ctx)
	b.ReportMetric(float64(info.State.Bytes)/float64(info.State.Msgs), "ids-B/run")
}
