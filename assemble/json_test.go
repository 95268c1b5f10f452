package assemble_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agwire/agwire/assemble"
	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// The values assemble holds (state, patch values, activity content) are
// read as `agwire encode` reads them: what the encoder refuses, assembling
// refuses, with a typed error naming the event; what it accepts, assembling
// accepts.
func TestValuesAcceptedExactlyAsEncodeAccepts(t *testing.T) {
	dupes := `{` + strings.Repeat(`"k":0,`, 10000) + `"k":1}`
	for _, c := range []struct {
		value string
		want  error // nil: accepted
	}{
		{`{"a":1,"b":[1.5,"x",null,true]}`, nil},
		{`{"a":1,"a":2}`, event.ErrDuplicateKey},
		{dupes, event.ErrDuplicateKey},
		{`{"n":12345678901234567890}`, assemble.ErrInexactNumber},
		{`{"n":1e400}`, assemble.ErrInexactNumber},
		{`{"n":9007199254740993}`, assemble.ErrInexactNumber},
		{`{"n":1.0}`, nil},
	} {
		for _, line := range []string{
			`{"type":"STATE_SNAPSHOT","snapshot":` + c.value + `}`,
			`{"type":"STATE_DELTA","delta":[{"op":"add","path":"/v","value":` + c.value + `}]}`,
			`{"type":"ACTIVITY_SNAPSHOT","messageId":"a","activityType":"x","content":` + c.value + `}`,
			`{"type":"CUSTOM","name":"c","value":1,"metadata":` + c.value + `}`,
			`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"d","metadata":` + c.value + `}`,
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"u","role":"user","content":"x","metadata":` + c.value + `}]}`,
			`{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"},"metadata":` + c.value + `}]}]}`,
			`{"type":"TOOL_CALL_RESULT","messageId":"t","toolCallId":"c","content":[{"type":"text","text":"x","metadata":` + c.value + `}]}`,
			`{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"x","metadata":` + c.value + `}]}}`,
		} {
			_, encErr := codec.Codec{}.AppendFromJSON(nil, []byte(line))
			ev, err := event.Parse([]byte(line))
			if err != nil {
				t.Fatalf("%.80s: %v", line, err)
			}
			conv, _ := assemble.New(assemble.Options{})
			err = conv.Apply(ev)
			if (err == nil) != (encErr == nil) {
				t.Errorf("%.80s: assemble says %v, encode says %v", line, err, encErr)
			}
			if c.want == nil {
				continue
			}
			var ae *assemble.ApplyError
			if !errors.Is(err, c.want) || !errors.As(err, &ae) || ae.Index != 0 || ae.Type != ev.Type() {
				t.Errorf("%.80s: got %v, want an *ApplyError naming event 0 wrapping %v", line, err, c.want)
			}
			if got := string(conv.State()); got != "{}" {
				t.Errorf("%.80s: a refused event changed the state to %s", line, got)
			}
		}
	}
}

// An initial state is read the same way: no byte order mark, no repeated key.
func TestInitialStateStrict(t *testing.T) {
	for _, st := range []string{"\xEF\xBB\xBF{}", `{"a":1,"a":1}`, `{"a":1e999}`} {
		if _, err := assemble.New(assemble.Options{State: event.RawValue(st)}); err == nil {
			t.Errorf("initial state %q accepted", st)
		}
	}
}

// The state is written as JSON.stringify writes it: every control character
// with the ECMAScript escapes (\b \t \n \f \r by name, the others as \u00XX
// in lower case), quote and backslash escaped, nothing else.
func TestStateWrittenLikeJSONStringify(t *testing.T) {
	var in, want strings.Builder
	named := map[byte]string{'\b': `\b`, '\t': `\t`, '\n': `\n`, '\f': `\f`, '\r': `\r`}
	const hex = "0123456789abcdef"
	for c := 0; c < 0x20; c++ {
		in.WriteString(`\u00` + string(hex[c>>4]) + string(hex[c&15]))
		if s, ok := named[byte(c)]; ok {
			want.WriteString(s)
		} else {
			want.WriteString(`\u00` + string(hex[c>>4]) + string(hex[c&15]))
		}
	}
	in.WriteString(`\"\\\/\u00e9\u2028`)
	want.WriteString(`\"\\/é` + "\u2028")
	ev, err := event.Parse([]byte(`{"type":"STATE_SNAPSHOT","snapshot":{"s":"` + in.String() + `"}}`))
	if err != nil {
		t.Fatal(err)
	}
	conv, _ := assemble.New(assemble.Options{})
	if err := conv.Apply(ev); err != nil {
		t.Fatal(err)
	}
	if got := string(conv.State()); got != `{"s":"`+want.String()+`"}` {
		t.Errorf("got  %s\nwant %s", got, `{"s":"`+want.String()+`"}`)
	}
}
