package jsonx

import (
	"encoding/json"
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// escapedObject is an object of n members, two in three with keys and
// values that need unescaping, of growing length.
func escapedObject(n int) []byte {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		if i%3 == 0 {
			b.WriteString(`"plain` + strconv.Itoa(i) + `":"value` + strconv.Itoa(i) + `"`)
			continue
		}
		b.WriteString(`"k\u00e9` + strconv.Itoa(i) + `":`)
		b.Write(AppendString(nil, strings.Repeat("ab\"c\n", i%40+1)+strconv.Itoa(i)))
	}
	b.WriteByte('}')
	return []byte(b.String())
}

// readMembers reads an object of strings into keys and values.
func readMembers(s *Scanner, kv []string) ([]string, error) {
	kv = kv[:0]
	err := s.Object(func(key string) error {
		v, err := s.String()
		kv = append(kv, key, v)
		return err
	})
	return kv, err
}

// TestArenaStringsStayIntact: strings read into the arena keep their
// values while later strings are read, through the arena's growth, until
// Reset; and a Reset reuses the arena's memory. With AliasStrings only the
// strings with escapes are in the arena, without it all of them.
func TestArenaStringsStayIntact(t *testing.T) {
	in := escapedObject(300)
	var want map[string]string
	if err := json.Unmarshal(in, &want); err != nil {
		t.Fatal(err)
	}
	for _, alias := range []bool{true, false} {
		var s Scanner
		s.Arena, s.AliasStrings = true, alias
		s.Reset(in)
		kv, err := readMembers(&s, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(kv) != 2*len(want) {
			t.Fatalf("%d strings, want %d", len(kv), 2*len(want))
		}
		for i := 0; i < len(kv); i += 2 {
			if w, ok := want[kv[i]]; !ok || kv[i+1] != w {
				t.Fatalf("alias %v: member %d: %q: %q, want %q", alias, i/2, kv[i], kv[i+1], w)
			}
		}
		// Reset keeps the arena's memory: the same input again allocates
		// nothing, and the arena holds the strings, one after another.
		allocs := testing.AllocsPerRun(20, func() {
			s.Reset(in)
			if kv, err = readMembers(&s, kv); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("alias %v: %v allocations a parse after warm-up, want 0", alias, allocs)
		}
		used := 0
		for i, v := range kv {
			if alias && i%6 < 2 {
				if &in[strings.Index(string(in), `"`+v+`"`)+1] != unsafe.StringData(v) {
					t.Fatalf("%q is not the input's", v)
				}
				continue // a plain member: the input's own bytes
			}
			used += len(v)
			if unsafe.StringData(v) != &s.arena[used-len(v)] {
				t.Fatalf("alias %v: %q is not at byte %d of the arena", alias, v, used-len(v))
			}
		}
		if len(s.arena) != used {
			t.Errorf("alias %v: arena holds %d bytes, the strings %d", alias, len(s.arena), used)
		}
		// Without the arena each of those strings is an allocation.
		s.Arena = false
		allocs = testing.AllocsPerRun(5, func() {
			s.Reset(in)
			if kv, err = readMembers(&s, kv); err != nil {
				t.Fatal(err)
			}
		})
		if want := len(kv) * 2 / 3; allocs < float64(want) {
			t.Errorf("alias %v: %v allocations a parse without the arena, want %d at least", alias, allocs, want)
		}
	}
}

// TestArenaStringsOutliveGrowth: a string handed out before the arena
// grows keeps its bytes after (they stay in the old array).
func TestArenaStringsOutliveGrowth(t *testing.T) {
	var s Scanner
	s.Arena = true
	long := strings.Repeat(`x\n`, 10_000)
	s.Reset([]byte(`["a\tb","` + long + `","c\"d"]`))
	var got []string
	err := s.Array(func(int) error {
		v, err := s.String()
		got = append(got, v)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a\tb", strings.Repeat("x\n", 10_000), `c"d`}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("string %d: %s, want %s", i, Quote(got[i]), Quote(want[i]))
		}
	}
	// A failed read adds nothing to the arena.
	s.Reset([]byte(`"ok\n"`))
	if _, err := s.String(); err != nil {
		t.Fatal(err)
	}
	n := len(s.arena)
	s.data, s.pos = []byte(`"bad\n\x01"`), 0
	if _, err := s.String(); err == nil {
		t.Fatal("control character accepted")
	}
	if len(s.arena) != n {
		t.Errorf("a failed read left %d bytes in the arena, want %d", len(s.arena), n)
	}
}

// TestArenaBounded: Reset lets go of an arena that grew past MaxArena.
func TestArenaBounded(t *testing.T) {
	var s Scanner
	s.Arena = true
	s.Reset([]byte(`"` + strings.Repeat(`\n`, MaxArena) + `"`))
	if _, err := s.String(); err != nil {
		t.Fatal(err)
	}
	if cap(s.arena) <= MaxArena {
		t.Fatalf("arena of %d bytes after a %d-byte string", cap(s.arena), MaxArena)
	}
	s.Reset(nil)
	if cap(s.arena) != 0 {
		t.Errorf("Reset kept an arena of %d bytes", cap(s.arena))
	}
}

// allocated returns the bytes and allocations of one call of f, averaged
// over runs.
func allocated(runs int, f func()) (bytes, count float64) {
	// MemStats counts the whole process: a runtime or left-over goroutine
	// may allocate during a round. The least of three rounds is what f
	// itself costs; a regression shows in every round.
	f()
	bytes, count = math.Inf(1), math.Inf(1)
	for range 3 {
		var a, b runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		for range runs {
			f()
		}
		runtime.ReadMemStats(&b)
		bytes = min(bytes, float64(b.TotalAlloc-a.TotalAlloc)/float64(runs))
		count = min(count, float64(b.Mallocs-a.Mallocs)/float64(runs))
	}
	return bytes, count
}

// TestStringGrowth: a string four times as long costs four times the
// bytes allocated, in one allocation, for each kind of string.
func TestStringGrowth(t *testing.T) {
	for _, c := range []struct {
		name string
		make func(n int) []byte
	}{
		{"prose", func(n int) []byte { return benchProse(n, true) }},
		{"tool args", benchToolArgs},
		{"all escapes", func(n int) []byte { return AppendString(nil, strings.Repeat("\n", n/2)) }},
		{"escapes at both ends", func(n int) []byte { return []byte(`"\n` + strings.Repeat("x", n) + `\t"`) }},
		{"surrogates", func(n int) []byte { return []byte(`"` + strings.Repeat(`\ud83d\ude00`, n/12) + `"`) }},
	} {
		cost := func(n int) (float64, float64) {
			in := c.make(n)
			var s Scanner
			return allocated(20, func() {
				s.Reset(in)
				if _, err := s.String(); err != nil {
					t.Fatal(err)
				}
			})
		}
		b1, n1 := cost(16 << 10)
		b4, n4 := cost(64 << 10)
		if r := b4 / b1; r < 3 || r > 5 {
			t.Errorf("%s: %.0f bytes allocated for 16 KiB, %.0f for 64 KiB: %.2fx, want about 4x", c.name, b1, b4, r)
		}
		if n1 > 1.5 || n4 > 1.5 {
			t.Errorf("%s: %v allocations for 16 KiB, %v for 64 KiB, want 1", c.name, n1, n4)
		}
	}
}

// TestShortStringInLongInput: a short string with an escape allocates for
// itself, not for the input after it.
func TestShortStringInLongInput(t *testing.T) {
	in := []byte(`["a\nb",` + strings.Repeat(`"padding",`, 100_000) + `"z"]`)
	var s Scanner
	bytes, _ := allocated(20, func() {
		s.Reset(in)
		s.ArrayStart()
		if v, err := s.String(); err != nil || v != "a\nb" {
			t.Fatalf("got %q, %v", v, err)
		}
	})
	if bytes > 128 {
		t.Errorf("a 3-byte string allocated %.0f bytes in a %d-byte input", bytes, len(in))
	}
}

// A caller that keeps its strings gives the scanner an arena sized to the
// input: every string and kept value lands in it, in one allocation, and
// after UseArena(nil) a Reset does not hand that memory out again.
func TestUseArenaHoldsTheInput(t *testing.T) {
	in := []byte(`{"a":"plain","b":"esc\"aped\u00e9","c":{"x":[1,2]},"d":""}`)
	var s Scanner
	s.Arena = true
	s.Reset(in)
	arena := make([]byte, 0, len(in))
	s.UseArena(arena)
	var got []string
	var kept []byte
	err := s.Object(func(key string) error {
		if key == "c" {
			raw, err := s.Raw()
			kept = s.Keep(raw)
			return err
		}
		v, err := s.String()
		got = append(got, v)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	s.UseArena(nil)
	want := []string{"plain", "esc\"apedé", ""}
	for i, v := range got {
		if v != want[i] {
			t.Fatalf("string %d = %q, want %q", i, v, want[i])
		}
	}
	if string(kept) != `{"x":[1,2]}` || cap(kept) != len(kept) {
		t.Fatalf("kept %q (cap %d)", kept, cap(kept))
	}
	// Everything lies in the one buffer given.
	base := unsafe.Pointer(unsafe.SliceData(arena[:1]))
	end := uintptr(base) + uintptr(cap(arena))
	for _, p := range []unsafe.Pointer{unsafe.Pointer(unsafe.StringData(got[0])), unsafe.Pointer(unsafe.StringData(got[1])), unsafe.Pointer(unsafe.SliceData(kept))} {
		if uintptr(p) < uintptr(base) || uintptr(p) >= end {
			t.Fatal("a string or kept value is outside the arena given")
		}
	}
	// The next input does not write over what was kept.
	s.Reset([]byte(`"zzzzzzzzzzzzzzzzzzzzzzzzzzzzz"`))
	if _, err := s.String(); err != nil {
		t.Fatal(err)
	}
	if got[0] != "plain" || got[1] != "esc\"apedé" || string(kept) != `{"x":[1,2]}` {
		t.Fatalf("a later read changed kept strings: %q %q", got, kept)
	}
}
