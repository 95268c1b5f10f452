package difftest

import (
	"reflect"

	"github.com/agwire/agwire/event"
)

// Filled events: a typed event of a type picked from the registry, its
// fields filled from a byte stream with valid and invalid values (invalid
// UTF-8, names outside their sets, unsafe integers, broken, lossy or
// duplicate-keyed dynamic values, two carriers of a union, rules broken).

// filler makes values from a byte stream, cycling through it.
type filler struct {
	data []byte
	i    int
}

func (f *filler) next() byte { b := f.data[f.i%len(f.data)]; f.i++; return b }

// fillStrings are the strings a filled string field takes: names inside
// and outside the sets, empty, non-ASCII and invalid UTF-8.
var fillStrings = []string{"", "a", "user", "assistant", "tool", "reasoning", "function", "resolved", "success",
	"interrupt", "suspended", "message", "text", "image", "data", "url", "file", "add", "test", "h\u00e9", "\xff", "bot"}

// fillValues are the texts a filled dynamic value takes: valid, lossy
// (2^53+1, 1e400), cut, duplicate-keyed, a lone surrogate, whitespace.
var fillValues = []string{`null`, `1`, `"s"`, `{}`, `{"a":1}`, `[1,{"b":null}]`, `{"a":1,"a":2}`, `9007199254740993`,
	`1e400`, `{"x":`, `true`, `{"m":{"n":[[[]]]}}`, `"\ud800"`, `[]`, "{\r\n\"a\": 1\n}"}

// fillInts are the integers a filled int64 field takes: safe, at the edge
// of a double's integers, and beyond it.
var fillInts = []int64{0, 1, -1, 1 << 53, 1<<53 - 1, -(1 << 60), 1733140800123}

// Fill returns the filled event of seed: its type is event.Types()[seed
// mod their number], its fields filled from four bytes made from seed.
func Fill(seed int) event.Event {
	return FillFrom([]byte{byte(seed), byte(seed >> 8), byte(seed * 7), byte(seed * 13)}, seed)
}

// FillFrom returns an event of type event.Types()[pick mod their number],
// its fields filled from data (cycled; empty data counts as one zero byte).
func FillFrom(data []byte, pick int) event.Event {
	if len(data) == 0 {
		data = []byte{0}
	}
	f := &filler{data: data}
	types := event.Types()
	ev := event.New(types[(pick%len(types)+len(types))%len(types)])
	f.fill(reflect.ValueOf(ev).Elem(), 0)
	return ev
}

func (f *filler) fill(v reflect.Value, depth int) {
	switch v.Type() {
	case reflect.TypeFor[event.RawValue](), reflect.TypeFor[event.Object]():
		if b := f.next(); b%3 != 0 {
			v.SetBytes([]byte(fillValues[int(b)%len(fillValues)]))
		}
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fillStrings[int(f.next())%len(fillStrings)])
	case reflect.Bool:
		v.SetBool(f.next()%2 == 0)
	case reflect.Int64:
		v.SetInt(fillInts[int(f.next())%len(fillInts)])
	case reflect.Pointer:
		if b := f.next(); b%2 == 0 && depth < 4 {
			v.Set(reflect.New(v.Type().Elem()))
			f.fill(v.Elem(), depth+1)
		}
	case reflect.Slice:
		if depth >= 4 {
			return
		}
		n := int(f.next() % 4)
		if n == 3 {
			return // nil
		}
		v.Set(reflect.MakeSlice(v.Type(), n, n))
		for i := range n {
			f.fill(v.Index(i), depth+1)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				f.fill(v.Field(i), depth)
			}
		}
	}
}
