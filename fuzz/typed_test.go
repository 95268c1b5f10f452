package fuzz

import (
	"bytes"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/gen/aguipb"
)

// gen draws choices from the fuzzer's bytes (zeros once they run out), so
// that every input is a different, reproducible typed event.
type gen struct {
	data []byte
	pos  int
}

func (g *gen) byte() byte {
	if g.pos >= len(g.data) {
		return 0
	}
	g.pos++
	return g.data[g.pos-1]
}

func (g *gen) intn(n int) int { return int(g.byte()) % n }

func (g *gen) chance(k int) bool { return g.intn(k) == 0 } // 1 in k

func pick[T any](g *gen, xs ...T) T { return xs[g.intn(len(xs))] }

var genStrings = []string{"", "a", "m1", "hello, world", "안녕 😀", "\x00", "tab\there \"q\" \\", "\u2028", strings.Repeat("x", 130)}

func (g *gen) str() string {
	if g.chance(16) { // raw bytes, possibly invalid UTF-8
		n := g.intn(6)
		b := make([]byte, n)
		for i := range b {
			b[i] = g.byte()
		}
		return string(b)
	}
	return pick(g, genStrings...)
}

var genNumbers = []string{"0", "-0", "1", "-1", "0.1", "1.5", "1e21", "1e-7", "5e-324", "1.7976931348623157e308",
	"9007199254740991", "-9007199254740991", "123456789", "2.5e-10", "0.30000000000000004"}

// jsonValue writes a random JSON value (the text of a RawValue).
func (g *gen) jsonValue(depth int) []byte {
	k := g.intn(7)
	if depth > 3 {
		k %= 4
	}
	switch k {
	case 0:
		return []byte("null")
	case 1:
		return []byte(pick(g, "true", "false"))
	case 2:
		if g.chance(20) {
			return []byte(pick(g, "9007199254740993", "1e400", "0.12345678901234567891")) // lossy
		}
		return []byte(pick(g, genNumbers...))
	case 3:
		return strconv.AppendQuote(nil, g.str())
	case 4, 5:
		return g.jsonObject(depth)
	}
	out := []byte{'['}
	for i := range g.intn(4) {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, g.jsonValue(depth+1)...)
	}
	return append(out, ']')
}

var genKeys = []string{"a", "b", "z", "", "10", "2", "ag-ui", "😀"}

func (g *gen) jsonObject(depth int) []byte {
	out := []byte{'{'}
	first, dup := g.intn(len(genKeys)), g.chance(16) // now and then a key twice
	for i := range g.intn(4) {
		if i > 0 {
			out = append(out, ',')
		}
		k := genKeys[(first+i)%len(genKeys)]
		if dup {
			k = genKeys[first]
		}
		out = strconv.AppendQuote(out, k)
		out = append(out, ':')
		out = append(out, g.jsonValue(depth+1)...)
	}
	return append(out, '}')
}

var genInt64s = []int64{0, 1, -1, 1733140800123, 1<<53 - 1, -(1<<53 - 1), 1 << 53, -1 << 63, 1<<63 - 1}

// fill sets v, of the named field, to a random value of its type. The
// values are mostly the ones the event types allow (roles, part and source
// types, outcome types, op names, consistent content carriers), so that most
// events encode; now and then anything goes, so that refusals are
// exercised too.
func (g *gen) fill(v reflect.Value, name string) {
	switch v.Type() {
	case rawValueType:
		if !g.chance(3) {
			v.SetBytes(g.jsonValue(0))
		}
		return
	case objectType:
		if !g.chance(3) {
			v.SetBytes(g.jsonObject(0))
		}
		return
	case reflect.TypeFor[event.Message]():
		g.message(v.Addr().Interface().(*event.Message))
		return
	case reflect.TypeFor[event.ContentPart]():
		g.part(v.Addr().Interface().(*event.ContentPart))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if g.chance(2) {
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		g.fill(v.Elem(), name)
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.IsExported() {
				g.fill(v.Field(i), f.Name)
			}
		}
		switch o := v.Addr().Interface().(type) {
		case *event.RunOutcome:
			o.Type = pick(g, event.OutcomeSuccess, event.OutcomeInterrupt, event.OutcomeCancelled, "later")
			if o.Type != event.OutcomeSuccess && !g.chance(8) {
				o.PendingToolCallIDs = nil
			}
			if o.Type != event.OutcomeInterrupt && !g.chance(8) {
				o.Interrupts = nil
			}
		case *event.SubagentOutcome:
			o.Type = pick(g, event.OutcomeSuccess, event.OutcomeSuspended, "later")
			if o.Type != event.OutcomeSuspended && !g.chance(8) {
				o.InterruptIDs = nil
			}
		case *event.ToolCallResult:
			if o.Content != nil && o.Parts != nil && !g.chance(8) {
				o.Parts = nil
			}
		case *event.PatchOp:
			o.Op = pick(g, "add", "remove", "replace", "move", "copy", "test", "7")
		}
	case reflect.Slice:
		n := g.intn(4)
		if n == 0 && g.chance(2) {
			return // nil, not empty
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			g.fill(s.Index(i), name)
		}
		v.Set(s)
	case reflect.String:
		v.SetString(g.str())
	case reflect.Bool:
		v.SetBool(g.chance(2))
	case reflect.Int64:
		v.SetInt(pick(g, genInt64s...))
	}
}

var genRoles = []string{event.RoleDeveloper, event.RoleSystem, event.RoleAssistant, event.RoleUser,
	event.RoleTool, event.RoleActivity, event.RoleReasoning}

func (g *gen) message(m *event.Message) {
	var free event.Message
	g.fill(reflect.ValueOf(&free).Elem().FieldByName("ID"), "ID")
	*m = event.Message{ID: free.ID, Role: pick(g, genRoles...)}
	if g.chance(10) {
		m.Role = g.str() // a role this build does not know
	}
	opt := func(p **string) {
		if g.chance(2) {
			s := g.str()
			*p = &s
		}
	}
	opt(&m.Name)
	opt(&m.SubagentRunID)
	opt(&m.EncryptedValue)
	if g.chance(2) {
		m.Metadata = g.jsonObject(0)
	}
	switch m.Role {
	case event.RoleActivity:
		opt(&m.ActivityType)
		m.ActivityContent = g.jsonObject(0)
	case event.RoleUser, event.RoleTool:
		if g.chance(2) {
			m.Parts = make([]event.ContentPart, g.intn(3))
			for i := range m.Parts {
				g.part(&m.Parts[i])
			}
		} else {
			opt(&m.Content)
		}
		if m.Role == event.RoleTool {
			opt(&m.ToolCallID)
			opt(&m.Error)
		}
	default:
		opt(&m.Content)
	}
	if m.Role == event.RoleAssistant && g.chance(2) {
		m.ToolCalls = make([]event.ToolCall, 1+g.intn(2))
		for i := range m.ToolCalls {
			g.fill(reflect.ValueOf(&m.ToolCalls[i]).Elem(), "ToolCall")
		}
	}
	if g.chance(12) { // carriers that may contradict the role
		g.fill(reflect.ValueOf(&m.Content).Elem(), "Content")
		if g.chance(2) {
			m.ActivityContent = g.jsonObject(0)
		}
	}
}

func (g *gen) part(p *event.ContentPart) {
	*p = event.ContentPart{Type: pick(g, event.PartText, event.PartImage, event.PartAudio, event.PartVideo, event.PartDocument)}
	if g.chance(2) {
		id := g.str()
		p.ID = &id
	}
	if g.chance(2) {
		p.Metadata = g.jsonValue(0)
	}
	if p.Type == event.PartText {
		p.Text = g.str()
		return
	}
	p.Source = &event.Source{Type: pick(g, event.SourceData, event.SourceURL, event.SourceFile), Value: g.str()}
	if p.Source.Type == event.SourceData || g.chance(2) {
		mt := pick(g, "image/png", "text/plain", "")
		p.Source.MimeType = &mt
	}
	if p.Source.Type == event.SourceFile && g.chance(2) {
		pr := g.str()
		p.Source.Provider = &pr
	}
	if g.chance(16) {
		p.Type = g.str() // a part type with no arm
	}
}

// genEvent builds a typed event of one of the 31 types from data.
func genEvent(data []byte) event.Event {
	g := &gen{data: data}
	types := event.Types()
	ev := event.New(types[g.intn(len(types))])
	g.fill(reflect.ValueOf(ev).Elem(), "")
	return ev
}

// encodeSentinels are the errors Append may refuse a Go value with.
var encodeSentinels = []error{codec.ErrInvalid, codec.ErrLossyNumber, codec.ErrUnsafeInteger, event.ErrTooDeep,
	codec.ErrNotInProfile, event.ErrUnsupportedEvent, event.ErrNullMetadata, event.ErrDuplicateKey}

// FuzzEncodeTyped: typed events generated from the fuzzer's bytes (all 31
// types, every field, consistent carriers most of the time) either are
// refused with a *codec.Error wrapping one of encodeSentinels, leaving the
// destination as it was, or encode to bytes B such that: Unmarshal(B)
// succeeds and Append of that event gives B again, byte for byte; the
// protobuf runtime reads B into aguipb.Event; the JSON path
// (event.Marshal, then AppendFromJSON) gives B too; and the pre-1.0 profile
// gives B as well when the type is one of its 18 arms, ErrNotInProfile
// otherwise.
func FuzzEncodeTyped(f *testing.F) {
	for i := range 62 {
		f.Add([]byte{byte(i)})
		f.Add(bytes.Repeat([]byte{byte(i), 1}, 40))
		f.Add(bytes.Repeat([]byte{byte(i), 3, 5, 7, 11}, 40))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ev := genEvent(data)
		prefix := []byte("prefix")
		b1, err := codec.Append(prefix, ev)
		if err != nil {
			var ce *codec.Error
			if !errors.As(err, &ce) || !isAny(err, encodeSentinels...) {
				t.Fatalf("Append refused %T with %T %v", ev, err, err)
			}
			if string(b1) != "prefix" {
				t.Fatalf("Append failed but changed dst to %q", b1)
			}
			return
		}
		if !bytes.HasPrefix(b1, prefix) {
			t.Fatal("Append did not keep dst")
		}
		b1 = b1[len(prefix):]
		ev2, err := codec.Unmarshal(b1)
		if err != nil {
			t.Fatalf("agwire cannot decode what it encoded: %v\nevent %s\nwire %x", err, marshalOrErr(ev), b1)
		}
		b2, err := codec.Append(nil, ev2)
		if err != nil || !bytes.Equal(b1, b2) {
			t.Fatalf("encode → decode → encode changed the bytes (%v)\nevent   %s\ndecoded %s\nwire1 %x\nwire2 %x",
				err, marshalOrErr(ev), marshalOrErr(ev2), b1, b2)
		}
		if err := proto.Unmarshal(b1, new(aguipb.Event)); err != nil {
			t.Fatalf("protobuf-go cannot read agwire's bytes: %v\nwire %x", err, b1)
		}
		b4, err := codec.Codec{Profile: codec.PreV1}.Append(nil, ev)
		arm := protoArm(b1)
		switch {
		case arm >= 1 && arm <= 18 && (err != nil || !bytes.Equal(b1, b4)):
			t.Fatalf("pre-1.0 profile: arm %d gives %x, %v; want the 1.0 bytes", arm, b4, err)
		case arm > 18 && !errors.Is(err, codec.ErrNotInProfile):
			t.Fatalf("pre-1.0 profile: arm %d gives %x, %v; want ErrNotInProfile", arm, b4, err)
		}
		j, err := event.Marshal(ev)
		if err != nil {
			t.Fatalf("an event that encodes does not marshal to JSON: %v", err)
		}
		b3, err := codec.AppendFromJSON(nil, j)
		if errors.Is(err, event.ErrMissingField) {
			// A Go value may leave out what the JSON schema requires (a
			// tool message's content, an activity's type or content); the
			// encoder writes the wire's default, while the JSON parser
			// refuses the JSON form. Nothing more to compare.
			return
		}
		if err != nil || !bytes.Equal(b1, b3) {
			t.Fatalf("the JSON path disagrees with the Go path (%v)\njson %s\nwire %x\njson path %x", err, j, b1, b3)
		}
	})
}

// protoArm is the field number of an Event's first field: its arm.
func protoArm(b []byte) int {
	var m aguipb.Event
	if proto.Unmarshal(b, &m) != nil {
		return 0
	}
	var n int
	m.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		n = int(fd.Number())
		return false
	})
	return n
}

func marshalOrErr(ev event.Event) string {
	j, err := event.Marshal(ev)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return string(j)
}
