package slab

import "testing"

// TestPointersStayDistinct: every pointer handed out keeps its own value
// across block changes and Forget, and blocks are shared (fewer
// allocations than values).
func TestPointersStayDistinct(t *testing.T) {
	var s Slabs
	var ps []*string
	var bs []*bool
	var is []*int64
	for i := range 200 {
		ps = append(ps, s.String(string(rune('a'+i%26))))
		bs = append(bs, s.Bool(i%2 == 0))
		is = append(is, s.Int64(int64(i)))
		if i == 100 {
			s.Forget()
		}
	}
	for i := range 200 {
		if *ps[i] != string(rune('a'+i%26)) || *bs[i] != (i%2 == 0) || *is[i] != int64(i) {
			t.Fatalf("value %d changed: %q %v %d", i, *ps[i], *bs[i], *is[i])
		}
	}
	allocs := testing.AllocsPerRun(10, func() {
		var s Slabs
		for i := range 64 {
			s.Int64(int64(i))
		}
	})
	if allocs > 6 { // blocks of 4, 8, 16, 32, 64
		t.Errorf("64 values took %.0f allocations, want at most 6 (blocks)", allocs)
	}
}

func TestReuseKeepsMemoryAndClears(t *testing.T) {
	var s Slabs
	p := s.String("a")
	s.Bool(true)
	s.Int64(7)
	s.Reuse()
	if *p != "" {
		t.Fatalf("Reuse left %q in a recycled block", *p)
	}
	allocs := testing.AllocsPerRun(100, func() {
		s.String("x")
		s.Bool(false)
		s.Int64(1)
		s.Reuse()
	})
	if allocs != 0 {
		t.Fatalf("a reused slab allocated %v times per event", allocs)
	}
	if q := s.String("b"); q != p {
		t.Fatal("Reuse did not hand out the same block again")
	}
}

// Fresh recycles the slot only when asked to, and its Clearer empties it.
func TestFresh(t *testing.T) {
	type ev struct{ A, B string }
	slot := ev{A: "old"}
	var used Clearer
	if p := Fresh(false, &slot, &used); p == &slot || used != nil || *p != (ev{}) {
		t.Fatalf("without recycling: %p (slot %p), used %v, %+v", p, &slot, used, *p)
	}
	p := Fresh(true, &slot, &used)
	if p != &slot || *p != (ev{}) || used == nil {
		t.Fatalf("recycling: %p (slot %p), %+v, used %v", p, &slot, *p, used)
	}
	p.A = "input"
	used.Clear()
	if slot != (ev{}) {
		t.Fatalf("Clear left %+v", slot)
	}
	if a := testing.AllocsPerRun(100, func() { Fresh(true, &slot, &used) }); a != 0 {
		t.Fatalf("recycling allocated %v times", a)
	}
}
