package codec_test

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/gen/aguipb"
)

// Frames built to make a decoder do more work, or hold more memory, than
// their size. Each builder takes a target size in bytes and returns a frame
// of about that size; the tests check that the cost grows in proportion.

// aRepeatedValue is a CUSTOM event whose singular `value` field occurs over
// and over: protobuf merges the occurrences, and a decoder that merges by
// concatenating copies the frame once per occurrence.
func aRepeatedValue(size int) []byte {
	one := wBytes(3, wvNum(1.5)) // value: 11 bytes
	n := size / len(one)
	body := make([]byte, 0, size+32)
	body = append(body, wBase(hEnumCustom)...)
	body = append(body, wStr(2, "c")...)
	for i := 0; i < n; i++ {
		body = append(body, one...)
	}
	return wBytes(hArmCustom, body)
}

// aNestedMerge is a CUSTOM event whose value nests 250 Structs, each level
// repeating struct_value and the entry's value with an empty first
// occurrence: a decoder that merges by copying copies the whole subtree at
// every level, and holds all the copies at once. The bulk sits at the
// bottom, as a list of numbers.
func aNestedMerge(size int) []byte {
	const levels = 250
	n := (size - levels*16) / 11
	leaf := make([]byte, 0, 11*n+8)
	for i := 0; i < n; i++ {
		leaf = protowire.AppendTag(leaf, 1, protowire.BytesType)
		leaf = protowire.AppendBytes(leaf, wvNum(float64(i)))
	}
	leaf = wBytes(6, leaf) // list_value
	// Every level puts the level below last, so the frame is the levels'
	// prefixes, outermost first, then the leaf: build the prefixes from the
	// inside out (their lengths depend on what they hold), without copying
	// the bulk once per level.
	prefixes := make([][]byte, levels)
	inner := len(leaf)
	for i := levels - 1; i >= 0; i-- {
		// value { struct_value {} , struct_value { fields: entry } }
		// entry { key "a", value {}, value <inner> }
		var p []byte
		entry := 3 + 2 + 1 + protowire.SizeVarint(uint64(inner)) + inner
		body := 1 + protowire.SizeVarint(uint64(entry)) + entry
		p = append(p, 0x2a, 0x00, 0x2a)
		p = protowire.AppendVarint(p, uint64(body))
		p = append(p, 0x0a)
		p = protowire.AppendVarint(p, uint64(entry))
		p = append(p, 0x0a, 0x01, 'a', 0x12, 0x00, 0x12)
		p = protowire.AppendVarint(p, uint64(inner))
		prefixes[i] = p
		inner += len(p)
	}
	v := make([]byte, 0, inner)
	for _, p := range prefixes {
		v = append(v, p...)
	}
	v = append(v, leaf...)
	return wEvent(hArmCustom, hEnumCustom, wStr(2, "c"), wBytes(3, v))
}

// aEmptyMessages is a MESSAGES_SNAPSHOT of empty messages: two bytes each on
// the wire, a full struct each in Go.
func aEmptyMessages(size int) []byte {
	n := size / 2
	body := make([]byte, 0, size+16)
	body = append(body, wBase(hEnumMessagesSnapshot)...)
	for i := 0; i < n; i++ {
		body = append(body, 0x12, 0x00)
	}
	return wBytes(hArmMessagesSnapshot, body)
}

// aUserMessages is a MESSAGES_SNAPSHOT of minimal valid messages (role
// only): the legitimate worst case for memory per wire byte.
func aUserMessages(size int) []byte {
	msg := wBytes(2, wStr(2, "user"))
	n := size / len(msg)
	body := make([]byte, 0, size+16)
	body = append(body, wBase(hEnumMessagesSnapshot)...)
	for i := 0; i < n; i++ {
		body = append(body, msg...)
	}
	return wBytes(hArmMessagesSnapshot, body)
}

// cost decodes frame with c and returns the bytes allocated, the fields
// read (the decoder's unit of work: everything else it does is linear in
// the bytes of those fields) and, for the log only, the time taken.
func cost(t *testing.T, c codec.Codec, frame []byte) (uint64, int, time.Duration, error) {
	t.Helper()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err := c.Unmarshal(frame)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	work, err2 := codec.DecodeWork(c, frame)
	if (err == nil) != (err2 == nil) {
		t.Fatalf("Unmarshal: %v; DecodeWork: %v", err, err2)
	}
	return after.TotalAlloc - before.TotalAlloc, work, took, err
}

// TestDecodeCostIsLinear: for each attack, decoding a 4 MB frame costs at
// most about 4 times what a 1 MB frame costs, in fields read and in bytes
// allocated (≤ 5× each: a linear decoder is at 4×, a quadratic one at 16×).
// Time is logged, not asserted (BenchmarkAttack measures it); work and
// allocation are deterministic. It also bounds the bytes allocated per
// input byte.
func TestDecodeCostIsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 4 MB frames")
	}
	for _, tc := range []struct {
		name    string
		build   func(int) []byte
		want    error // nil: decodes
		perByte float64
	}{
		{"repeated singular field", aRepeatedValue, nil, 4},
		{"nested repeated merges", aNestedMerge, nil, 6},
		{"a million empty messages", aEmptyMessages, codec.ErrBudget, 2},
		{"minimal messages", aUserMessages, nil, codec.DefaultMemoryBudget + 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			unit := 1 << 20
			if raceEnabled {
				unit = 128 << 10
			}
			small, large := tc.build(unit), tc.build(4*unit)
			a1, w1, t1, err1 := cost(t, codec.Codec{}, small)
			a4, w4, t4, err4 := cost(t, codec.Codec{}, large)
			for _, err := range []error{err1, err4} {
				if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
					t.Fatalf("decode: %v, want %v", err, tc.want)
				}
			}
			t.Logf("1 unit: %d fields, %d B allocated, %v; 4 units: %d fields, %d B, %v", w1, a1, t1, w4, a4, t4)
			if r := float64(a4) / float64(a1); r > 5 {
				t.Errorf("4× input allocated %.1f× the bytes", r)
			}
			if r := float64(w4) / float64(w1); r > 5 {
				t.Errorf("4× input read %.1f× the fields", r)
			}
			if w4 > len(large) {
				t.Errorf("read %d fields from %d bytes", w4, len(large))
			}
			if r := float64(a4) / float64(len(large)); r > tc.perByte && !raceEnabled {
				t.Errorf("allocated %.1f bytes per input byte, bound %.0f", r, tc.perByte)
			}
		})
	}
}

// TestDecodeMergesLikeProtobuf: the attack frames decode to what protobuf-go
// reads from them (the merge rules are protobuf's, only cheaper).
func TestDecodeMergesLikeProtobuf(t *testing.T) {
	// A Struct value in three occurrences, the middle one empty: merged, they
	// are one object of two keys.
	emptyInside := hCustom(wCat(wvStruct(wsEntry("a", wvNum(1))), wBytes(5, nil), wvStruct(wsEntry("b", wvNull()))))
	// A Struct entry holding a field of another wire type: protobuf skips it
	// as an unknown field of the entry. (Found by fuzz.FuzzDifferential.)
	oddEntry := hCustom(wvStruct(wMsg(1, wFixed64(1, 7), wStr(1, "a"), wVarint(2, 1), wBytes(2, wvNull()))))
	for _, frame := range [][]byte{aRepeatedValue(4096), aNestedMerge(8192), emptyInside, oddEntry} {
		ev, err := codec.Unmarshal(frame)
		if err != nil {
			t.Fatal(err)
		}
		var m aguipb.Event
		if err := proto.Unmarshal(frame, &m); err != nil {
			t.Fatal(err)
		}
		canon, err := proto.MarshalOptions{Deterministic: true}.Marshal(&m)
		if err != nil {
			t.Fatal(err)
		}
		again, err := codec.Append(nil, ev)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, canon) {
			t.Errorf("agwire's merge differs from protobuf-go's:\n got %x\nwant %x", again[:min(len(again), 64)], canon[:min(len(canon), 64)])
		}
	}
}

// TestMemoryBudget: the budget is checked before a repeated field is
// allocated, and can be raised or removed.
func TestMemoryBudget(t *testing.T) {
	// 8,192 messages, a 192-byte struct each: 1.5 MB for a 64 KiB frame,
	// beyond a budget of 1× plus the 1 MiB floor, within the default.
	frame := aUserMessages(1 << 16)
	if _, err := (codec.Codec{MemoryBudget: 1}).Unmarshal(frame); !errors.Is(err, codec.ErrBudget) {
		t.Errorf("budget 1: %v, want ErrBudget", err)
	}
	if _, err := (codec.Codec{}).Unmarshal(frame); err != nil {
		t.Errorf("default budget: %v", err)
	}
	big := aUserMessages(1 << 18) // 32,768 messages: 6 MB of structs for 256 KiB
	_, err := (codec.Codec{MemoryBudget: 8}).Unmarshal(big)
	var ce *codec.Error
	if !errors.Is(err, codec.ErrBudget) || !errors.As(err, &ce) || ce.Path != "messages" {
		t.Fatalf("budget 8: %v, want ErrBudget at messages", err)
	}
	if !strings.Contains(err.Error(), "MemoryBudget") {
		t.Errorf("error does not name the option: %v", err)
	}
	if _, err := (codec.Codec{MemoryBudget: -1}).Unmarshal(big); err != nil {
		t.Errorf("no budget: %v", err)
	}
	if _, err := (codec.Codec{}).Unmarshal(big); err != nil {
		t.Errorf("default budget: %v", err)
	}
}

// TestErrorSizeBounded: an error's text does not grow with the input that
// caused it — long keys and deep paths are shortened, long numbers cut.
func TestErrorSizeBounded(t *testing.T) {
	// 100 levels of Structs under 1 KB keys, a NaN at the bottom: an
	// unbounded path would be 100 KB.
	key := strings.Repeat("k", 1000)
	v := wvBits(0x7ff8000000000001)
	for i := 0; i < 100; i++ {
		v = wvStruct(wsEntry(key, v))
	}
	frame := hCustom(v)
	_, err := codec.Unmarshal(frame)
	if !errors.Is(err, codec.ErrNonFinite) {
		t.Fatalf("got %v", err)
	}
	if n := len(err.Error()); n > 1200 {
		t.Errorf("error of %d bytes for a %d-byte frame: %.200s…", n, len(frame), err)
	}
	if !strings.Contains(err.Error(), "…") {
		t.Errorf("shortened path is not marked: %.300s", err)
	}
	// A 64 KB number that a double cannot hold.
	num := "1." + strings.Repeat("0", 64<<10) + "1"
	_, err = codec.AppendFromJSON(nil, []byte(`{"type":"CUSTOM","name":"c","value":`+num+`}`))
	if !errors.Is(err, codec.ErrLossyNumber) {
		t.Fatalf("got %v", err)
	}
	if n := len(err.Error()); n > 300 {
		t.Errorf("lossy-number error of %d bytes: %.200s…", n, err)
	}
	// A long unknown role and a long unknown field name.
	role := strings.Repeat("r", 64<<10)
	_, err = codec.Unmarshal(hSnapshot(wCat(wStr(1, "1"), wStr(2, role))))
	if !errors.Is(err, codec.ErrMalformed) || len(err.Error()) > 400 {
		t.Errorf("unknown role: %d bytes: %.200s", len(err.Error()), err)
	}
	_, err = event.Parse([]byte(`{"type":"RAW","` + role + `":1}`))
	if !errors.Is(err, event.ErrUnknownField) || len(err.Error()) > 400 {
		t.Errorf("unknown field: %d bytes: %.200s", len(err.Error()), err)
	}
}

// TestFieldNumberRange: field numbers above 2^29-1 are malformed wherever
// they appear, as protobuf-go and @ag-ui/proto have them; the largest valid
// number is skipped as an unknown field.
func TestFieldNumberRange(t *testing.T) {
	ok := wEvent(15, 14, wStr(2, "plan")) // STEP_FINISHED
	big := protowire.AppendTag(nil, protowire.MaxValidNumber+1, protowire.BytesType)
	max := protowire.AppendTag(nil, protowire.MaxValidNumber, protowire.BytesType)
	for _, tc := range []struct {
		name string
		in   []byte
		bad  bool
	}{
		{"envelope", append(append([]byte{}, ok...), append(big, 0)...), true},
		{"envelope, max", append(append([]byte{}, ok...), append(max, 0)...), false},
		{"event body", wEvent(15, 14, wStr(2, "plan"), append(big, 0)), true},
		{"base event", wMsg(15, wBase(14, append(big, 0)), wStr(2, "plan")), true},
		{"struct entry", hCustom(wvStruct(wCat(wBytes(1, wCat(wStr(1, "a"), wBytes(2, wvNull()), append(big, 0)))))), true},
		{"lone unknown arm", append(big, 0), true},
	} {
		_, err := codec.Unmarshal(tc.in)
		var pe error
		if err := proto.Unmarshal(tc.in, &aguipb.Event{}); err != nil {
			pe = err
		}
		if tc.bad != (err != nil) || tc.bad != (pe != nil) {
			t.Errorf("%s: agwire %v, protobuf-go %v, want refused=%v", tc.name, err, pe, tc.bad)
		}
		if tc.bad && !errors.Is(err, codec.ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", tc.name, err)
		}
	}
}

// TestNoSharedCapacity: no parsed or decoded value shares spare capacity
// with another: an append to any dynamic value leaves every other field as
// it was.
func TestNoSharedCapacity(t *testing.T) {
	in := `{"type":"RUN_STARTED","threadId":"t1","runId":"r1","parentRunId":"p1","rawEvent":{"x":1},"metadata":{"m":2},` +
		`"input":{"threadId":"t2","runId":"r2","state":{"s":3},"messages":[{"id":"m1","role":"user","content":[{"type":"text","text":"hi","metadata":{"pm":4}}],"metadata":{"mm":5}},` +
		`{"id":"m2","role":"activity","activityType":"a","content":{"c":6}}],"tools":[{"name":"n","description":"d","parameters":{"p":7},"metadata":{"tm":8}}],` +
		`"forwardedProps":{"f":9},"resume":[{"interruptId":"i","status":"resolved","payload":{"pl":10},"metadata":{"rm":11}}]},"protocolVersion":"1.0"}`
	parsed, err := event.Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	wire, err := codec.Append(nil, parsed)
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := codec.Unmarshal(wire)
	if err != nil {
		t.Fatal(err)
	}
	for name, ev := range map[string]event.Event{"parsed": parsed, "decoded": decoded} {
		rs := ev.(*event.RunStarted)
		before, _ := event.Marshal(rs)
		values := []*[]byte{
			(*[]byte)(&rs.RawEvent), (*[]byte)(&rs.Metadata),
			(*[]byte)(&rs.Input.State), (*[]byte)(&rs.Input.ForwardedProps),
			(*[]byte)(&rs.Input.Messages[0].Metadata), (*[]byte)(&rs.Input.Messages[0].Parts[0].Metadata),
			(*[]byte)(&rs.Input.Messages[1].ActivityContent),
			(*[]byte)(&rs.Input.Tools[0].Parameters), (*[]byte)(&rs.Input.Tools[0].Metadata),
			(*[]byte)(&rs.Input.Resume[0].Payload), (*[]byte)(&rs.Input.Resume[0].Metadata),
		}
		for i, v := range values {
			orig := *v
			grown := append(orig, strings.Repeat("\x00", 64)...)
			_ = grown // the append must not have written where anything else lives
			after, err := event.Marshal(rs)
			if err != nil || !bytes.Equal(after, before) {
				t.Errorf("%s: appending to value %d changed the event:\n%s\n%s", name, i, before, after)
			}
		}
	}
}

// TestThinkingDoesNotAlias: a THINKING_* event's Kind does not share memory
// with its JSON text.
func TestThinkingDoesNotAlias(t *testing.T) {
	ev, err := event.Parse([]byte(`{"type":"THINKING_START","title":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	th := ev.(*event.Thinking)
	for i := range th.JSON {
		th.JSON[i] = 'Z'
	}
	if th.Kind != event.TypeThinkingStart {
		t.Errorf("Kind changed to %q when the JSON text was overwritten", th.Kind)
	}
	if cap(th.JSON) != len(th.JSON) {
		t.Errorf("JSON has spare capacity %d", cap(th.JSON)-len(th.JSON))
	}
}

// externalEvent is an event type defined outside package event.
type externalEvent struct{ event.Base }

func (*externalEvent) Type() event.Type { return event.TypeRunStarted }

// TestExternalEventTypes: every path refuses a type defined outside package
// event with ErrUnsupportedEvent, and none panics.
func TestExternalEventTypes(t *testing.T) {
	ev := &externalEvent{}
	if _, err := codec.Append(nil, ev); !errors.Is(err, event.ErrUnsupportedEvent) {
		t.Errorf("Append: %v", err)
	}
	if _, err := event.Marshal(ev); !errors.Is(err, event.ErrUnsupportedEvent) {
		t.Errorf("Marshal: %v", err)
	}
}

// BenchmarkAttack reports time and bytes allocated per input byte (MB/s,
// B/op over SetBytes) for the attack frames, beside proto.Unmarshal of the
// same bytes into the generated types.
func BenchmarkAttack(b *testing.B) {
	for _, tc := range []struct {
		name  string
		frame []byte
	}{
		{"repeated-value-1MB", aRepeatedValue(1 << 20)},
		{"nested-merge-1MB", aNestedMerge(1 << 20)},
		{"empty-messages-1MB", aEmptyMessages(1 << 20)},
		{"user-messages-1MB", aUserMessages(1 << 20)},
	} {
		b.Run(tc.name+"/agwire", func(b *testing.B) {
			b.SetBytes(int64(len(tc.frame)))
			b.ReportAllocs()
			for b.Loop() {
				_, _ = codec.Unmarshal(tc.frame)
			}
		})
		b.Run(tc.name+"/protobuf-go", func(b *testing.B) {
			b.SetBytes(int64(len(tc.frame)))
			b.ReportAllocs()
			for b.Loop() {
				_ = proto.Unmarshal(tc.frame, new(aguipb.Event))
			}
		})
	}
}

// TestReplacedMembersValidated: protobuf reads every occurrence of a field,
// so an occurrence that a later one replaces (a Value kind, a duplicate
// Struct key's value) must be well-formed too, as protobuf-go has it.
// (Found by fuzz.FuzzDifferential: these decoded to the surviving value.)
func TestReplacedMembersValidated(t *testing.T) {
	for _, in := range [][]byte{
		// list_value holding a string with a bad byte, then null_value.
		[]byte("\x5a\x12\x0a\x02\x08\x0a\x12\x01\x63\x1a\x09\x32\x05\x0a\x03\x1a\x01\xff\x08\x00"),
		// struct_value with a bad key, then string_value "s".
		[]byte("\x5a\x17\x0a\x02\x08\x0a\x12\x01\x63\x1a\x0e\x2a\x09\x0a\x07\x0a\x01\xff\x12\x02\x08\x00\x1a\x01\x73"),
		// struct_value with a cut field, then string_value "s".
		[]byte("\x5a\x0f\x0a\x02\x08\x0a\x12\x01\x63\x1a\x06\x2a\x01\x30\x1a\x01\x73"),
		// string_value with a bad byte, then bool_value.
		hCustom(wCat(wStr(3, "\xff"), wVarint(4, 1))),
		// a key twice: the first value holds a bad string.
		hCustom(wvStruct(wsEntry("a", wvStr("\xff")), wsEntry("a", wvNull()))),
	} {
		_, err := codec.Unmarshal(in)
		perr := proto.Unmarshal(in, new(aguipb.Event))
		if !errors.Is(err, codec.ErrMalformed) || perr == nil {
			t.Errorf("%x: agwire %v, protobuf-go %v; want both to refuse", in, err, perr)
		}
	}
	// A replaced number may be anything, NaN included: only what is
	// written out must have a JSON spelling.
	in := hCustom(wCat(wvBits(0x7ff8000000000001), wvStr("ok")))
	if _, err := codec.Unmarshal(in); err != nil {
		t.Errorf("replaced NaN: %v", err)
	}
}

// TestOptionalNullIsAbsent: on an optional dynamic value (and a content
// part's metadata), JSON null is absence on every path: Parse reads it so,
// and now Append does not write it and Marshal does not print it, so a Go
// value holding "null" round-trips to the same bytes. (Found by
// fuzz.FuzzEncodeTyped.)
func TestOptionalNullIsAbsent(t *testing.T) {
	withNull := &event.RunFinished{ThreadID: "t", RunID: "r", Result: event.RawValue(" null "), Base: event.Base{RawEvent: event.RawValue("null")}}
	without := &event.RunFinished{ThreadID: "t", RunID: "r"}
	a, err1 := codec.Append(nil, withNull)
	b, err2 := codec.Append(nil, without)
	if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
		t.Errorf("Append: %x, %v; want %x, %v", a, err1, b, err2)
	}
	ja, _ := event.Marshal(withNull)
	jb, _ := event.Marshal(without)
	if !bytes.Equal(ja, jb) {
		t.Errorf("Marshal: %s, want %s", ja, jb)
	}
	part := &event.ToolCallResult{MessageID: "m", ToolCallID: "c", Parts: []event.ContentPart{{Type: "text", Text: "x", Metadata: event.RawValue("null")}}}
	w, err := codec.Append(nil, part)
	if err != nil {
		t.Fatal(err)
	}
	back, err := codec.Unmarshal(w)
	if err != nil || back.(*event.ToolCallResult).Parts[0].Metadata != nil {
		t.Errorf("part metadata null came back as %v, %v", back, err)
	}
}
