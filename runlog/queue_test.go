package runlog

import (
	"math/rand/v2"
	"testing"
)

// The block queue against a slice, over runs of pushes and pops that cross
// block boundaries and empty the queue.
func TestMemQueue(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var q memQueue
	var model []int32
	next := int32(0)
	for range 200 {
		for range rng.IntN(3 * queueBlock) {
			q.push(memItem{size: next})
			model = append(model, next)
			next++
		}
		for range rng.IntN(3 * queueBlock) {
			if len(model) == 0 {
				break
			}
			if q.front().size != model[0] {
				t.Fatalf("front %d, want %d", q.front().size, model[0])
			}
			if it := q.pop(); it.size != model[0] {
				t.Fatalf("pop %d, want %d", it.size, model[0])
			}
			model = model[1:]
		}
		if q.len() != len(model) {
			t.Fatalf("len %d, want %d", q.len(), len(model))
		}
		if want := (len(model) + 2*queueBlock - 1) / queueBlock; len(q.blocks) > want {
			t.Fatalf("%d blocks for %d items", len(q.blocks), len(model))
		}
	}
}
