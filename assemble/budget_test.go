package assemble

import (
	"errors"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/agwire/agwire/event"
)

// attack builds one of the hostile streams of about size bytes of JSON
// lines: a big array then front inserts, a big array then
// remove-front-and-append, self-copies, or one MESSAGES_SNAPSHOT of tiny
// messages.
func attack(t testing.TB, kind string, size int) []event.Event {
	t.Helper()
	var lines []string
	n := 0
	add := func(l string) { lines = append(lines, l); n += len(l) + 1 }
	add(runStart)
	switch kind {
	case "front", "rotate":
		elems := size / 4
		add(`{"type":"STATE_SNAPSHOT","snapshot":{"a":[` + strings.Repeat("0,", elems-1) + `0]}}`)
		d := `{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a/0","value":0}]}`
		if kind == "rotate" {
			d = `{"type":"STATE_DELTA","delta":[{"op":"remove","path":"/a/0"},{"op":"add","path":"/a/-","value":0}]}`
		}
		for n < size {
			add(d)
		}
	case "copy":
		add(`{"type":"STATE_SNAPSHOT","snapshot":{"a":[0]}}`)
		for n < size {
			add(`{"type":"STATE_DELTA","delta":[{"op":"copy","from":"/a","path":"/a/-"}]}`)
		}
	case "metadata":
		add(`{"type":"TEXT_MESSAGE_START","messageId":"m"}`)
		for i := 0; n < size; i++ {
			add(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","metadata":{"k` + strconv.Itoa(i) + `":0}}`)
		}
	case "messages":
		var b strings.Builder
		b.WriteString(`{"type":"MESSAGES_SNAPSHOT","messages":[`)
		for i := 0; b.Len() < size; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"id":"` + strconv.FormatInt(int64(i), 36) + `","role":"user","content":""}`)
		}
		b.WriteString(`]}`)
		add(b.String())
	}
	out := make([]event.Event, len(lines))
	for i, l := range lines {
		ev, err := event.Parse([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		out[i] = ev
	}
	return out
}

type cost struct {
	work, alloc int64
	err         error
}

// applyCost applies the events until the first error and measures the work
// units charged and the bytes allocated.
func applyCost(t testing.TB, evs []event.Event) (cost, *Conversation) {
	t.Helper()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	c, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	var applyErr error
	for _, ev := range evs {
		if applyErr = c.Apply(ev); applyErr != nil {
			break
		}
	}
	runtime.ReadMemStats(&after)
	return cost{work: c.work, alloc: int64(after.TotalAlloc - before.TotalAlloc), err: applyErr}, c
}

// Growth: four times the input costs at most about five times the work and
// the bytes allocated, for every attack of the hostile-input list. Before
// the lifetime budgets, front inserts and remove-front-and-append grew with
// the square of the input and 23 self-copies (2 KB) held 394 MB.
func TestCostLinearInInput(t *testing.T) {
	const small = 512 << 10
	for _, kind := range []string{"front", "rotate", "copy", "messages", "metadata"} {
		t.Run(kind, func(t *testing.T) {
			a, _ := applyCost(t, attack(t, kind, small))
			b, conv := applyCost(t, attack(t, kind, 4*small))
			t.Logf("%s: work %d -> %d units, allocated %d -> %d bytes (%v)", kind, a.work, b.work, a.alloc, b.alloc, b.err)
			if b.work > 5*max(a.work, WorkFloor) {
				t.Errorf("work grew from %d to %d units for 4x the input", a.work, b.work)
			}
			if b.alloc > 5*max(a.alloc, MemoryFloor) {
				t.Errorf("allocations grew from %d to %d bytes for 4x the input", a.alloc, b.alloc)
			}
			// What the conversation holds is within its memory budget
			// (merged metadata replaces what it merged: garbage, not held).
			if limit := budgetCap(0, DefaultMemoryBudget, MemoryFloor, conv.in); kind != "metadata" && b.alloc > limit {
				t.Errorf("allocated %d bytes, more than the memory budget %d", b.alloc, limit)
			}
		})
	}
}

// Each attack that goes past a budget is refused with a typed error naming
// the event, and the refused event changes nothing.
func TestBudgetErrorsNameTheEvent(t *testing.T) {
	for _, c := range []struct {
		kind string
		want error
	}{
		{"front", ErrWorkBudget},
		{"rotate", ErrWorkBudget},
		{"copy", ErrCopyBudget},
		{"metadata", ErrWorkBudget},
	} {
		evs := attack(t, c.kind, 2<<20)
		conv, _ := New(Options{})
		var err error
		i := 0
		for ; i < len(evs); i++ {
			before := ""
			if c.kind == "copy" {
				before = string(conv.State())
			}
			if err = conv.Apply(evs[i]); err != nil {
				if before != "" && string(conv.State()) != before {
					t.Errorf("%s: the refused event changed the state", c.kind)
				}
				break
			}
		}
		var ae *ApplyError
		if !errors.Is(err, c.want) || !errors.As(err, &ae) || ae.Index != i || ae.Type != evs[i].Type() {
			t.Errorf("%s: got %v at event %d, want an *ApplyError naming %s %d wrapping %v", c.kind, err, i, evs[i].Type(), i, c.want)
		}
	}
}

// The memory budget refuses a snapshot that would hold more than it allows,
// before anything changes; a bigger budget lets the same event through.
func TestMemoryBudget(t *testing.T) {
	evs := attack(t, "messages", 3<<20) // past the floor at 1 byte per byte
	for _, budget := range []int{1, 0} {
		conv, _ := New(Options{MemoryBudget: budget})
		var err error
		for _, ev := range evs {
			if err = conv.Apply(ev); err != nil {
				break
			}
		}
		switch {
		case budget == 1 && (!errors.Is(err, ErrMemoryBudget) || conv.Len() != 0):
			t.Errorf("budget 1: got %v with %d messages, want ErrMemoryBudget and none", err, conv.Len())
		case budget == 0 && err != nil:
			t.Errorf("default budget: %v", err)
		}
	}
	// The floor alone: a small stream never meets the budget.
	st := `{"type":"STATE_SNAPSHOT","snapshot":{"a":[` + strings.Repeat("[],", 1000) + `[]]}}`
	conv, _ := New(Options{MemoryBudget: 1})
	if err := conv.Apply(parseEvents(t, st)[0]); err != nil {
		t.Errorf("a small snapshot under the floor: %v", err)
	}
}

// A negative budget removes the bound: the front inserts all apply.
func TestBudgetUnbounded(t *testing.T) {
	evs := attack(t, "front", 256<<10)
	conv, _ := New(Options{WorkBudget: -1})
	for i, ev := range evs {
		if err := conv.Apply(ev); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
	}
}

// Once the work budget is spent, later patches fail at their first unit of
// work: applying on after the error (as --keep-going does) stays bounded.
func TestWorkBudgetStaysSpent(t *testing.T) {
	evs := attack(t, "front", 1<<20)
	conv, _ := New(Options{})
	failed := 0
	for _, ev := range evs {
		if err := conv.Apply(ev); errors.Is(err, ErrWorkBudget) {
			failed++
		}
	}
	if failed < 2 {
		t.Fatalf("%d events refused: the attack does not exhaust the budget", failed)
	}
	if limit := conv.workCap(); conv.work > limit+int64(failed)*64 {
		t.Errorf("%d units of work done after the budget of %d was spent, over %d refused events", conv.work-limit, limit, failed)
	}
}
