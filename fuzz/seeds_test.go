package fuzz

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// Wire seeds shared by the decode targets (FuzzDecode, FuzzDifferential).

// goldenWires returns the frames the TypeScript peer wrote for the codec's
// golden fixtures.
func goldenWires(tb testing.TB) [][]byte {
	data, err := os.ReadFile("../codec/testdata/golden-peer-1.0.0.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	var out [][]byte
	for line := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		var g struct {
			Hex string `json:"hex"`
		}
		if err := json.Unmarshal([]byte(line), &g); err != nil {
			tb.Fatal(err)
		}
		b, err := hex.DecodeString(g.Hex)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// rawTag is a tag with any field number (protowire.AppendTag refuses none,
// but spells out numbers beyond the valid range only through a varint).
func rawTag(num uint64, typ protowire.Type) []byte {
	return protowire.AppendVarint(nil, num<<3|uint64(typ))
}

// nestedLists is a CUSTOM event whose value is depth list_values, each
// holding the next, around a number: built from the inside out.
func nestedLists(depth int) []byte {
	v := wvNumBits(math.Float64bits(1))
	for range depth {
		v = wvList(v)
	}
	return wCustom(v)
}

// repeatedValue is a CUSTOM event whose singular value field occurs n
// times; protobuf merges the occurrences (the last number wins).
func repeatedValue(n int) []byte {
	body := wCat(wMsg(1, wVarint(1, enumCustom)), wStr(2, "c"))
	for i := range n {
		body = append(body, wBytes(3, wvNumBits(math.Float64bits(float64(i))))...)
	}
	return wBytes(armCustom, body)
}

// emptyMessages is a MESSAGES_SNAPSHOT of n empty messages (2 bytes each on
// the wire).
func emptyMessages(n int) []byte {
	body := wMsg(1, wVarint(1, enumMessagesSnapshot))
	body = append(body, bytes.Repeat([]byte{0x12, 0x00}, n)...)
	return wBytes(armMessagesSnapshot, body)
}

// nestedMerges is a CUSTOM event whose value is a Struct nested levels
// deep, where every level repeats struct_value width times: the first
// occurrence maps "a" to a string, later ones add keys, the last maps "a"
// to the next level. Protobuf merges the repeated Structs at every level,
// a repeated map key replacing the earlier value (not merging with it).
func nestedMerges(levels, width int) []byte {
	inner := wvNumBits(math.Float64bits(0.5))
	for l := range levels {
		v := wvStruct(wsEntry("a", wvStr("replaced")))
		for w := range width {
			v = append(v, wvStruct(wsEntry(string(rune('b'+w%20)), wvBool(l%2 == 0)))...)
		}
		inner = append(v, wvStruct(wsEntry("a", inner))...)
	}
	return wCustom(inner)
}

// repeatedArm is an Event whose arm occurs n times, each occurrence adding
// a metadata entry to base_event and changing message_id: the arm, its
// base_event and its metadata Struct all merge.
func repeatedArm(n int) []byte {
	var out []byte
	for i := range n {
		k := string(rune('a' + i%26))
		out = append(out, wEvent(armTextMessageContent, enumTextMessageContent, wStr(2, "m"+k))...)
		out = append(out, wMsg(armTextMessageContent, wMsg(1, wMsg(4, wsEntry(k, wvStr(k)))))...)
	}
	return out
}

// attackSeeds are the hostile frames every decode target starts from
// (small enough for the fuzzing corpus).
func attackSeeds() map[string][]byte {
	ok := wEvent(armTextMessageContent, enumTextMessageContent, wStr(2, "m"), wStr(3, "hi"))
	return map[string][]byte{
		"empty":               {},
		"ok":                  ok,
		"nan":                 wCustom(wvNumBits(0x7ff8000000000001)),
		"+inf":                wCustom(wvNumBits(0x7ff0000000000000)),
		"-inf":                wCustom(wvNumBits(0xfff0000000000000)),
		"-0":                  wCustom(wvNumBits(0x8000000000000000)),
		"subnormal":           wCustom(wvNumBits(1)),
		"truncated varint":    append(wTag(armCustom, protowire.BytesType), 0x80),
		"overlong varint":     append(wTag(armCustom, protowire.VarintType), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
		"10-byte varint":      append(wTag(armCustom, protowire.VarintType), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
		"truncated tag":       {0xff},
		"field 0":             append(rawTag(0, protowire.BytesType), 0x00),
		"field 2^29":          wCat(ok, rawTag(1<<29, protowire.BytesType), []byte{0x00}),
		"field 2^29-1":        wCat(ok, rawTag(1<<29-1, protowire.BytesType), []byte{0x00}),
		"only field 2^29-1":   wCat(rawTag(1<<29-1, protowire.BytesType), []byte{0x00}),
		"group":               wCat(ok, rawTag(50, protowire.StartGroupType), wVarint(1, 5), rawTag(50, protowire.EndGroupType)),
		"unbalanced group":    wCat(ok, rawTag(50, protowire.StartGroupType), wVarint(1, 5)),
		"stray end group":     wCat(ok, rawTag(50, protowire.EndGroupType)),
		"group on an arm":     wCat(rawTag(armCustom, protowire.StartGroupType), rawTag(armCustom, protowire.EndGroupType)),
		"fixed32 on a field":  wCat(wMsg(armCustom, wMsg(1, wVarint(1, enumCustom)), wTag(2, protowire.Fixed32Type), []byte{1, 2, 3, 4})),
		"length past end":     wCat(wTag(armCustom, protowire.BytesType), protowire.AppendVarint(nil, 100), []byte{1, 2, 3}),
		"declared 4 GiB":      wCat(wTag(armCustom, protowire.BytesType), protowire.AppendVarint(nil, 1<<32-1), []byte{1, 2, 3}),
		"two arms":            wCat(ok, wEvent(armCustom, enumCustom, wStr(2, "c"))),
		"arm twice":           wCat(ok, ok),
		"type disagrees":      wEvent(armCustom, enumTextMessageContent, wStr(2, "c")),
		"no base_event":       wMsg(armCustom, wStr(2, "c")),
		"unknown only":        wMsg(40, wStr(1, "x")),
		"value without kind":  wCustom(nil),
		"entry without value": wCustom(wvStruct(wMsg(1, wStr(1, "k")))),
		"bad utf-8":           wEvent(armTextMessageContent, enumTextMessageContent, wStr(2, "m"), wStr(3, "\xff")),
		"bad utf-8 key":       wCustom(wvStruct(wsEntry("\xc3", wvNull()))),
		"duplicate key":       wCustom(wvStruct(wsEntry("k", wvNumBits(0)), wsEntry("j", wvNull()), wsEntry("k", wvStr("s")))),
		"deep 300":            nestedLists(300),
		"repeated value 100":  repeatedValue(100),
		"nested merges":       nestedMerges(6, 3),
		"repeated arm":        repeatedArm(30),
		"unknown op":          wEvent(armStateDelta, enumStateDelta, wMsg(2, wVarint(1, 9), wStr(2, "/a"))),
		"activity no content": wEvent(armMessagesSnapshot, enumMessagesSnapshot,
			wMsg(2, wStr(1, "1"), wStr(2, "activity"), wStr(12, "a"))),
		"contradicting carriers": wEvent(armMessagesSnapshot, enumMessagesSnapshot,
			wMsg(2, wStr(1, "1"), wStr(2, "assistant"), wMsg(8, wMsg(1, wStr(1, "t"))))),
		"tool result both": wEvent(armToolCallResult, enumToolCallResult, wStr(3, "m"), wStr(4, "t"), wStr(5, "s"),
			wMsg(7, wMsg(1, wStr(1, "t")))),
		"part two arms": wEvent(armToolCallResult, enumToolCallResult, wStr(3, "m"), wStr(4, "t"),
			wMsg(7, wMsg(1, wStr(1, "t")), wMsg(2, wMsg(1, wMsg(2, wStr(1, "u")))))),
		"unsafe timestamp": wMsg(armTextMessageContent, wMsg(1, wVarint(1, enumTextMessageContent), wVarint(2, 1<<60)), wStr(2, "m")),
		"run finished outcome": wEvent(armRunFinished, enumRunFinished, wStr(2, "t"), wStr(3, "r"), wStr(5, "success"),
			wStr(8, "p1"), wMsg(6, wStr(1, "i"), wStr(2, "r"))),
	}
}

// bigAttackSeeds are the large hostile frames, for the seed run only.
func bigAttackSeeds() map[string][]byte {
	return map[string][]byte{
		"deep 10000":               nestedLists(10000),
		"a million empty messages": emptyMessages(1_000_000),
		"value repeated 100000":    repeatedValue(100_000),
		"nested merges 12x8":       nestedMerges(12, 8),
		"arm repeated 20000":       repeatedArm(20_000),
	}
}
