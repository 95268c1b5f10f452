package bench

import (
	"syscall"
	"testing"
	"time"
)

// The machine these figures come from is shared, so wall time per op
// includes the time other processes held the CPU. Each benchmark also
// reports cpu-ns/op: the CPU time this process used (user + system, all
// threads, the garbage collector included) divided by the iterations. It is
// what the work cost, largely independent of the neighbours' load.

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loopCPU runs b.Loop around body and reports cpu-ns/op and, for multi-event
// inputs, cpu-ns/event.
func loopCPU(b *testing.B, events int, body func()) {
	start := cpuTime()
	n := 0
	for b.Loop() {
		body()
		n++
	}
	if n == 0 {
		return
	}
	perOp := float64(cpuTime()-start) / float64(n)
	b.ReportMetric(perOp, "cpu-ns/op")
	if events > 1 {
		b.ReportMetric(perOp/float64(events), "cpu-ns/event")
	}
}
