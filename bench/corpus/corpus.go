// Package corpus generates the benchmark inputs: a recorded-style agent run of
// about 85,000 AG-UI events and the synthetic single-event cases, all as AG-UI
// JSON text. Everything is generated from fixed seeds, so every machine and
// every run sees the same bytes.
package corpus

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Case is one synthetic benchmark input: a single AG-UI JSON event.
type Case struct {
	Name string // short, benchmark-name safe
	Desc string // what it is, for the README
	JSON []byte
}

// Cases returns the synthetic cases the benchmarks run, smallest first.
func Cases() []Case {
	return []Case{
		{"SmallText", "TEXT_MESSAGE_CONTENT, 40-byte delta", SmallText()},
		{"EndMetadata", "TEXT_MESSAGE_END with rich metadata (nested usage, arrays, numbers, null)", EndMetadata()},
		{"StateDelta20", "STATE_DELTA of 20 JSON Patch operations", StateDelta(20)},
		{"Snapshot5", "MESSAGES_SNAPSHOT of 5 messages", MessagesSnapshot(5)},
		{"Snapshot200", "MESSAGES_SNAPSHOT of 200 messages", MessagesSnapshot(200)},
		{"Text64K", "TEXT_MESSAGE_CONTENT with a 64 KiB delta", TextDelta(64 << 10)},
		{"State64K", "STATE_SNAPSHOT of about 64 KiB", StateSnapshot(64 << 10)},
		{"Snapshot1M", "MESSAGES_SNAPSHOT of about 1 MiB", MessagesSnapshotBytes(1 << 20)},
	}
}

// SmallText is the event a run streams most: a short text delta.
func SmallText() []byte {
	return []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg_01JD8Y3K2V","delta":"The capital of South Korea is Seoul, a "}`)
}

// EndMetadata is a TEXT_MESSAGE_END carrying the kind of metadata providers
// attach: usage, finish reason, model, trace ids, flags, a null, an array.
func EndMetadata() []byte {
	return []byte(`{"type":"TEXT_MESSAGE_END","messageId":"msg_01JD8Y3K2V","timestamp":1773411602731,"metadata":{` +
		`"ag-ui":{"usage":{"inputTokens":1183,"outputTokens":341,"totalTokens":1524,"cachedInputTokens":1024}},` +
		`"finishReason":"stop","model":"gpt-4o-2024-08-06","provider":"openai","traceId":"4bf92f3577b34da6a3ce929d0e0e4736",` +
		`"spanId":"00f067aa0ba902b7","latencyMs":812.5,"retries":0,"cached":false,"stream":true,"labels":["prod","eu-west-1","canary"],` +
		`"safety":{"flagged":false,"categories":{"violence":0.0012,"self_harm":0.0003}},"parentRunId":null}}`)
}

// Generator state for the recorded-style run and the larger synthetic cases.
type gen struct {
	r   *rand.Rand
	buf bytes.Buffer
}

func newGen(seed uint64) *gen { return &gen{r: rand.New(rand.NewPCG(seed, 0x5eed))} }

var words = strings.Fields(`the a of to and in is it that for on with as you this be are at
or from by not we can an will if your but they more one all about which their has would when
there what so up out them some into time only its other than then now also could like just
forecast Lisbon Seoul flight hotel umbrella temperature rain showers itinerary booking price
departure arrival gate terminal passport visa museum café déjà-vu naïve 17°C 11°C €812,40 ¥4,200
“quoted” — Straße São Paulo Zürich 東京 서울 🙂 ✈️ "inline" \path\to line\nbreak tab\there`)

// text returns roughly n bytes of prose: mostly ASCII words, some non-ASCII,
// a few characters JSON must escape.
func (g *gen) text(n int) string {
	var b strings.Builder
	b.Grow(n + 16)
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		w := words[g.r.IntN(len(words))]
		w = strings.ReplaceAll(strings.ReplaceAll(w, `\n`, "\n"), `\t`, "\t")
		b.WriteString(w)
		if g.r.IntN(12) == 0 {
			b.WriteString(".")
		}
	}
	s := b.String()
	// Cut to n bytes without splitting a UTF-8 sequence.
	for len(s) > n {
		s = s[:n]
		for len(s) > 0 && s[len(s)-1] >= 0x80 && s[len(s)-1] < 0xC0 {
			s = s[:len(s)-1]
		}
		if len(s) > 0 && s[len(s)-1] >= 0xC0 {
			s = s[:len(s)-1]
		}
	}
	for len(s) < n { // pad with ASCII to exactly n bytes
		s += "x"
	}
	return s
}

// Quote returns s as a JSON string.
func Quote(s string) string { return string(appendQuote(nil, s)) }

func appendQuote(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}

// TextDelta is a TEXT_MESSAGE_CONTENT whose delta is exactly n bytes of prose.
func TextDelta(n int) []byte {
	g := newGen(uint64(n) + 1)
	return []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg_big","delta":` + Quote(g.text(n)) + `}`)
}

// MetadataKeys is a TEXT_MESSAGE_END whose metadata has k flat keys with
// alternating number, string and boolean values.
func MetadataKeys(k int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"TEXT_MESSAGE_END","messageId":"msg_meta","metadata":{`)
	for i := range k {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"key_%05d":`, i)
		switch i % 3 {
		case 0:
			b.WriteString(strconv.Itoa(i * 7))
		case 1:
			fmt.Fprintf(&b, `"value %d"`, i)
		default:
			b.WriteString(strconv.FormatBool(i%2 == 0))
		}
	}
	b.WriteString(`}}`)
	return b.Bytes()
}

// StateDelta is a STATE_DELTA of n mixed operations.
func StateDelta(n int) []byte {
	g := newGen(uint64(n) + 100)
	var b bytes.Buffer
	b.WriteString(`{"type":"STATE_DELTA","delta":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		g.patchOp(&b, i)
	}
	b.WriteString(`],"timestamp":1773411601990}`)
	return b.Bytes()
}

func (g *gen) patchOp(b *bytes.Buffer, i int) {
	switch i % 5 {
	case 0:
		fmt.Fprintf(b, `{"op":"replace","path":"/progress","value":%s}`, strconv.FormatFloat(float64(g.r.IntN(1000))/1000, 'g', -1, 64))
	case 1:
		fmt.Fprintf(b, `{"op":"add","path":"/steps/-","value":{"id":%d,"title":%s,"done":false,"tags":["travel","p%d"]}}`, i, Quote(g.text(18)), i%3)
	case 2:
		fmt.Fprintf(b, `{"op":"replace","path":"/status","value":%s}`, Quote(g.text(10)))
	case 3:
		fmt.Fprintf(b, `{"op":"remove","path":"/draft/%d"}`, i)
	default:
		fmt.Fprintf(b, `{"op":"move","path":"/done/-","from":"/queue/0"}`)
	}
}

// message writes one message of the role chosen by i (system first, then
// user / assistant with a tool call / tool / assistant text).
func (g *gen) message(b *bytes.Buffer, i int, textLen int) {
	id := fmt.Sprintf("msg_%06d", i)
	if i == 0 {
		fmt.Fprintf(b, `{"id":%q,"role":"system","content":%s}`, id, Quote("You are a concise travel assistant. Answer with facts from tools only."))
		return
	}
	switch i % 4 {
	case 1:
		fmt.Fprintf(b, `{"id":%q,"role":"user","content":%s}`, id, Quote(g.text(textLen/2)))
	case 2:
		fmt.Fprintf(b, `{"id":%q,"role":"assistant","content":%s,"toolCalls":[{"id":"call_%06d","type":"function","function":{"name":"get_forecast","arguments":%s},"metadata":{"provider":"openai","latencyMs":%d}}]}`,
			id, Quote(g.text(24)), i, Quote(`{"city":"Lisbon","date":"2026-03-14","unit":"celsius"}`), 40+g.r.IntN(200))
	case 3:
		fmt.Fprintf(b, `{"id":%q,"role":"tool","content":%s,"toolCallId":"call_%06d"}`, id,
			Quote(fmt.Sprintf(`{"date":"2026-03-14","highC":%d,"lowC":%d,"precipProb":0.%d,"sky":"showers"}`, 10+g.r.IntN(15), g.r.IntN(10), 1+g.r.IntN(9))), i-1)
	default:
		fmt.Fprintf(b, `{"id":%q,"role":"assistant","content":%s,"metadata":{"finishReason":"stop","outputTokens":%d}}`, id, Quote(g.text(textLen)), 20+g.r.IntN(400))
	}
}

// MessagesSnapshot is a MESSAGES_SNAPSHOT of n messages.
func MessagesSnapshot(n int) []byte {
	g := newGen(uint64(n) + 200)
	var b bytes.Buffer
	b.WriteString(`{"type":"MESSAGES_SNAPSHOT","messages":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		g.message(&b, i, 160)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// MessagesSnapshotBytes is a MESSAGES_SNAPSHOT of at least size bytes of JSON.
func MessagesSnapshotBytes(size int) []byte {
	g := newGen(uint64(size) + 300)
	var b bytes.Buffer
	b.WriteString(`{"type":"MESSAGES_SNAPSHOT","messages":[`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		g.message(&b, i, 400)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// StateSnapshot is a STATE_SNAPSHOT of at least size bytes: an agent state
// with nested objects, arrays, numbers and strings.
func StateSnapshot(size int) []byte {
	g := newGen(uint64(size) + 400)
	var b bytes.Buffer
	b.WriteString(`{"type":"STATE_SNAPSHOT","snapshot":{"status":"planning","city":"Lisbon","progress":0.42,"itinerary":[`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		g.stateItem(&b, i)
	}
	b.WriteString(`],"draft":null}}`)
	return b.Bytes()
}

func (g *gen) stateItem(b *bytes.Buffer, i int) {
	fmt.Fprintf(b, `{"day":%d,"title":%s,"done":%t,"cost":{"amount":%d.%d,"currency":"EUR"},"stops":[%s,%s],"rating":%d}`,
		i, Quote(g.text(20)), i%3 == 0, 20+g.r.IntN(400), 1+g.r.IntN(9), Quote(g.text(12)), Quote(g.text(12)), 1+g.r.IntN(5))
}
