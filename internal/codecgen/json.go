package main

import (
	"fmt"

	"github.com/agwire/agwire/internal/schema"
)

// The JSON writers, for events the generated decoders produced: they are
// trusted (every string was checked for UTF-8, every dynamic value written
// by the decoder itself, every rule applied), so a writer only lays out
// what the reference writer (event.AppendJSON) lays out, without its
// checks: the type, the fields in declaration order, then the base fields;
// optional fields left out when absent, optional lists when empty (unless
// their condition holds), a required object never left out.

func (g *gen) jsonWriters() {
	g.P("// appendJSONGenerated writes the JSON form of an event Unmarshal")
	g.P("// returned: one of the types with a generated decoder.")
	g.P("func appendJSONGenerated(b []byte, ev event.Event) []byte {")
	g.P("switch p := ev.(type) {")
	for _, in := range g.events {
		name := planOf(in).Type.Name()
		g.P("case *event.%s:", name)
		g.P("b = append(b, `{\"type\":\"%s\"`...)", in.Type)
		g.P("b = json%s(b, p)", name)
		g.P("b = jsonBase(b, &p.Base)")
		g.P("return append(b, '}')")
	}
	g.P("}")
	g.P("panic(noJSONWriter(ev))")
	g.P("}")
	g.P("")
	for _, p := range g.order {
		g.jsonWriter(p)
	}
}

// jsonWriter writes jsonT(b, p): the fields of p, each key preceded by a
// comma when a member was written before it. An event's members follow
// its type, so each takes a comma; a message's first member takes none.
// Where whether one was written depends on the values (the first members
// are optional), a variable, comma, says it.
func (g *gen) jsonWriter(p *schema.Plan) {
	name := p.Type.Name()
	g.P("func json%s(b []byte, p *event.%s) []byte {", name, name)
	g.comma = commaNone
	if p.Event || isBase(p) {
		g.comma = commaDue
	} else if len(p.Fields) > 0 && optionalMember(&p.Fields[0]) {
		g.P("comma := false")
		g.comma = commaVar
	}
	for i := range p.Fields {
		g.jsonField(&p.Fields[i])
	}
	g.P("return b")
	g.P("}")
	g.P("")
}

// What precedes the next member's key.
const (
	commaNone = iota // nothing: no member was written before
	commaDue         // a comma: a member was written
	commaVar         // a comma if variable comma says one was written
)

// optionalMember reports whether the member of f is left out for some
// values.
func optionalMember(f *schema.Field) bool {
	switch f.Kind {
	case schema.String, schema.Enum, schema.Message:
		return false
	case schema.Object:
		return !f.Req
	case schema.Strings, schema.Messages, schema.Parts:
		return f.Union || f.NilAbsent || f.Opt
	}
	return true
}

// jsonField writes the member of field f.
func (g *gen) jsonField(f *schema.Field) {
	x := "p." + f.GoName
	key := func() {
		switch g.comma {
		case commaNone:
			g.P("b = append(b, `\"%s\":`...)", f.Name)
		case commaDue:
			g.P("b = append(b, `,\"%s\":`...)", f.Name)
		case commaVar:
			g.P("b = jsonKey(b, comma, `\"%s\":`)", f.Name)
			if optionalMember(f) {
				g.P("comma = true")
			}
		}
		if !optionalMember(f) {
			g.comma = commaDue
		}
	}
	switch f.Kind {
	case schema.String, schema.Enum:
		key()
		g.P("b = jsonx.AppendValidString(b, %s)", x)
	case schema.OptString:
		g.P("if v := %s; v != nil {", x)
		key()
		g.P("b = jsonx.AppendValidString(b, *v)")
		g.P("}")
	case schema.OptBool:
		g.P("if v := %s; v != nil {", x)
		key()
		g.P("b = strconv.AppendBool(b, *v)")
		g.P("}")
	case schema.OptInt64:
		g.P("if v := %s; v != nil {", x)
		key()
		g.P("b = strconv.AppendInt(b, *v, 10)")
		g.P("}")
	case schema.Value:
		g.P("if v := %s; %s {", x, valuePresent(f))
		key()
		g.P("b = append(b, v...) // the decoder's own text: one line")
		g.P("}")
	case schema.Object:
		if f.Req {
			key()
			g.P("b = append(b, requiredObject(%s)...)", x)
			return
		}
		g.P("if v := %s; v != nil {", x)
		key()
		g.P("b = append(b, v...)")
		g.P("}")
	case schema.Message:
		key()
		g.P("b = append(json%s(append(b, '{'), &%s), '}')", f.Elem.Type.Name(), x)
	case schema.OptMessage:
		g.P("if v := %s; v != nil {", x)
		key()
		g.P("b = append(json%s(append(b, '{'), v), '}')", f.Elem.Type.Name())
		g.P("}")
	case schema.Strings, schema.Messages, schema.Parts:
		cond := ""
		switch {
		case f.Union, f.NilAbsent:
			cond = x + " != nil" // the content carrier that is set; absent when nil, written when empty
		case f.Opt && f.Always != nil:
			cond = fmt.Sprintf("len(%s) > 0 || p.%s == %q", x, f.Always.Field.GoName, f.Always.Value)
		case f.Opt:
			cond = fmt.Sprintf("len(%s) > 0", x)
		}
		if cond != "" {
			g.P("if %s {", cond)
		}
		key()
		g.P("b = append(b, '[')")
		g.P("for i := range %s {", x)
		g.P("if i > 0 {")
		g.P("b = append(b, ',')")
		g.P("}")
		switch f.Kind {
		case schema.Strings:
			g.P("b = jsonx.AppendValidString(b, %s[i])", x)
		case schema.Messages:
			g.P("b = append(json%s(append(b, '{'), &%s[i]), '}')", f.Elem.Type.Name(), x)
		case schema.Parts:
			g.P("b = jsonPart(b, &%s[i])", x)
		}
		g.P("}")
		g.P("b = append(b, ']')")
		if cond != "" {
			g.P("}")
		}
	default:
		panic(fmt.Sprintf("codecgen: %s: kind %d has no JSON writer", f.GoName, f.Kind))
	}
}
