package interop

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// Edge cases outside the fixture corpus, run through both codecs. Each case
// states what agwire does and what the peer does. Where they differ, the
// case carries a divergence note: the test then checks that the divergence
// is still exactly as recorded (so a change on either side is noticed) and
// logs it. A case without a note must agree.

// ---------------------------------------------------------------------------
// Wire builders (field numbers from wire-1.0.md).

func pTag(n protowire.Number, t protowire.Type) []byte { return protowire.AppendTag(nil, n, t) }

func pVarint(n protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(pTag(n, protowire.VarintType), v)
}

func pBytes(n protowire.Number, b []byte) []byte {
	return protowire.AppendBytes(pTag(n, protowire.BytesType), b)
}

func pStr(n protowire.Number, s string) []byte { return pBytes(n, []byte(s)) }

func pCat(parts ...[]byte) []byte {
	out := []byte{}
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func pMsg(n protowire.Number, parts ...[]byte) []byte { return pBytes(n, pCat(parts...)) }

// pEvent is an envelope with one arm holding BaseEvent{type, base...} and
// the event's own fields.
func pEvent(arm protowire.Number, enum uint64, base [][]byte, fields ...[]byte) []byte {
	b := [][]byte{}
	if enum != 0 {
		b = append(b, pVarint(1, enum))
	}
	b = append(b, base...)
	return pMsg(arm, append([][]byte{pMsg(1, b...)}, fields...)...)
}

// google.protobuf.Value kinds.
func pvNum(f float64) []byte {
	return protowire.AppendFixed64(pTag(2, protowire.Fixed64Type), math.Float64bits(f))
}
func pvNull() []byte                      { return pVarint(1, 0) }
func pvList(vals ...[]byte) []byte        { return pMsg(6, wrapEach(1, vals)...) }
func pvStruct(entries ...[]byte) []byte   { return pMsg(5, entries...) }
func psEntry(k string, val []byte) []byte { return pMsg(1, pStr(1, k), pMsg(2, val)) }

// i64 is the varint form of a signed int64 field.
func i64(v int64) uint64 { return uint64(v) }

func wrapEach(n protowire.Number, vals [][]byte) [][]byte {
	out := make([][]byte, len(vals))
	for i, v := range vals {
		out[i] = pMsg(n, v)
	}
	return out
}

// Arms and EventType values used below.
const (
	armTextMessageContent  = 2
	armTextMessageEnd      = 3
	armStateDelta          = 8
	armCustom              = 11
	armRunFinished         = 13
	armRunError            = 14
	armSubagentFinished    = 20
	enumTextMessageContent = 1
	enumTextMessageEnd     = 2
	enumStateDelta         = 7
	enumCustom             = 10
	enumRunFinished        = 12
	enumRunError           = 13
	enumSubagentFinished   = 17
)

func tmEnd(base ...[]byte) []byte {
	return pEvent(armTextMessageEnd, enumTextMessageEnd, base, pStr(2, "m"))
}

func custom(value []byte) []byte {
	return pEvent(armCustom, enumCustom, nil, pStr(2, "c"), pMsg(3, value))
}

func customMeta(meta ...[]byte) []byte {
	return pEvent(armCustom, enumCustom, [][]byte{pMsg(4, meta...)}, pStr(2, "c"))
}

func runErrorUsage(usage ...[]byte) []byte {
	return pEvent(armRunError, enumRunError, nil, pStr(3, "x"), pMsg(4, usage...))
}

// ---------------------------------------------------------------------------
// Decode

type decodeCase struct {
	name  string
	in    []byte
	codec codec.Codec
	// goErr is the sentinel agwire's codec.AppendJSONFromWire fails with; nil means
	// it decodes the payload.
	goErr error
	// peer: "ok" (proto.decode returns an event), "unknown" (throws
	// AGUIUnknownEventTypeError) or "throw" (any other error).
	peer string
	// divergence, when set, says how and why the two differ. Empty: they
	// must agree (both fail, or both read the same event).
	divergence string
}

func decodeCases() []decodeCase {
	okTMC := pEvent(armTextMessageContent, enumTextMessageContent, nil, pStr(2, "m"), pStr(3, "d"))
	deep := pvNum(1)
	for range 300 {
		deep = pvList(deep)
	}
	const maxSafe = 1<<53 - 1
	return []decodeCase{
		// Agreement: both refuse.
		{name: "empty payload", in: []byte{}, goErr: codec.ErrMalformed, peer: "throw"},
		// STEP_FINISHED followed by field 2^29 (one past the protobuf maximum).
		{name: "field number 2^29 in the envelope", in: mustHex("82010a0a02080f1204706c616e828080801000"), goErr: codec.ErrMalformed, peer: "throw"},
		{name: "field number 2^29 inside an event", in: pEvent(armTextMessageContent, enumTextMessageContent, nil, pStr(2, "m"), []byte{0x82, 0x80, 0x80, 0x80, 0x10, 0x00}), goErr: codec.ErrMalformed, peer: "throw"},
		{name: "only an unknown varint field", in: pVarint(40, 1), goErr: codec.ErrMalformed, peer: "throw"},
		{name: "two different arms", in: pCat(okTMC, tmEnd()), goErr: codec.ErrMalformed, peer: "throw"},
		{name: "field number 0", in: pCat(okTMC, []byte{0x02, 0x00}), goErr: codec.ErrMalformed, peer: "throw"},
		{name: "wire type 6", in: pCat(okTMC, protowire.AppendVarint(nil, 40<<3|6), []byte{0x01}), goErr: codec.ErrMalformed, peer: "throw"},
		{name: "truncated varint", in: pCat(okTMC, pTag(40, protowire.VarintType), []byte{0xff}), goErr: codec.ErrMalformed, peer: "throw"},
		{name: "length beyond the end", in: []byte{armTextMessageContent<<3 | 2, 0x05, 0x0a}, goErr: codec.ErrMalformed, peer: "throw"},
		{name: "unbalanced group", in: pCat(okTMC, pTag(40, protowire.StartGroupType)), goErr: codec.ErrMalformed, peer: "throw"},
		{name: "base_event.type disagrees with the arm", in: pEvent(armTextMessageContent, enumTextMessageEnd, nil, pStr(2, "m"), pStr(3, "d")), goErr: codec.ErrMalformed, peer: "throw"},
		{name: "tool result with content and content_parts", in: pEvent(22, 21, nil, pStr(3, "m"), pStr(4, "t"), pStr(5, "x"), pMsg(7, pMsg(1, pStr(1, "hi")))), goErr: codec.ErrMalformed, peer: "throw"},
		{name: "parts on an assistant message", in: pEvent(9, 8, nil, pMsg(2, pStr(1, "1"), pStr(2, "assistant"), pMsg(8, pMsg(1, pStr(1, "hi"))))), goErr: codec.ErrMalformed, peer: "throw"},
		{name: "unknown field that is not a message", in: pStr(32, "\xff\xff\xff"), goErr: codec.ErrMalformed, peer: "throw"},

		// Agreement: an event from a later protocol.
		{name: "future arm 32", in: futureFrame, goErr: codec.ErrUnknownEvent, peer: "unknown"},
		{name: "future arm holding an empty message", in: pMsg(32), goErr: codec.ErrUnknownEvent, peer: "unknown"},
		{name: "two future arms", in: pCat(pMsg(32, pStr(1, "x")), pMsg(1000, pVarint(1, 7))), goErr: codec.ErrUnknownEvent, peer: "unknown"},
		{name: "future arm beside an unknown varint", in: pCat(pMsg(32, pStr(1, "x")), pVarint(40, 5)), goErr: codec.ErrUnknownEvent, peer: "unknown"},

		// Agreement: both read the same event.
		{name: "unknown fields beside and inside the arm", in: pCat(pVarint(40, 1), pMsg(32, pStr(1, "x")), pEvent(armTextMessageEnd, enumTextMessageEnd, [][]byte{pVarint(20, 1)}, pStr(2, "m"), pStr(9, "zz"))), peer: "ok"},
		{name: "arm repeated: the occurrences merge", in: pCat(tmEnd(), pMsg(armTextMessageEnd, pStr(3, "sub"))), peer: "ok"},
		{name: "unknown JSON Patch op number", in: pEvent(armStateDelta, enumStateDelta, nil, pMsg(2, pVarint(1, 7), pStr(2, "/a"))), goErr: codec.ErrMalformed, peer: "ok",
			divergence: "agwire refuses a JsonPatchOperationType number with no name (no JSON Patch consumer can apply op \"7\"); the peer writes \"7\""},
		{name: "unknown RUN_FINISHED outcome", in: pEvent(armRunFinished, enumRunFinished, nil, pStr(2, "t"), pStr(3, "r"), pStr(5, "timeout")), goErr: codec.ErrMalformed, peer: "ok",
			divergence: "agwire refuses an outcome type outside @ag-ui/core 1.0's schema (success, interrupt, cancelled) on every path; the peer's decoder passes it through"},
		{name: "unknown SUBAGENT_FINISHED outcome", in: pEvent(armSubagentFinished, enumSubagentFinished, nil, pStr(2, "s"), pStr(4, "weird"), pStr(5, "i1")), goErr: codec.ErrMalformed, peer: "ok",
			divergence: "agwire refuses an outcome type outside the schema's success and suspended; the peer's decoder passes it through"},
		{name: "unknown message role", in: pEvent(9, 8, nil, pMsg(2, pStr(1, "1"), pStr(2, "critic"), pStr(3, "x"))), goErr: codec.ErrMalformed, peer: "ok",
			divergence: "agwire refuses a role outside the seven, on every path (the peer's own schema rejects it on encode); the peer's decoder passes it through"},
		{name: "negative zero", in: custom(pvNum(math.Copysign(0, -1))), peer: "ok"},
		{name: "smallest subnormal", in: custom(pvNum(math.SmallestNonzeroFloat64)), peer: "ok"},
		{name: "largest double", in: custom(pvNum(math.MaxFloat64)), peer: "ok"},
		{name: "timestamp 0 is kept", in: tmEnd(pVarint(2, 0)), peer: "ok"},
		{name: "negative timestamp", in: tmEnd(pVarint(2, i64(-5))), peer: "ok"},
		{name: "timestamp 2^53-1", in: tmEnd(pVarint(2, maxSafe)), peer: "ok"},
		{name: "usage count 2^53-1", in: runErrorUsage(pVarint(3, maxSafe)), peer: "ok"},
		{name: "NaN with NonFiniteAsNull", in: custom(pvList(pvNum(math.NaN()), pvNum(math.Inf(-1)))), codec: codec.Codec{NonFiniteAsNull: true}, peer: "ok"},
		{name: "null under a metadata key", in: customMeta(psEntry("a", pvNull())), peer: "ok"},
		{name: "empty metadata", in: customMeta(), peer: "ok"},

		// Divergences.
		{name: "timestamp 2^53", in: tmEnd(pVarint(2, maxSafe+1)), goErr: codec.ErrUnsafeInteger, peer: "throw"},
		{name: "timestamp -2^53", in: tmEnd(pVarint(2, i64(-(maxSafe + 1)))), goErr: codec.ErrUnsafeInteger, peer: "throw"},
		{name: "timestamp max int64", in: tmEnd(pVarint(2, math.MaxInt64)), goErr: codec.ErrUnsafeInteger, peer: "throw"},
		{name: "usage count 2^53+1", in: runErrorUsage(pVarint(3, maxSafe+2)), goErr: codec.ErrUnsafeInteger, peer: "throw"},
		{name: "timestamp 2^53 with UnsafeIntegers", in: tmEnd(pVarint(2, maxSafe+1)), codec: codec.Codec{UnsafeIntegers: true}, peer: "throw",
			divergence: "int64 beyond ±(2^53-1): with Codec.UnsafeIntegers agwire reads it exactly, the peer throws \"Value is larger than Number.MAX_SAFE_INTEGER\" (in a stream, parseProtoStream fails)"},
		{name: "NaN in a Value", in: custom(pvNum(math.NaN())), goErr: codec.ErrNonFinite, peer: "ok",
			divergence: "agwire refuses NaN/±Inf (ErrNonFinite; Codec.NonFiniteAsNull gives the peer's null)"},
		{name: "+Inf in metadata", in: customMeta(psEntry("x", pvNum(math.Inf(1)))), goErr: codec.ErrNonFinite, peer: "ok",
			divergence: "agwire refuses NaN/±Inf (ErrNonFinite; Codec.NonFiniteAsNull gives the peer's null)"},
		{name: "invalid UTF-8 in a string field", in: pEvent(armTextMessageEnd, enumTextMessageEnd, nil, pStr(2, "m\xff")), goErr: codec.ErrMalformed, peer: "ok",
			divergence: "agwire refuses invalid UTF-8; the peer substitutes U+FFFD"},
		{name: "invalid UTF-8 in a Struct key", in: custom(pvStruct(psEntry("k\xff", pvNull()))), goErr: codec.ErrMalformed, peer: "ok",
			divergence: "agwire refuses invalid UTF-8; the peer substitutes U+FFFD"},
		{name: "known field with another wire type", in: pEvent(armTextMessageContent, enumTextMessageContent, nil, pVarint(2, 5)), goErr: codec.ErrMalformed, peer: "ok",
			divergence: "agwire refuses a known field with a foreign wire type; the peer skips it as unknown (here leaving messageId and delta empty)"},
		{name: "envelope arm as a varint after a good arm", in: pCat(okTMC, pVarint(armTextMessageContent, 1)), goErr: codec.ErrMalformed, peer: "ok",
			divergence: "agwire refuses a known field with a foreign wire type; the peer skips it"},
		{name: "varint of 11 bytes in an unknown field", in: pCat(okTMC, pTag(40, protowire.VarintType), bytes.Repeat([]byte{0xff}, 10), []byte{0x01}), goErr: codec.ErrMalformed, peer: "ok",
			divergence: "agwire refuses a varint longer than 10 bytes; the peer reads it"},
		{name: "Value with no kind", in: custom(nil), goErr: codec.ErrMalformed, peer: "ok",
			divergence: "agwire refuses a Value with no kind; the peer drops the field"},
		{name: "Value with no kind in a list", in: custom(pvList(pvNum(1), nil)), goErr: codec.ErrMalformed, peer: "ok",
			divergence: "agwire refuses a Value with no kind; in a list the peer reads null"},
		{name: "Struct entry without a value", in: customMeta(psEntry("a", pvNull()), pMsg(1, pStr(1, "b"))), goErr: codec.ErrMalformed, peer: "ok",
			divergence: "agwire refuses a Struct entry without a value; the peer drops the entry"},
		{name: "Value nested 300 lists deep", in: custom(deep), goErr: event.ErrTooDeep, peer: "ok",
			divergence: "agwire limits nesting (Codec.MaxDepth, 256 by default); the peer has no limit"},
		{name: "RUN_FINISHED interrupts without an outcome", in: pEvent(armRunFinished, enumRunFinished, nil, pStr(2, "t"), pStr(3, "r"), pMsg(6, pStr(1, "i"))), goErr: codec.ErrMalformed, peer: "ok",
			divergence: "agwire refuses interrupts with no outcome; the peer writes a top-level \"interrupts\" key that no AG-UI JSON event has"},
	}
}

// TestDecodeEdgeCases feeds the same payloads to codec.AppendJSONFromWire and the
// peer's proto.decode.
func TestDecodeEdgeCases(t *testing.T) {
	cases := decodeCases()
	reqs := make([]Request, len(cases))
	for i, c := range cases {
		reqs[i] = DecodeRequest(c.in)
	}
	resps := do(t, reqs...)
	var divergences int
	for i, c := range cases {
		r := resps[i]
		t.Run(c.name, func(t *testing.T) {
			got, goErr := c.codec.AppendJSONFromWire(nil, c.in)
			switch {
			case c.goErr == nil && goErr != nil:
				t.Errorf("agwire: %v, want success", goErr)
			case c.goErr != nil && !errors.Is(goErr, c.goErr):
				t.Errorf("agwire: %v (output %s), want %v", goErr, got, c.goErr)
			}
			peerSays := "ok"
			if !r.OK {
				peerSays = "throw"
				if r.ErrorName == "AGUIUnknownEventTypeError" {
					peerSays = "unknown"
				}
			}
			if peerSays != c.peer {
				t.Errorf("peer: %s (%s%s), want %s", peerSays, r.Event, r.Error, c.peer)
			}
			agree := (goErr == nil) == r.OK
			if agree && goErr == nil {
				agree = jsonDiff(got, r.Event) == ""
			}
			goSays := string(got)
			if goErr != nil {
				goSays = goErr.Error()
			}
			peerOut := string(r.Event)
			if !r.OK {
				peerOut = r.ErrorName + ": " + r.Error
			}
			switch {
			case c.divergence == "" && !agree:
				t.Errorf("agwire and the peer disagree: %s\nhex:    %s\nagwire: %s\npeer:   %s", jsonDiff(got, r.Event), short([]byte(hex.EncodeToString(c.in))), goSays, short([]byte(peerOut)))
			case c.divergence != "" && agree:
				t.Errorf("recorded divergence is gone (%s): both now say %s; update the case", c.divergence, goSays)
			case c.divergence != "":
				divergences++
				t.Logf("DIVERGENCE: %s\nhex:    %s\nagwire: %s\npeer:   %s", c.divergence, short([]byte(hex.EncodeToString(c.in))), short([]byte(goSays)), short([]byte(peerOut)))
			}
		})
	}
	t.Logf("%d decode edge cases, %d recorded divergences", len(cases), divergences)
}

// ---------------------------------------------------------------------------
// Encode

type encodeCase struct {
	name  string
	json  string
	codec codec.Codec
	// goErr is the sentinel agwire fails with; nil means it encodes.
	goErr error
	// peer: "ok", "warn" (encodes after a validation warning), "empty"
	// (encodes to zero bytes) or "throw".
	peer string
	// divergence, when set, says how and why the two differ. Empty: they
	// must agree — both refuse, or both write the same bytes.
	divergence string
}

func encodeCases() []encodeCase {
	lossy := codec.Codec{LossyNumbers: true}
	return []encodeCase{
		// Agreement.
		{name: "negative timestamp", json: `{"type":"TEXT_MESSAGE_END","messageId":"m","timestamp":-5}`, peer: "ok"},
		{name: "timestamp in exponent form", json: `{"type":"TEXT_MESSAGE_END","messageId":"m","timestamp":1e3}`, peer: "ok"},
		{name: "fractional timestamp", json: `{"type":"TEXT_MESSAGE_END","messageId":"m","timestamp":1.5}`, goErr: event.ErrInvalidField, peer: "throw"},
		{name: "null optional field reads as absent", json: `{"type":"TEXT_MESSAGE_END","messageId":"m","subagentRunId":null,"rawEvent":null}`, peer: "ok"},
		{name: "negative zero", json: `{"type":"CUSTOM","name":"c","value":-0}`, peer: "ok"},
		{name: "null value", json: `{"type":"CUSTOM","name":"c","value":null}`, peer: "ok"},
		{name: "overflow to +Inf with LossyNumbers", json: `{"type":"CUSTOM","name":"c","value":1e400}`, codec: lossy, peer: "ok"},
		{name: "underflow to 0 with LossyNumbers", json: `{"type":"CUSTOM","name":"c","value":1e-400}`, codec: lossy, peer: "ok"},
		{name: "empty usage and pendingToolCallIds", json: `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success","pendingToolCallIds":[]}}`, peer: "ok"},
		{name: "usage count 0 is kept", json: `{"type":"RUN_ERROR","message":"x","usage":[{"inputTokens":0}]}`, peer: "ok"},
		{name: "unknown role", json: `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"critic","content":"x"}]}`, goErr: codec.ErrInvalid, peer: "warn",
			divergence: "agwire refuses a role outside the seven; the peer's schema rejects it too, but the peer encodes it anyway after a warning"},
		{name: "unknown SUBAGENT_FINISHED outcome", json: `{"type":"SUBAGENT_FINISHED","subagentRunId":"s","outcome":{"type":"weird"}}`, goErr: codec.ErrInvalid, peer: "warn",
			divergence: "agwire refuses an outcome type outside the schema's set; the peer's schema rejects it too, but the peer encodes it anyway after a warning"},
		{name: "text message role outside the four", json: `{"type":"TEXT_MESSAGE_START","messageId":"m","role":"tool"}`, goErr: codec.ErrInvalid, peer: "warn",
			divergence: "agwire refuses a text-message role outside developer, system, assistant, user; the peer warns and encodes it"},
		{name: "text chunk role outside the four", json: `{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","role":"bot"}`, goErr: codec.ErrInvalid, peer: "warn",
			divergence: "agwire refuses; the peer warns and encodes it"},
		{name: "tool result role other than tool", json: `{"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":"x","role":"user"}`, goErr: codec.ErrInvalid, peer: "warn",
			divergence: "agwire refuses; the peer warns and encodes it"},
		{name: "reasoning start without its role", json: `{"type":"REASONING_MESSAGE_START","messageId":"m","role":"assistant"}`, goErr: codec.ErrInvalid, peer: "warn",
			divergence: "agwire refuses a reasoning message role other than reasoning; the peer warns and encodes it"},
		{name: "encrypted value subtype outside the two", json: `{"type":"REASONING_ENCRYPTED_VALUE","subtype":"blob","entityId":"e","encryptedValue":"v"}`, goErr: codec.ErrInvalid, peer: "warn",
			divergence: "agwire refuses a subtype other than tool-call or message; the peer warns and encodes it"},
		{name: "resume status outside the two", json: `{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[],"resume":[{"interruptId":"i","status":"done"}]}}`, goErr: codec.ErrInvalid, peer: "warn",
			divergence: "agwire refuses a resume status other than resolved or cancelled; the peer warns and encodes it"},
		{name: "unknown JSON Patch op", json: `{"type":"STATE_DELTA","delta":[{"op":"frobnicate","path":"/a"}]}`, goErr: codec.ErrInvalid, peer: "throw"},
		{name: "unknown fields dropped on request", json: `{"type":"TEXT_MESSAGE_END","messageId":"m","extra":1}`, codec: codec.Codec{DropUnknownFields: true}, peer: "ok"},

		// Divergences.
		{name: "timestamp beyond 2^53", json: `{"type":"TEXT_MESSAGE_END","messageId":"m","timestamp":9007199254740993}`, goErr: codec.ErrUnsafeInteger, peer: "warn",
			divergence: "agwire refuses an int64 beyond 2^53-1 (the peer could not decode the exact value; Codec.UnsafeIntegers writes it); JSON.parse gives the peer 9007199254740992"},
		{name: "usage count beyond 2^53", json: `{"type":"RUN_ERROR","message":"x","usage":[{"inputTokens":9007199254740993}]}`, goErr: codec.ErrUnsafeInteger, peer: "warn",
			divergence: "agwire refuses an int64 beyond 2^53-1; the peer rounds it"},
		{name: "timestamp beyond 2^53 with UnsafeIntegers", json: `{"type":"TEXT_MESSAGE_END","messageId":"m","timestamp":9007199254740993}`, codec: codec.Codec{UnsafeIntegers: true}, peer: "warn",
			divergence: "with Codec.UnsafeIntegers agwire writes the exact int64; the peer cannot decode that frame"},
		{name: "lossy number without LossyNumbers", json: `{"type":"STATE_SNAPSHOT","snapshot":9007199254740993}`, goErr: codec.ErrLossyNumber, peer: "ok",
			divergence: "agwire refuses a number a double cannot hold (Codec.LossyNumbers rounds as the peer does, silently)"},
		{name: "unknown field", json: `{"type":"TEXT_MESSAGE_END","messageId":"m","extra":1}`, goErr: event.ErrUnknownField, peer: "ok",
			divergence: "agwire refuses an undeclared field (Codec.DropUnknownFields drops it); the peer drops it silently"},
		{name: "unknown field in a content part", json: `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"user","content":[{"type":"text","text":"a","extra":1}]}]}`, goErr: event.ErrUnknownField, peer: "ok",
			divergence: "agwire refuses an undeclared field; the peer drops it silently"},
		{name: "metadata null", json: `{"type":"TEXT_MESSAGE_END","messageId":"m","metadata":null}`, goErr: event.ErrNullMetadata, peer: "ok",
			divergence: "agwire refuses \"metadata\": null; the peer drops it silently, without the schema warning"},
		{name: "missing required field", json: `{"type":"TEXT_MESSAGE_END"}`, goErr: event.ErrMissingField, peer: "warn",
			divergence: "agwire refuses; the peer warns and writes the string \"undefined\" as the messageId"},
		{name: "missing delta", json: `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m"}`, goErr: event.ErrMissingField, peer: "warn",
			divergence: "agwire refuses; the peer warns and writes the string \"undefined\" as the delta"},
		{name: "string timestamp", json: `{"type":"TEXT_MESSAGE_END","messageId":"m","timestamp":"123"}`, goErr: event.ErrInvalidField, peer: "warn",
			divergence: "agwire refuses; the peer warns and converts \"123\" to 123"},
		{name: "metadata array", json: `{"type":"TEXT_MESSAGE_END","messageId":"m","metadata":[]}`, goErr: event.ErrInvalidField, peer: "warn",
			divergence: "agwire refuses; the peer warns and drops the metadata"},
		{name: "activity content array", json: `{"type":"ACTIVITY_SNAPSHOT","messageId":"m","activityType":"a","content":[1]}`, goErr: event.ErrInvalidField, peer: "warn",
			divergence: "agwire refuses; the peer warns and writes the array as the Struct {\"0\":1}"},
		{name: "content part of an unknown type", json: `{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"1","role":"user","content":[{"type":"weird","x":1}]}]}`, goErr: event.ErrUnknownField, peer: "warn",
			divergence: "agwire refuses; the peer warns and drops the part"},
		{name: "duplicate key in a dynamic object", json: `{"type":"STATE_SNAPSHOT","snapshot":{"a":1,"a":2}}`, goErr: event.ErrDuplicateKey, peer: "ok",
			divergence: "agwire refuses a Struct with a key twice; JSON.parse keeps the last value, silently"},
		{name: "unpaired surrogate", json: `{"type":"TEXT_MESSAGE_END","messageId":"m\ud800"}`, goErr: event.ErrSyntax, peer: "ok",
			divergence: "agwire refuses an unpaired surrogate (no UTF-8 form); the peer writes U+FFFD, silently"},
		// The codec package documentation names ErrUnsupportedEvent for an
		// unknown type; through the JSON entry point it is the parser's
		// event.ErrUnknownType, which is not ErrUnsupportedEvent.
		{name: "unknown event type", json: `{"type":"NOT_A_TYPE","x":1}`, goErr: event.ErrUnknownType, peer: "empty",
			divergence: "agwire refuses; the peer writes an empty payload, silently"},
	}
}

// TestEncodeEdgeCases feeds the same JSON events to agwire's AppendFromJSON
// and the peer's proto.encode, and has the peer decode whatever agwire
// writes.
func TestEncodeEdgeCases(t *testing.T) {
	cases := encodeCases()
	goOut := make([][]byte, len(cases))
	goErrs := make([]error, len(cases))
	reqs := make([]Request, 0, 2*len(cases))
	for i, c := range cases {
		reqs = append(reqs, EncodeRequest([]byte(c.json)))
		goOut[i], goErrs[i] = c.codec.AppendFromJSON(nil, []byte(c.json))
		reqs = append(reqs, DecodeRequest(goOut[i])) // empty on error; ignored then
	}
	resps := do(t, reqs...)
	var divergences int
	for i, c := range cases {
		enc, dec := resps[2*i], resps[2*i+1]
		t.Run(c.name, func(t *testing.T) {
			goErr := goErrs[i]
			switch {
			case c.goErr == nil && goErr != nil:
				t.Errorf("agwire: %v, want success", goErr)
			case c.goErr != nil && !errors.Is(goErr, c.goErr):
				t.Errorf("agwire: %v (output %x), want %v", goErr, goOut[i], c.goErr)
			}
			peerSays := "throw"
			switch {
			case enc.OK && enc.Hex == "":
				peerSays = "empty"
			case enc.OK && enc.Warned:
				peerSays = "warn"
			case enc.OK:
				peerSays = "ok"
			}
			if peerSays != c.peer {
				t.Errorf("peer: %s (%s%s %q), want %s", peerSays, enc.Hex, enc.Error, enc.Warnings, c.peer)
			}
			peerWrote := enc.OK // an empty payload is a frame too: readers will receive it
			agree := (goErr == nil) == peerWrote
			if agree && goErr == nil {
				agree = enc.Hex == hex.EncodeToString(goOut[i]) && dec.OK
			}
			goSays := hex.EncodeToString(goOut[i])
			if goErr != nil {
				goSays = goErr.Error()
			} else if !dec.OK {
				goSays += " (the peer cannot decode it: " + dec.Error + ")"
			}
			peerOut := "throws: " + enc.Error
			if enc.OK {
				peerOut = "writes " + enc.Hex
				if enc.Hex == "" {
					peerOut = "writes an empty payload"
				}
				if enc.Warned {
					peerOut += " after warning " + strings.Join(enc.Warnings, " | ")
				}
			}
			switch {
			case c.divergence == "" && !agree:
				t.Errorf("agwire and the peer disagree on %s\nagwire: %s\npeer:   %s", c.json, goSays, peerOut)
			case c.divergence != "" && agree:
				t.Errorf("recorded divergence is gone (%s); update the case\nagwire: %s\npeer:   %s", c.divergence, goSays, peerOut)
			case c.divergence != "":
				divergences++
				t.Logf("DIVERGENCE: %s\nevent:  %s\nagwire: %s\npeer:   %s", c.divergence, c.json, goSays, short([]byte(peerOut)))
			}
		})
	}
	t.Logf("%d encode edge cases, %d recorded divergences", len(cases), divergences)
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}
