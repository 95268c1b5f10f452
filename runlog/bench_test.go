package runlog_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
)

// benchEvent is a typical streamed event: a TEXT_MESSAGE_CONTENT with a
// 12-byte delta (41 bytes on the wire).
func benchEvent(b *testing.B) []byte {
	w, err := codec.Codec{}.Append(nil, &event.TextMessageContent{MessageID: "msg-00000001", Delta: "Hello, world"})
	if err != nil {
		b.Fatal(err)
	}
	return w
}

// BenchmarkMemoryAppend: events/s appended, in runs of 1,000 events, with
// the default retention (256 MiB), which the longer runs of the benchmark
// reach, so eviction is part of the cost.
func BenchmarkMemoryAppend(b *testing.B) {
	ctx := context.Background()
	m := runlog.NewMemory(runlog.MemoryOptions{})
	defer m.Close()
	ev := benchEvent(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(ev)))
	var w runlog.Writer
	i := 0
	for b.Loop() {
		if i%1000 == 0 {
			if w != nil {
				w.End(ctx)
			}
			w, _ = m.Start(ctx, fmt.Sprint("bench-", i))
		}
		i++
		if _, err := w.Append(ctx, ev); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkMemoryAppendFollow: events/s appended to one run and read live
// by one follower (the time is until the follower has read them all).
func BenchmarkMemoryAppendFollow(b *testing.B) {
	ctx := context.Background()
	m := runlog.NewMemory(runlog.MemoryOptions{})
	defer m.Close()
	w, _ := m.Start(ctx, "bench")
	rd, _ := m.Read(ctx, runlog.Cursor{Run: "bench"})
	ev := benchEvent(b)
	done := make(chan int)
	go func() {
		n := 0
		for {
			if _, err := rd.Next(ctx); err != nil {
				done <- n
				return
			}
			n++
		}
	}()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := w.Append(ctx, ev); err != nil {
			b.Fatal(err)
		}
	}
	w.End(ctx)
	if n := <-done; n != b.N {
		b.Fatalf("the follower read %d of %d events", n, b.N)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkMemoryHeldRun: the heap a held run costs, by events per run
// (heap growth after a GC, divided by the runs held), beside what the log
// counts against MaxBytes for it.
func BenchmarkMemoryHeldRun(b *testing.B) {
	for _, events := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("events=%d", events), func(b *testing.B) {
			ctx := context.Background()
			ev := benchEvent(b)
			const runs = 1000
			var heap, counted float64
			for b.Loop() {
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				m := runlog.NewMemory(runlog.MemoryOptions{MaxBytes: -1, MaxAge: -1})
				for r := range runs {
					w, _ := m.Start(ctx, fmt.Sprintf("run-%08d", r))
					for range events {
						w.Append(ctx, ev)
					}
					w.End(ctx)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				heap = float64(after.HeapAlloc-before.HeapAlloc) / runs
				counted = float64(m.Stats().Bytes) / runs
				runtime.KeepAlive(m)
			}
			b.ReportMetric(heap, "heap-B/run")
			b.ReportMetric(counted, "counted-B/run")
			b.ReportMetric(float64(events*len(ev)), "event-B/run")
		})
	}
}
