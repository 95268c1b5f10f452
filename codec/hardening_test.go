package codec_test

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// ---------------------------------------------------------------------------
// Wire builders. Every expected byte string in these tests is assembled from
// these, i.e. from protowire and the field numbers of wire-1.0.md, never
// copied from agwire's own output.

func wTag(n protowire.Number, t protowire.Type) []byte { return protowire.AppendTag(nil, n, t) }

// wRawTag is a tag with any wire type, the invalid 6 and 7 included.
func wRawTag(n uint64, wt uint64) []byte { return protowire.AppendVarint(nil, n<<3|wt) }

func wVarint(n protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(wTag(n, protowire.VarintType), v)
}

func wFixed64(n protowire.Number, v uint64) []byte {
	return protowire.AppendFixed64(wTag(n, protowire.Fixed64Type), v)
}

func wFixed32(n protowire.Number, v uint32) []byte {
	return protowire.AppendFixed32(wTag(n, protowire.Fixed32Type), v)
}

func wBytes(n protowire.Number, b []byte) []byte {
	return protowire.AppendBytes(wTag(n, protowire.BytesType), b)
}

func wStr(n protowire.Number, s string) []byte { return wBytes(n, []byte(s)) }

func wCat(parts ...[]byte) []byte {
	out := []byte{}
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// wMsg is a length-delimited field whose payload is the concatenation of parts.
func wMsg(n protowire.Number, parts ...[]byte) []byte { return wBytes(n, wCat(parts...)) }

// wBase is an event's base_event field (1): BaseEvent{type, more...}. A
// type of 0 (TEXT_MESSAGE_START) is proto3's default and is not written.
func wBase(enum uint64, more ...[]byte) []byte {
	var typ []byte
	if enum != 0 {
		typ = wVarint(1, enum)
	}
	return wMsg(1, append([][]byte{typ}, more...)...)
}

// wEvent is an Event envelope with one arm holding base_event + fields.
func wEvent(arm protowire.Number, enum uint64, fields ...[]byte) []byte {
	return wMsg(arm, append([][]byte{wBase(enum)}, fields...)...)
}

// google.protobuf.Value bodies (fields: 1 null_value, 2 number_value,
// 3 string_value, 4 bool_value, 5 struct_value, 6 list_value).
func wvNull() []byte              { return wVarint(1, 0) }
func wvNum(f float64) []byte      { return wFixed64(2, math.Float64bits(f)) }
func wvBits(b uint64) []byte      { return wFixed64(2, b) }
func wvStr(s string) []byte       { return wStr(3, s) }
func wvStruct(e ...[]byte) []byte { return wMsg(5, e...) }

func wvBool(b bool) []byte {
	if b {
		return wVarint(4, 1)
	}
	return wVarint(4, 0)
}

// wvList is a list_value holding the given Value bodies.
func wvList(values ...[]byte) []byte {
	var els [][]byte
	for _, v := range values {
		els = append(els, wBytes(1, v))
	}
	return wMsg(6, els...)
}

// wsEntry is one Struct.fields map entry (key 1, value 2). The empty key is
// not written, as proto3 leaves a default string out (and as the TS peer
// writes it).
func wsEntry(key string, value []byte) []byte {
	var k []byte
	if key != "" {
		k = wStr(1, key)
	}
	return wMsg(1, k, wBytes(2, value))
}

// Envelope arms and EventType values used below (wire-1.0.md).
const (
	hArmTextMessageStart   = 1
	hArmTextMessageContent = 2
	hArmTextMessageEnd     = 3
	hArmStateSnapshot      = 7
	hArmStateDelta         = 8
	hArmMessagesSnapshot   = 9
	hArmCustom             = 11
	hArmRunStarted         = 12
	hArmRunFinished        = 13
	hArmToolCallResult     = 22
	hArmActivityDelta      = 24

	hEnumTextMessageContent = 1
	hEnumTextMessageEnd     = 2
	hEnumStateSnapshot      = 6
	hEnumStateDelta         = 7
	hEnumMessagesSnapshot   = 8
	hEnumCustom             = 10
	hEnumRunStarted         = 11
	hEnumRunFinished        = 12
	hEnumToolCallResult     = 21
	hEnumActivityDelta      = 23
)

// hCustom is a CUSTOM event named "c" with the given value body.
func hCustom(value []byte) []byte {
	return wEvent(hArmCustom, hEnumCustom, wStr(2, "c"), wBytes(3, value))
}

// hSnapshot is a MESSAGES_SNAPSHOT holding Message bodies.
func hSnapshot(messages ...[]byte) []byte {
	var fields [][]byte
	for _, m := range messages {
		fields = append(fields, wBytes(2, m))
	}
	return wEvent(hArmMessagesSnapshot, hEnumMessagesSnapshot, fields...)
}

// hToolResult is a TOOL_CALL_RESULT with the given InputContent bodies.
func hToolResult(parts ...[]byte) []byte {
	fields := [][]byte{wStr(3, "m"), wStr(4, "t")}
	for _, p := range parts {
		fields = append(fields, wBytes(7, p))
	}
	return wEvent(hArmToolCallResult, hEnumToolCallResult, fields...)
}

// ---------------------------------------------------------------------------
// Helpers for results.

// hJSONValue parses JSON text into generic values (numbers as float64).
func hJSONValue(t testing.TB, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("invalid JSON %s: %v", b, err)
	}
	return v
}

// hSameJSON reports whether two JSON texts denote the same value.
func hSameJSON(t testing.TB, a, b []byte) bool {
	t.Helper()
	return reflect.DeepEqual(hJSONValue(t, a), hJSONValue(t, b))
}

// hCodecErr checks that err is a *codec.Error wrapping want and returns it.
func hCodecErr(t testing.TB, err, want error) *codec.Error {
	t.Helper()
	if err == nil {
		t.Errorf("no error, want %v", want)
		return nil
	}
	if !errors.Is(err, want) {
		t.Errorf("error %q does not wrap %q", err, want)
	}
	var ce *codec.Error
	if !errors.As(err, &ce) {
		t.Errorf("error %T is not a *codec.Error", err)
		return nil
	}
	return ce
}

func hDecodeJSON(t testing.TB, c codec.Codec, wire []byte) []byte {
	t.Helper()
	out, err := c.AppendJSONFromWire(nil, wire)
	if err != nil {
		t.Fatalf("decode %x: %v", wire, err)
	}
	return out
}

// ---------------------------------------------------------------------------

// TestDecodeHardening: each input is malformed in one way and must fail
// with the stated sentinel (ErrMalformed unless noted), with a message that
// says what is wrong and where (a field path or a byte offset inside the
// input).
func TestDecodeHardening(t *testing.T) {
	okTMC := wEvent(hArmTextMessageContent, hEnumTextMessageContent, wStr(2, "m"), wStr(3, "d"))
	userMsg := func(extra ...[]byte) []byte {
		return wCat(append([][]byte{wStr(1, "1"), wStr(2, "user")}, extra...)...)
	}
	roleMsg := func(role string, extra ...[]byte) []byte {
		return wCat(append([][]byte{wStr(1, "1"), wStr(2, role)}, extra...)...)
	}
	textPart := wMsg(1, wStr(1, "hi"))
	urlSource := wMsg(2, wStr(1, "https://x/y.png"))
	dataSource := wMsg(1, wStr(1, "AAAA"), wStr(2, "image/png"))
	imagePart := func(sources ...[]byte) []byte { return wMsg(2, wMsg(1, sources...)) }

	deepList := wvNum(1)
	for i := 0; i < 300; i++ {
		deepList = wvList(deepList)
	}
	deepStruct := wvNum(1)
	for i := 0; i < 300; i++ {
		deepStruct = wvStruct(wsEntry("a", deepStruct))
	}

	type tc struct {
		name   string
		in     []byte
		want   error
		msg    []string // substrings of the message (what is wrong)
		path   string   // exact path, if not ""
		offset int      // exact offset, if >= 0; -2: any (but inside the input or -1)
	}
	prefixLen := len(okTMC)
	cases := []tc{
		{"empty input", nil, codec.ErrMalformed, []string{"empty"}, "", -2},
		{"empty slice", []byte{}, codec.ErrMalformed, []string{"empty"}, "", -2},
		{"only an unknown varint field", wVarint(40, 1), codec.ErrMalformed, []string{"no event arm"}, "", 0},
		{"only unknown fixed fields", wCat(wFixed32(40, 1), wFixed64(41, 2)), codec.ErrMalformed, []string{"no event arm"}, "", 0},
		{"two different arms", wCat(okTMC, wEvent(hArmTextMessageEnd, hEnumTextMessageEnd, wStr(2, "m"))), codec.ErrMalformed,
			[]string{"TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END"}, "", prefixLen},
		{"two different arms, far apart", wCat(wEvent(hArmTextMessageEnd, hEnumTextMessageEnd, wStr(2, "m")), wVarint(40, 1), okTMC), codec.ErrMalformed,
			[]string{"TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END"}, "", -2},
		{"field number 0 in the envelope", wCat(okTMC, []byte{0x02, 0x00}), codec.ErrMalformed, []string{"field number"}, "", prefixLen},
		{"field number 0 varint", wCat([]byte{0x00, 0x00}, okTMC), codec.ErrMalformed, []string{"field number"}, "", 0},
		{"field number 0 inside the event", wMsg(hArmTextMessageContent, wBase(hEnumTextMessageContent), []byte{0x02, 0x00}), codec.ErrMalformed, []string{"field number"}, "", -2},
		{"wire type 6", wCat(okTMC, wRawTag(40, 6), []byte{0x01}), codec.ErrMalformed, []string{"wire type"}, "", prefixLen},
		{"wire type 7", wCat(okTMC, wRawTag(40, 7), []byte{0x01}), codec.ErrMalformed, []string{"wire type"}, "", prefixLen},
		{"wire type 6 inside the event", wMsg(hArmTextMessageContent, wBase(hEnumTextMessageContent), wRawTag(5, 6)), codec.ErrMalformed, []string{"wire type"}, "", -2},
		{"wire type 7 inside a Value", hCustom(wRawTag(7, 7)), codec.ErrMalformed, []string{"wire type"}, "", -2},
		{"truncated tag", wCat(okTMC, []byte{0x80}), codec.ErrMalformed, nil, "", prefixLen},
		{"truncated varint", wCat(okTMC, wTag(40, protowire.VarintType), []byte{0xff, 0xff}), codec.ErrMalformed, nil, "", prefixLen},
		{"varint longer than 10 bytes", wCat(okTMC, wTag(40, protowire.VarintType), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}), codec.ErrMalformed, nil, "", prefixLen},
		{"truncated fixed64", wCat(okTMC, wTag(40, protowire.Fixed64Type), []byte{1, 2, 3}), codec.ErrMalformed, nil, "", prefixLen},
		{"truncated fixed32", wCat(okTMC, wTag(40, protowire.Fixed32Type), []byte{1}), codec.ErrMalformed, nil, "", prefixLen},
		{"truncated length", []byte{hArmTextMessageContent<<3 | 2, 0x80}, codec.ErrMalformed, nil, "", 0},
		{"length beyond the end", []byte{hArmTextMessageContent<<3 | 2, 0x05, 0x0a}, codec.ErrMalformed, nil, "", 0},
		{"length beyond the end of an unknown field", wCat(okTMC, wTag(40, protowire.BytesType), []byte{0x7f, 1, 2}), codec.ErrMalformed, nil, "", prefixLen},
		{"length beyond the end inside the event", wMsg(hArmTextMessageContent, wBase(hEnumTextMessageContent), []byte{2<<3 | 2, 0x09, 'm'}), codec.ErrMalformed, nil, "", -2},
		{"start group without end", wCat(okTMC, wTag(40, protowire.StartGroupType), wVarint(1, 1)), codec.ErrMalformed, nil, "", prefixLen},
		{"end group without start", wCat(okTMC, wTag(40, protowire.EndGroupType)), codec.ErrMalformed, nil, "", prefixLen},
		{"end group without start, first", wCat(wTag(40, protowire.EndGroupType), okTMC), codec.ErrMalformed, nil, "", 0},
		{"groups closed in the wrong order", wCat(okTMC, wTag(40, protowire.StartGroupType), wTag(41, protowire.EndGroupType)), codec.ErrMalformed, nil, "", prefixLen},
		{"unbalanced group inside the event", wMsg(hArmTextMessageContent, wBase(hEnumTextMessageContent), wTag(9, protowire.StartGroupType)), codec.ErrMalformed, nil, "", -2},
		{"base type disagrees with the arm", wEvent(hArmTextMessageContent, hEnumTextMessageEnd, wStr(2, "m"), wStr(3, "d")), codec.ErrMalformed,
			[]string{"TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END"}, "", -2},
		{"base type left at its default (TEXT_MESSAGE_START)", wMsg(hArmTextMessageContent, wBase(0), wStr(2, "m")), codec.ErrMalformed,
			[]string{"TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_START"}, "", -2},
		{"base type beyond the enum", wEvent(hArmTextMessageContent, 99, wStr(2, "m")), codec.ErrMalformed, []string{"TEXT_MESSAGE_CONTENT", "99"}, "", -2},
		{"base type on TEXT_MESSAGE_START", wEvent(hArmTextMessageStart, hEnumTextMessageContent, wStr(2, "m")), codec.ErrMalformed, []string{"TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"}, "", -2},
		{"missing base_event", wMsg(hArmTextMessageContent, wStr(2, "m"), wStr(3, "d")), codec.ErrMalformed, []string{"base_event", "TEXT_MESSAGE_CONTENT"}, "", -2},
		{"empty arm", wMsg(hArmTextMessageContent), codec.ErrMalformed, []string{"base_event"}, "", -2},
		{"base_event as a varint", wMsg(hArmTextMessageContent, wVarint(1, 1), wStr(2, "m")), codec.ErrMalformed, []string{"base_event", "wire type"}, "", 2},
		{"base_event.type as a string", wMsg(hArmTextMessageContent, wMsg(1, wStr(1, "x"))), codec.ErrMalformed, []string{"wire type"}, "", 4},
		{"arm as a varint", wVarint(hArmTextMessageContent, 1), codec.ErrMalformed, []string{"TEXT_MESSAGE_CONTENT", "wire type"}, "", 0},
		{"arm as a varint after a good arm", wCat(okTMC, wVarint(hArmTextMessageContent, 1)), codec.ErrMalformed, []string{"wire type"}, "", prefixLen},
		// A known field with another wire type than its own. protobuf-go and
		// the TS peer skip such a field as unknown; agwire refuses the frame
		// ("bad wire types ... malformed", mapping-1.0.md).
		{"string field as a varint", wMsg(hArmTextMessageContent, wBase(hEnumTextMessageContent), wVarint(2, 5)), codec.ErrMalformed, []string{"wire type"}, "messageId", 6},
		{"optional bool as a string", wEvent(23, 22, wStr(3, "m"), wStr(4, "a"), wMsg(5), wStr(6, "yes")), codec.ErrMalformed, []string{"wire type"}, "replace", -2},
		{"invalid UTF-8 in a string field", wMsg(hArmTextMessageContent, wBase(hEnumTextMessageContent), wStr(2, "m\xff")), codec.ErrMalformed, []string{"UTF-8"}, "messageId", 6},
		{"invalid UTF-8 in an optional string", wEvent(hArmTextMessageStart, 0, wStr(2, "m"), wStr(3, "\xc3")), codec.ErrMalformed, []string{"UTF-8"}, "role", -2},
		{"invalid UTF-8 in a Value string", hCustom(wvStr("\xed\xa0\x80")), codec.ErrMalformed, []string{"UTF-8"}, "value", -2},
		{"invalid UTF-8 in a Struct key", hCustom(wvStruct(wsEntry("k\xff", wvNull()))), codec.ErrMalformed, []string{"UTF-8"}, "", -2},
		{"invalid UTF-8 in metadata", wMsg(hArmCustom, wBase(hEnumCustom, wMsg(4, wsEntry("k", wvStr("\xff")))), wStr(2, "c")), codec.ErrMalformed, []string{"UTF-8"}, "metadata.k", -2},
		{"invalid UTF-8 in a part's text", hToolResult(wMsg(1, wStr(1, "\xff"))), codec.ErrMalformed, []string{"UTF-8"}, "content[0].text", -2},
		{"invalid UTF-8 in a source", hToolResult(imagePart(wMsg(2, wStr(1, "\xff")))), codec.ErrMalformed, []string{"UTF-8"}, "content[0].source", -2},
		{"TOOL_CALL_RESULT with content and content_parts", wEvent(hArmToolCallResult, hEnumToolCallResult, wStr(3, "m"), wStr(4, "t"), wStr(5, "x"), wBytes(7, textPart)),
			codec.ErrMalformed, []string{"content"}, "content", -2},
		{"TOOL_CALL_RESULT with empty content and content_parts", wEvent(hArmToolCallResult, hEnumToolCallResult, wStr(5, ""), wBytes(7, textPart)),
			codec.ErrMalformed, []string{"content"}, "content", -2},
		{"parts on an assistant message", hSnapshot(roleMsg("assistant", wBytes(8, textPart))), codec.ErrMalformed, []string{"assistant"}, "messages[0].content", -2},
		{"parts on a system message", hSnapshot(roleMsg("system", wStr(3, "x"), wBytes(8, textPart))), codec.ErrMalformed, []string{"system"}, "messages[0].content", -2},
		{"parts on an activity message", hSnapshot(roleMsg("activity", wStr(12, "a"), wMsg(13), wBytes(8, textPart))), codec.ErrMalformed, []string{"activity"}, "messages[0].content", -2},
		{"activity content on a user message", hSnapshot(userMsg(wStr(3, "x"), wMsg(13))), codec.ErrMalformed, []string{"user"}, "messages[0].content", -2},
		{"activity content on a reasoning message", hSnapshot(roleMsg("reasoning", wStr(3, "x"), wMsg(13, wsEntry("a", wvNull())))), codec.ErrMalformed, []string{"reasoning"}, "messages[0].content", -2},
		{"string content on an activity message", hSnapshot(roleMsg("activity", wStr(3, "x"), wStr(12, "a"), wMsg(13))), codec.ErrMalformed, []string{"activity"}, "messages[0].content", -2},
		{"string content and parts on a user message", hSnapshot(userMsg(wStr(3, "x"), wBytes(8, textPart))), codec.ErrMalformed, []string{"user"}, "messages[0].content", -2},
		{"unknown role with string content and parts", hSnapshot(roleMsg("critic", wStr(3, "x"), wBytes(8, textPart))), codec.ErrMalformed, []string{"critic"}, "messages[0].role", -2},
		{"unknown role with string and activity content", hSnapshot(roleMsg("critic", wStr(3, "x"), wMsg(13))), codec.ErrMalformed, []string{"critic"}, "messages[0].role", -2},
		{"unknown role with parts and activity content", hSnapshot(roleMsg("critic", wBytes(8, textPart), wMsg(13))), codec.ErrMalformed, []string{"critic"}, "messages[0].role", -2},
		{"contradiction in the second message", hSnapshot(userMsg(wStr(3, "x")), roleMsg("assistant", wBytes(8, textPart))), codec.ErrMalformed, nil, "messages[1].content", -2},
		{"contradiction inside RUN_STARTED input", wEvent(hArmRunStarted, hEnumRunStarted, wStr(2, "t"), wStr(3, "r"), wMsg(5, wMsg(5, roleMsg("developer", wBytes(8, textPart))))),
			codec.ErrMalformed, []string{"developer"}, "input.messages[0].content", -2},
		{"content part with two arms", hToolResult(wCat(textPart, imagePart(urlSource))), codec.ErrMalformed, []string{"arm"}, "content[0]", -2},
		{"content part with two arms in a message", hSnapshot(userMsg(wBytes(8, textPart), wBytes(8, wCat(wMsg(3, wMsg(1, urlSource)), wMsg(5, wMsg(1, urlSource)))))),
			codec.ErrMalformed, []string{"arm"}, "messages[0].content[1]", -2},
		{"source with two arms", hToolResult(imagePart(dataSource, urlSource)), codec.ErrMalformed, []string{"arm"}, "content[0].source", -2},
		{"source with three arms", hToolResult(imagePart(urlSource, wMsg(3, wStr(1, "f")), dataSource)), codec.ErrMalformed, []string{"arm"}, "content[0].source", -2},
		{"Value with no kind", hCustom(nil), codec.ErrMalformed, []string{"Value"}, "value", -2},
		{"Value with only an unknown field", hCustom(wVarint(9, 1)), codec.ErrMalformed, []string{"Value"}, "value", -2},
		{"Value with no kind inside a Struct", hCustom(wvStruct(wsEntry("k", nil))), codec.ErrMalformed, []string{"Value"}, "value.k", -2},
		{"Value with no kind inside a list", hCustom(wvList(wvNum(1), nil)), codec.ErrMalformed, []string{"Value"}, "value[1]", -2},
		{"Struct entry without value", hCustom(wvStruct(wMsg(1, wStr(1, "k")))), codec.ErrMalformed, []string{"value"}, "value.k", -2},
		{"metadata entry without value", wMsg(hArmCustom, wBase(hEnumCustom, wMsg(4, wsEntry("a", wvNull()), wMsg(1, wStr(1, "b")))), wStr(2, "c")),
			codec.ErrMalformed, []string{"value"}, "metadata.b", -2},
		{"Value kind with the wrong wire type", hCustom(wVarint(2, 1)), codec.ErrMalformed, []string{"wire type"}, "value", -2},
		{"Value nested 300 lists deep", hCustom(deepList), event.ErrTooDeep, nil, "", -2},
		{"Value nested 300 structs deep", hCustom(deepStruct), event.ErrTooDeep, nil, "", -2},
		{"unknown field that is not a message", wStr(32, "\xff\xff\xff"), codec.ErrMalformed, nil, "", -2},
		{"unknown field holding a field-0 tag", wBytes(32, []byte{0x00, 0x00}), codec.ErrMalformed, nil, "", -2},
		{"unknown message beside unknown garbage", wCat(wMsg(32, wStr(1, "x")), wStr(33, "\xff\xff\xff")), codec.ErrMalformed, nil, "", -2},
		{"unknown garbage beside an unknown message", wCat(wStr(33, "\xff\xff\xff"), wMsg(32, wStr(1, "x"))), codec.ErrMalformed, nil, "", -2},
		{"RUN_FINISHED interrupts without an outcome", wEvent(hArmRunFinished, hEnumRunFinished, wStr(2, "t"), wStr(3, "r"), wMsg(6, wStr(1, "i"))), codec.ErrMalformed, nil, "outcome.type", -2},
		{"empty role", hSnapshot(roleMsg("", wStr(3, "x"))), codec.ErrMalformed, []string{"role"}, "messages[0].role", -2},
		{"no role", hSnapshot(wCat(wStr(1, "1"), wStr(3, "x"))), codec.ErrMalformed, []string{"role"}, "messages[0].role", -2},
		{"patch op number beyond the enum", wEvent(hArmStateDelta, hEnumStateDelta, wBytes(2, wCat(wVarint(1, 6), wStr(2, "/a")))), codec.ErrMalformed, []string{"op"}, "delta[0].op", -2},
		{"negative patch op", wEvent(hArmStateDelta, hEnumStateDelta, wBytes(2, wCat(wVarint(1, 1<<64-1), wStr(2, "/a")))), codec.ErrMalformed, []string{"op"}, "delta[0].op", -2},
		{"media part without a source", hToolResult(wMsg(2)), codec.ErrMalformed, []string{"missing"}, "content[0].source", -2},
		{"field number 2^29 in the envelope", append(wEvent(15, 14, wStr(2, "plan")), 0x82, 0x80, 0x80, 0x80, 0x10, 0x00), codec.ErrMalformed, []string{"field number"}, "", len(wEvent(15, 14, wStr(2, "plan")))},
		{"field number 2^29 in a message", wEvent(hArmTextMessageContent, hEnumTextMessageContent, wStr(2, "m"), []byte{0x82, 0x80, 0x80, 0x80, 0x10, 0x00}), codec.ErrMalformed, []string{"field number"}, "", -2},
	}
	dump := os.Getenv("AGWIRE_HARDENING_HEX") != "" // to replay the cases against the TS peer
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if dump {
				t.Logf("hex %s", hex.EncodeToString(c.in))
			}
			ev, err := codec.Unmarshal(c.in)
			if err == nil {
				t.Fatalf("decoded %x as %#v", c.in, ev)
			}
			if ev != nil {
				t.Errorf("an event came back with the error")
			}
			ce := hCodecErr(t, err, c.want)
			if ce == nil {
				return
			}
			if c.want != codec.ErrUnknownEvent && errors.Is(err, codec.ErrUnknownEvent) {
				t.Errorf("malformed input reported as a later protocol's event: %v", err)
			}
			if ce.Op != "decode" {
				t.Errorf("Op = %q", ce.Op)
			}
			msg := err.Error()
			for _, s := range c.msg {
				if !strings.Contains(msg, s) {
					t.Errorf("message %q does not mention %q", msg, s)
				}
			}
			if c.path != "" {
				if ce.Path != c.path {
					t.Errorf("path %q, want %q (%v)", ce.Path, c.path, err)
				}
				if !strings.Contains(msg, c.path) {
					t.Errorf("message %q does not name %q", msg, c.path)
				}
			}
			if ce.Offset < -1 || ce.Offset >= len(c.in) && ce.Offset != -1 {
				t.Errorf("offset %d lies outside the %d-byte input", ce.Offset, len(c.in))
			}
			if c.offset >= 0 && ce.Offset != c.offset {
				t.Errorf("offset %d, want %d (%v)", ce.Offset, c.offset, err)
			}
			if len(c.in) > 0 && ce.Offset < 0 && ce.Path == "" && ce.Type == "" {
				t.Errorf("error says neither where nor in which event: %v", err)
			}
		})
	}
}

// TestDecodeUnknownEvent: an envelope holding only unknown length-delimited
// fields that parse as messages is an event from a later protocol version:
// ErrUnknownEvent, which is NOT ErrMalformed, so a reader can skip the frame
// (mapping-1.0.md, "Envelope hardening"; the TS peer throws
// AGUIUnknownEventTypeError for the same inputs).
func TestDecodeUnknownEvent(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
	}{
		{"field 32 holding a message", wMsg(32, wEvent(1, 40, wStr(2, "x")))},
		{"field 32 holding a simple message", wMsg(32, wStr(1, "x"))},
		{"field 32 holding an empty message", wMsg(32)},
		{"field 32 holding a message with a group", wMsg(32, wTag(5, protowire.StartGroupType), wVarint(1, 1), wTag(5, protowire.EndGroupType))},
		{"two future arms", wCat(wMsg(32, wStr(1, "x")), wMsg(1000, wVarint(1, 7)))},
		{"a future arm beside an unknown varint", wCat(wMsg(32, wStr(1, "x")), wVarint(40, 5))},
		{"a high field number", wMsg(536870911, wFixed32(3, 1))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := codec.Unmarshal(tc.in)
			if ev != nil {
				t.Errorf("got an event: %#v", ev)
			}
			hCodecErr(t, err, codec.ErrUnknownEvent)
			if errors.Is(err, codec.ErrMalformed) {
				t.Errorf("%v is also ErrMalformed", err)
			}
			if _, err := codec.AppendJSONFromWire(nil, tc.in); !errors.Is(err, codec.ErrUnknownEvent) {
				t.Errorf("AppendJSONFromWire: %v", err)
			}
		})
	}
}

// TestDecodeIgnoresUnknownFields: protobuf skips unknown fields, wherever they
// are, so the event decodes as if they were not there.
func TestDecodeIgnoresUnknownFields(t *testing.T) {
	unknown := wCat(wVarint(40, 1), wFixed32(41, 2), wFixed64(42, 3), wStr(43, "\xff not a message"), wMsg(44, wStr(1, "m")),
		wTag(45, protowire.StartGroupType), wVarint(1, 1), wTag(45, protowire.EndGroupType))
	// Field numbers 20..22 are unknown in every message of the wire.
	small := wCat(wVarint(20, 1), wFixed32(21, 2), wStr(22, "x"))
	for _, tc := range []struct {
		name       string
		with, want []byte
	}{
		{"beside the arm, after it", wCat(wEvent(hArmTextMessageContent, hEnumTextMessageContent, wStr(2, "m"), wStr(3, "d")), unknown),
			wEvent(hArmTextMessageContent, hEnumTextMessageContent, wStr(2, "m"), wStr(3, "d"))},
		{"beside the arm, before it", wCat(unknown, wMsg(32, wStr(1, "x")), wEvent(hArmTextMessageContent, hEnumTextMessageContent, wStr(2, "m"), wStr(3, "d"))),
			wEvent(hArmTextMessageContent, hEnumTextMessageContent, wStr(2, "m"), wStr(3, "d"))},
		{"inside the event", wMsg(hArmTextMessageContent, wBase(hEnumTextMessageContent), unknown, wStr(2, "m"), wStr(3, "d")),
			wEvent(hArmTextMessageContent, hEnumTextMessageContent, wStr(2, "m"), wStr(3, "d"))},
		{"inside base_event", wMsg(hArmTextMessageContent, wBase(hEnumTextMessageContent, small, wVarint(2, 5)), wStr(2, "m"), wStr(3, "d")),
			wMsg(hArmTextMessageContent, wBase(hEnumTextMessageContent, wVarint(2, 5)), wStr(2, "m"), wStr(3, "d"))},
		{"inside a Value, a Struct entry and a list", hCustom(wCat(small, wMsg(5, small, wMsg(1, small, wStr(1, "k"), wMsg(2, small, wvNull()))))),
			hCustom(wvStruct(wsEntry("k", wvNull())))},
		{"inside a ListValue", hCustom(wMsg(6, small, wMsg(1, wvNum(2)), wStr(2, "x"))), hCustom(wvList(wvNum(2)))},
		{"inside a message, a tool call and a part", hSnapshot(wCat(small, wStr(1, "1"), wStr(2, "user"), wMsg(8, small, wMsg(1, small, wStr(1, "t"))))),
			hSnapshot(wCat(wStr(1, "1"), wStr(2, "user"), wMsg(8, wMsg(1, wStr(1, "t")))))},
		{"inside a source", hToolResult(wMsg(2, wMsg(1, small, wMsg(2, small, wStr(1, "u"), wStr(4, "x"))))),
			hToolResult(wMsg(2, wMsg(1, wMsg(2, wStr(1, "u")))))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := hDecodeJSON(t, codec.Codec{}, tc.with)
			want := hDecodeJSON(t, codec.Codec{}, tc.want)
			if string(got) != string(want) {
				t.Errorf("\n got %s\nwant %s", got, want)
			}
		})
	}
}

// TestDecodeMergesRepeatedSingularFields: repeated occurrences of a singular
// message field merge (protobuf's rule, mapping-1.0.md): scalars take the
// last value, nested messages merge, repeated fields append.
func TestDecodeMergesRepeatedSingularFields(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"the arm twice: messageId, then delta",
			wCat(wEvent(hArmTextMessageContent, hEnumTextMessageContent, wStr(2, "m")), wMsg(hArmTextMessageContent, wStr(3, "d"))),
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d"}`},
		{"the arm twice: base_event only in the second",
			wCat(wMsg(hArmTextMessageContent, wStr(2, "m")), wMsg(hArmTextMessageContent, wBase(hEnumTextMessageContent), wStr(3, "d"))),
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d"}`},
		{"the arm three times, unknown fields between",
			wCat(wMsg(hArmTextMessageContent, wBase(hEnumTextMessageContent)), wVarint(40, 1), wMsg(hArmTextMessageContent, wStr(2, "m")), wMsg(33, wStr(1, "x")), wMsg(hArmTextMessageContent, wStr(3, "d"))),
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d"}`},
		{"a scalar twice: the last wins",
			wCat(wEvent(hArmTextMessageContent, hEnumTextMessageContent, wStr(2, "first"), wStr(3, "d")), wMsg(hArmTextMessageContent, wStr(2, "last"))),
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"last","delta":"d"}`},
		{"base_event twice: timestamp, then metadata",
			wMsg(hArmTextMessageContent, wBase(hEnumTextMessageContent, wVarint(2, 7)), wStr(2, "m"), wMsg(1, wMsg(4, wsEntry("k", wvBool(true)))), wStr(3, "d")),
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","timestamp":7,"metadata":{"k":true}}`},
		{"metadata twice: the keys merge",
			wMsg(hArmCustom, wBase(hEnumCustom, wMsg(4, wsEntry("a", wvNum(1))), wMsg(4, wsEntry("b", wvNum(2)))), wStr(2, "c")),
			`{"type":"CUSTOM","name":"c","metadata":{"a":1,"b":2}}`},
		{"a Value field twice, both struct_value: the keys merge",
			wEvent(hArmCustom, hEnumCustom, wStr(2, "c"), wBytes(3, wvStruct(wsEntry("a", wvNum(1)))), wBytes(3, wvStruct(wsEntry("b", wvNum(2))))),
			`{"type":"CUSTOM","name":"c","value":{"a":1,"b":2}}`},
		{"struct_value twice inside one Value",
			hCustom(wCat(wvStruct(wsEntry("a", wvNum(1))), wvStruct(wsEntry("b", wvStr("x"))))),
			`{"type":"CUSTOM","name":"c","value":{"a":1,"b":"x"}}`},
		{"list_value twice: the elements append",
			hCustom(wCat(wvList(wvNum(1)), wvList(wvNum(2), wvNull()))),
			`{"type":"CUSTOM","name":"c","value":[1,2,null]}`},
		{"two kinds in one Value: the last wins",
			hCustom(wCat(wvNum(1), wvStr("s"))),
			`{"type":"CUSTOM","name":"c","value":"s"}`},
		{"struct, then number, then struct: the oneof restarts",
			hCustom(wCat(wvStruct(wsEntry("a", wvNum(1))), wvNum(5), wvStruct(wsEntry("b", wvNum(2))))),
			`{"type":"CUSTOM","name":"c","value":{"b":2}}`},
		{"a key twice in one Struct: first position, last value",
			hCustom(wvStruct(wsEntry("a", wvNum(1)), wsEntry("b", wvNum(2)), wsEntry("a", wvNum(3)))),
			`{"type":"CUSTOM","name":"c","value":{"a":3,"b":2}}`},
		{"a key twice among many (map path)",
			hCustom(wvStruct(wsEntry("k0", wvNum(0)), wsEntry("k1", wvNum(1)), wsEntry("k2", wvNum(2)), wsEntry("k3", wvNum(3)), wsEntry("k4", wvNum(4)),
				wsEntry("k5", wvNum(5)), wsEntry("k6", wvNum(6)), wsEntry("k7", wvNum(7)), wsEntry("k8", wvNum(8)), wsEntry("k1", wvStr("again")), wsEntry("k9", wvNum(9)), wsEntry("k8", wvNull()))),
			`{"type":"CUSTOM","name":"c","value":{"k0":0,"k1":"again","k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":null,"k9":9}}`},
		{"a map entry's value twice: the values merge",
			hCustom(wvStruct(wMsg(1, wStr(1, "k"), wBytes(2, wvStruct(wsEntry("a", wvNum(1)))), wBytes(2, wvStruct(wsEntry("b", wvNum(2))))))),
			`{"type":"CUSTOM","name":"c","value":{"k":{"a":1,"b":2}}}`},
		{"RUN_STARTED input twice: fields merge, messages append",
			wCat(wEvent(hArmRunStarted, hEnumRunStarted, wStr(2, "t"), wStr(3, "r"), wMsg(5, wStr(1, "t"), wMsg(5, wStr(1, "1"), wStr(2, "system"), wStr(3, "s")))),
				wMsg(hArmRunStarted, wMsg(5, wStr(2, "r"), wMsg(5, wStr(1, "2"), wStr(2, "user"), wStr(3, "u"))))),
			`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[{"id":"1","role":"system","content":"s"},{"id":"2","role":"user","content":"u"}],"tools":[],"context":[],"resume":[]}}`},
		{"a content part arm twice",
			hToolResult(wCat(wMsg(1, wStr(1, "t")), wMsg(1, wStr(2, "id")))),
			`{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"t","content":[{"type":"text","id":"id","text":"t"}]}`},
		{"a source arm twice",
			hToolResult(wMsg(2, wMsg(1, wMsg(2, wStr(1, "u"))), wMsg(1, wMsg(2, wStr(2, "image/png"))))),
			`{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"t","content":[{"type":"image","source":{"type":"url","value":"u","mimeType":"image/png"}}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := hDecodeJSON(t, codec.Codec{}, tc.in)
			if string(got) != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestDecodeErrorOffsetInsideMergedFields: when a repeated arm is merged,
// an error inside the second occurrence still reports an offset that lies
// inside the input (or -1), never a position in a private copy.
func TestDecodeErrorOffsetInsideMergedFields(t *testing.T) {
	first := wEvent(hArmTextMessageContent, hEnumTextMessageContent, wStr(2, "m"))
	in := wCat(first, wMsg(hArmTextMessageContent, wStr(3, "\xff")))
	_, err := codec.Unmarshal(in)
	ce := hCodecErr(t, err, codec.ErrMalformed)
	if ce == nil {
		return
	}
	// The bad field starts after the first arm and the second arm's tag and length.
	if ce.Offset != -1 && ce.Offset != len(first)+2 {
		t.Errorf("offset %d: the bad field is at %d of a %d-byte input", ce.Offset, len(first)+2, len(in))
	}
	if ce.Path != "delta" {
		t.Errorf("path %q", ce.Path)
	}
}

// TestDecodePatchOps: JsonPatchOperationType numbers map to op names, and
// back; a number with no name is malformed (TestDecodeHardening), as its
// decimal spelling is refused by Parse and the encoder.
func TestDecodePatchOps(t *testing.T) {
	op := func(n int64, path string) []byte {
		var opField []byte
		if n != 0 {
			opField = wVarint(1, uint64(n))
		}
		return wBytes(2, wCat(opField, wStr(2, path)))
	}
	for _, tc := range []struct {
		n    int64
		name string
	}{{0, "add"}, {1, "remove"}, {2, "replace"}, {3, "move"}, {4, "copy"}, {5, "test"}} {
		in := wEvent(hArmStateDelta, hEnumStateDelta, op(tc.n, "/a"))
		got := hDecodeJSON(t, codec.Codec{}, in)
		want := `{"type":"STATE_DELTA","delta":[{"op":"` + tc.name + `","path":"/a"}]}`
		if string(got) != want {
			t.Errorf("op %d: got %s, want %s", tc.n, got, want)
			continue
		}
		back, err := codec.AppendFromJSON(nil, got)
		if err != nil {
			t.Errorf("op %d: re-encode %s: %v", tc.n, got, err)
			continue
		}
		if string(back) != string(in) {
			t.Errorf("op %d: re-encoded as %x, want %x", tc.n, back, in)
		}
	}
	// ACTIVITY_DELTA's patch is the same message.
	in := wEvent(hArmActivityDelta, hEnumActivityDelta, wStr(3, "m"), wStr(4, "a"), wBytes(5, wCat(wVarint(1, 3), wStr(2, "/x"), wStr(3, "/y"), wBytes(4, wvNull()))))
	got := hDecodeJSON(t, codec.Codec{}, in)
	if want := `{"type":"ACTIVITY_DELTA","messageId":"m","activityType":"a","patch":[{"op":"move","path":"/x","from":"/y","value":null}]}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if back, err := codec.AppendFromJSON(nil, got); err != nil || string(back) != string(in) {
		t.Errorf("re-encoded as %x, %v; want %x", back, err, in)
	}
}

// TestDecodeNormalisations: what decoding adds, as the other 1.0 peers do.
func TestDecodeNormalisations(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"user message without content gets content []", hSnapshot(wCat(wStr(1, "1"), wStr(2, "user"))),
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"user","content":[]}]}`},
		{"tool message without content gets content []", hSnapshot(wCat(wStr(1, "1"), wStr(2, "tool"), wStr(6, "tc"))),
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"tool","toolCallId":"tc","content":[]}]}`},
		{"user message with empty string content keeps it", hSnapshot(wCat(wStr(1, "1"), wStr(2, "user"), wStr(3, ""))),
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"user","content":""}]}`},
		{"assistant message without content stays without", hSnapshot(wCat(wStr(1, "1"), wStr(2, "assistant"))),
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"assistant"}]}`},
		{"system message without content gets content \"\"", hSnapshot(wCat(wStr(1, "1"), wStr(2, "system"))),
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"system","content":""}]}`},
		{"activity message without type or content gets \"\" and {}", hSnapshot(wCat(wStr(1, "1"), wStr(2, "activity"))),
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"activity","activityType":"","content":{}}]}`},
		{"TOOL_CALL_RESULT without content gets content []", wEvent(hArmToolCallResult, hEnumToolCallResult, wStr(3, "m"), wStr(4, "t")),
			`{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"t","content":[]}`},
		{"RUN_STARTED input gains tools, context, resume", wEvent(hArmRunStarted, hEnumRunStarted, wStr(2, "t"), wStr(3, "r"), wMsg(5, wStr(1, "t"), wStr(2, "r"))),
			`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"tools":[],"context":[],"resume":[]}}`},
		{"a data source without mime_type gets mimeType \"\"", hToolResult(wMsg(2, wMsg(1, wMsg(1, wStr(1, "AA=="))))),
			`{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"t","content":[{"type":"image","source":{"type":"data","value":"AA==","mimeType":""}}]}`},
		{"empty outcome string means no outcome", wEvent(hArmRunFinished, hEnumRunFinished, wStr(2, "t"), wStr(3, "r"), wStr(5, "")),
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`},
		{"interrupt outcome without interrupts lists none", wEvent(hArmRunFinished, hEnumRunFinished, wStr(2, "t"), wStr(3, "r"), wStr(5, "interrupt")),
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := hDecodeJSON(t, codec.Codec{}, tc.in); string(got) != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// hNestedArrays is a CUSTOM event whose value is n arrays deep.
func hNestedArrays(n int) string {
	return `{"type":"CUSTOM","name":"c","value":` + strings.Repeat("[", n) + "1" + strings.Repeat("]", n) + `}`
}

// hNestedObjects is a CUSTOM event whose metadata is n objects deep.
func hNestedObjects(n int) string {
	return `{"type":"CUSTOM","name":"c","metadata":` + strings.Repeat(`{"a":`, n-1) + "{}" + strings.Repeat("}", n-1) + `}`
}

// TestDecodeAcceptsWhatEncodeWrites: whatever a Codec encodes, the same
// Codec decodes, however deep (up to MaxDepth).
// (This once failed: the decoder counted every google.protobuf.Value and
// every Struct/ListValue as a level, two per JSON level, so a value about
// 128 levels deep encoded fine and then failed to decode with ErrTooDeep.
// Fixed in 634ee19.)
func TestDecodeAcceptsWhatEncodeWrites(t *testing.T) {
	for _, in := range []string{hNestedArrays(100), hNestedArrays(127), hNestedArrays(128), hNestedArrays(200), hNestedArrays(254),
		hNestedObjects(100), hNestedObjects(128), hNestedObjects(200), hNestedObjects(255)} {
		wire, err := codec.AppendFromJSON(nil, []byte(in))
		if err != nil {
			t.Errorf("%.60s…: encode: %v", in, err)
			continue
		}
		out, err := codec.AppendJSONFromWire(nil, wire)
		if err != nil {
			t.Errorf("%.60s… (%d levels): encoded, but decoding the result fails: %.120s", in, strings.Count(in, "[")+strings.Count(in, "{"), err)
			continue
		}
		if !hSameJSON(t, out, []byte(in)) {
			t.Errorf("%.60s…: came back as %.60s…", in, out)
		}
	}
}

// TestEncodeTooDeep: JSON nested beyond MaxDepth is refused on encode with
// event.ErrTooDeep (codec.go: "ErrTooDeep: nesting beyond Codec.MaxDepth").
// (This once failed: encode reported only the JSON scanner's sentinel.
// Fixed in 634ee19, where event.ErrTooDeep became that same error.)
func TestEncodeTooDeep(t *testing.T) {
	in := []byte(hNestedArrays(300))
	_, err := codec.AppendFromJSON(nil, in)
	if err == nil {
		t.Fatal("300 levels accepted")
	}
	if !errors.Is(err, event.ErrTooDeep) {
		t.Errorf("AppendFromJSON: %.100s… does not wrap event.ErrTooDeep", err)
	}
	// The Go-value path: the dynamic value is nested too deep.
	ev := &event.Custom{Name: "c", Value: event.RawValue(strings.Repeat("[", 300) + strings.Repeat("]", 300))}
	_, err = codec.Append(nil, ev)
	if err == nil {
		t.Fatal("300 levels accepted from a Go value")
	}
	if !errors.Is(err, event.ErrTooDeep) {
		t.Errorf("Append: %.100s… does not wrap event.ErrTooDeep", err)
	}
	// And a smaller one refuses shallower values.
	if _, err := (codec.Codec{MaxDepth: 3}).AppendFromJSON(nil, []byte(hNestedArrays(5))); err == nil {
		t.Error("MaxDepth 3 accepted 6 levels")
	}
}

// TestDecodeMaxDepth: the decode limit is configurable.
func TestDecodeMaxDepth(t *testing.T) {
	v := wvNum(1)
	for i := 0; i < 300; i++ {
		v = wvList(v)
	}
	in := hCustom(v)
	if _, err := codec.Unmarshal(in); !errors.Is(err, event.ErrTooDeep) {
		t.Errorf("default: %v", err)
	}
	ev, err := codec.Codec{MaxDepth: 2000}.Unmarshal(in)
	if err != nil {
		t.Fatalf("MaxDepth 2000: %v", err)
	}
	want := strings.Repeat("[", 300) + "1" + strings.Repeat("]", 300)
	if got := string(ev.(*event.Custom).Value); got != want {
		t.Errorf("got %.80s…", got)
	}
}

// TestMaxDepthRaised: a Codec whose MaxDepth is raised converts deep values
// both ways, JSON included.
// (This once failed: event.AppendJSON re-validated every dynamic value with
// the default 256-level limit.)
func TestMaxDepthRaised(t *testing.T) {
	c := codec.Codec{MaxDepth: 2000}
	in := []byte(hNestedArrays(300))
	wire, err := c.AppendFromJSON(nil, in)
	if err != nil {
		t.Fatalf("encode with MaxDepth 2000: %v", err)
	}
	if _, err := c.Unmarshal(wire); err != nil {
		t.Fatalf("Unmarshal with MaxDepth 2000: %v", err)
	}
	out, err := c.AppendJSONFromWire(nil, wire)
	if err != nil {
		t.Fatalf("AppendJSONFromWire with MaxDepth 2000: %.200s", err)
	}
	if !hSameJSON(t, out, in) {
		t.Errorf("got %.80s…", out)
	}
}

// TestDecodedOutcomeReencodes: an event Unmarshal accepts re-encodes, and
// comes back the same (the FuzzUnmarshal property, here for RUN_FINISHED and
// SUBAGENT_FINISHED outcomes whose lists do not fit their type).
//
// BUG: since 634ee19 the encoder refuses outcome lists that the outcome type
// does not carry (a success with interrupts, an interrupt or cancelled
// outcome with pending tool call ids, a subagent success with interrupt ids),
// but the decoder still accepts such frames and keeps the lists (as the TS
// peer does when it decodes them). So codec.Append(codec.Unmarshal(b)) fails
// with ErrInvalid for bytes Unmarshal called well-formed: a wire → Go → wire
// relay breaks on them. Either decoding must refuse them (ErrMalformed, like
// "interrupts or pending tool call ids without an outcome") or encoding must
// take what decoding produces. Reproduction (hex):
// 6a1d0a02080c1201741a01722a077375636365737332080a01691203776879
// decodes to {"type":"RUN_FINISHED","threadId":"t","runId":"r",
// "outcome":{"type":"success","interrupts":[{"id":"i","reason":"why"}]}},
// which Append refuses. Also in testdata/fuzz/FuzzUnmarshal/.
func TestDecodedOutcomeReencodes(t *testing.T) {
	rf := func(outcome string, lists ...[]byte) []byte {
		return wEvent(hArmRunFinished, hEnumRunFinished, append([][]byte{wStr(2, "t"), wStr(3, "r"), wStr(5, outcome)}, lists...)...)
	}
	interrupt := wMsg(6, wStr(1, "i"), wStr(2, "why"))
	pending := wStr(8, "tc")
	for _, tc := range []struct {
		name string
		in   []byte
	}{
		{"success with interrupts", rf("success", interrupt)},
		{"cancelled with pending ids", rf("cancelled", pending)},
		{"cancelled with interrupts", rf("cancelled", interrupt)},
		{"interrupt with pending ids", rf("interrupt", interrupt, pending)},
		{"subagent success with interrupt ids", wEvent(20, 17, wStr(2, "s"), wStr(4, "success"), wStr(5, "i1"))},
		// These fit and must keep working whatever the fix.
		{"success with pending ids", rf("success", pending)},
		{"interrupt with interrupts", rf("interrupt", interrupt)},
		{"an unknown outcome keeps both lists", rf("paused", interrupt, pending)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := codec.Unmarshal(tc.in)
			if err != nil {
				if !errors.Is(err, codec.ErrMalformed) {
					t.Fatalf("refused, but not as malformed: %v", err)
				}
				return // refusing on decode is one consistent answer
			}
			wire, err := codec.Append(nil, ev)
			if err != nil {
				j, _ := event.Marshal(ev)
				t.Fatalf("Unmarshal accepted %x as %s, but Append refuses it: %v", tc.in, j, err)
			}
			back, err := codec.Unmarshal(wire)
			if err != nil || !reflect.DeepEqual(back, ev) {
				t.Errorf("re-encoded event differs: %#v, %v", back, err)
			}
		})
	}
}
