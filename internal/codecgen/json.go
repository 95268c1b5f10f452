package main

import (
	"fmt"
	"strings"

	"github.com/agwire/agwire/internal/schema"
)

// The JSON writers, package event's compiled path of AppendJSON (and so of
// Marshal, and of codec's wire→JSON conversion). They lay out what the
// interpreter (event's writer, marshal.go) lays out — the type, the fields
// in declaration order, then the base fields; optional fields left out
// when absent, optional lists when empty (unless their condition holds), a
// required object never left out — and make the interpreter's checks
// (UTF-8, allowed names, the rules, one carrier of a union, dynamic values
// valid JSON) without reporting them: a failed check marks the writer bad,
// its output is dropped, and the interpreter writes the event again and
// reports what is wrong. Content parts go through the interpreter's own
// part writer.

func (g *gen) jsonWriters() {
	g.P("func init() { parseCompiled, writeCompiled = parseEvent, appendEvent }")
	g.P("")
	g.P("// appendEvent writes ev after dst with the compiled writers, trusting")
	g.P("// its strings and dynamic values if trusted; ok is false when they do")
	g.P("// not write it.")
	g.P("func appendEvent(dst []byte, ev Event, trusted bool) ([]byte, bool) {")
	g.P("w := writer{b: dst, trusted: trusted}")
	g.P("if !w.writeEvent(ev) {")
	g.P("return dst, false")
	g.P("}")
	g.P("return w.b, true")
	g.P("}")
	g.P("")
	g.P("// writeEvent writes ev with the compiled writers; it reports false")
	g.P("// when ev is not of a type they write or fails a check, and then the")
	g.P("// interpreter must write it (and report what is wrong).")
	g.P("func (w *writer) writeEvent(ev Event) bool {")
	g.P("switch p := ev.(type) {")
	for _, in := range g.events {
		name := planOf(in).Type.Name()
		g.P("case *%s:", name)
		g.P("return p != nil && w.json%s(p)", name)
	}
	g.P("}")
	g.P("return false")
	g.P("}")
	g.P("")
	for _, p := range g.order {
		g.jsonWriter(p)
	}
}

// jsonWriter writes w.jsonT(p): the fields of p, each key preceded by a
// comma when a member was written before it; a message's writer writes its
// braces too. An event's members follow its type, so each takes a comma;
// a message's first member takes none. Where whether one was written
// depends on the values (the first members are optional), a variable,
// comma, says it.
func (g *gen) jsonWriter(p *schema.Plan) {
	name := p.Type.Name()
	object := !p.Event && !isBase(p)
	if p.Event {
		// An event's writer writes the whole object and reports whether
		// every check passed.
		g.P("func (w *writer) json%s(p *%s) bool {", name, name)
		g.P("w.b = append(w.b, `{\"type\":\"%s\"`...)", g.typeOf(p))
	} else {
		g.P("func (w *writer) json%s(p *%s) {", name, name)
	}
	if p.Check != nil {
		g.P("w.rule(%s, schema.PointerTo(p))", planVar(p))
	}
	// A union's carriers: at most one set.
	var unions []string
	carriers := map[string][]string{}
	for i := range p.Fields {
		if f := &p.Fields[i]; f.Union {
			if carriers[f.Name] == nil {
				unions = append(unions, f.Name)
			}
			carriers[f.Name] = append(carriers[f.Name], "p."+f.GoName+" != nil")
		}
	}
	for _, u := range unions {
		g.P("w.check(atMostOne(%s))", strings.Join(carriers[u], ", "))
	}
	if object {
		g.P("w.b = append(w.b, '{')")
	}
	g.comma = commaNone
	if !object {
		g.comma = commaDue
	} else if len(p.Fields) > 0 && optionalMember(&p.Fields[0]) {
		g.P("comma := false")
		g.comma = commaVar
	}
	for i := range p.Fields {
		g.jsonField(&p.Fields[i])
	}
	switch {
	case object:
		g.P("w.b = append(w.b, '}')")
	case p.Event:
		g.P("w.jsonBase(&p.Base)")
		g.P("w.b = append(w.b, '}')")
		g.P("return !w.bad")
	}
	g.P("}")
	g.P("")
}

// typeOf returns the type name of event plan p.
func (g *gen) typeOf(p *schema.Plan) string {
	for _, in := range g.events {
		if planOf(in) == p {
			return string(in.Type)
		}
	}
	panic("codecgen: no event type for " + p.Type.Name())
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
	if f.Union {
		return true
	}
	switch f.Kind {
	case schema.String, schema.Enum, schema.Message:
		return false
	case schema.Object:
		return !f.Req
	case schema.Strings, schema.Messages, schema.Parts:
		return f.NilAbsent || f.Opt
	}
	return true
}

// jsonField writes the member of field f.
func (g *gen) jsonField(f *schema.Field) {
	x := "p." + f.GoName
	key := func() {
		switch g.comma {
		case commaNone:
			g.P("w.b = append(w.b, `\"%s\":`...)", f.Name)
		case commaDue:
			g.P("w.b = append(w.b, `,\"%s\":`...)", f.Name)
		case commaVar:
			g.P("w.member(comma, `\"%s\":`)", f.Name)
			if optionalMember(f) {
				g.P("comma = true")
			}
		}
		if !optionalMember(f) {
			g.comma = commaDue
		}
	}
	// name writes the test of a restricted string.
	name := func(v string) {
		if f.Names != nil {
			g.P("w.check(%s(%s) >= 0)", g.setOf(f).index(), v)
		}
	}
	// cond opens the block of a member written only when conds hold.
	var conds []string
	if f.Union {
		conds = append(conds, x+" != nil")
	}
	open := func() {
		if len(conds) > 0 {
			g.P("if %s {", strings.Join(conds, " && "))
		}
	}
	end := func() {
		if len(conds) > 0 {
			g.P("}")
		}
	}
	switch f.Kind {
	case schema.String, schema.Enum:
		open()
		key()
		name(x)
		g.P("w.str(%s)", x)
		end()
	case schema.OptString:
		g.P("if v := %s; v != nil {", x)
		key()
		name("*v")
		g.P("w.str(*v)")
		g.P("}")
	case schema.OptBool:
		g.P("if v := %s; v != nil {", x)
		key()
		g.P("w.b = strconv.AppendBool(w.b, *v)")
		g.P("}")
	case schema.OptInt64:
		g.P("if v := %s; v != nil {", x)
		key()
		g.P("w.b = strconv.AppendInt(w.b, *v, 10)")
		g.P("}")
	case schema.Value:
		g.P("if v := %s; %s {", x, valuePresent(f))
		key()
		g.P("w.value(v, 0)")
		g.P("}")
	case schema.Object:
		if f.Req && !f.Union {
			key()
			g.P("w.value(requiredObject(%s), jsonx.Object)", x)
			return
		}
		g.P("if v := %s; v != nil {", x)
		key()
		g.P("w.value(v, jsonx.Object)")
		g.P("}")
	case schema.Message:
		open()
		key()
		g.P("w.json%s(&%s)", f.Elem.Type.Name(), x)
		end()
	case schema.OptMessage:
		g.P("if v := %s; v != nil {", x)
		key()
		g.P("w.json%s(v)", f.Elem.Type.Name())
		g.P("}")
	case schema.Strings:
		if f.Opt {
			conds = append(conds, "len("+x+") > 0")
		}
		open()
		key()
		g.P("w.strs(%s)", x)
		end()
	case schema.Messages, schema.Parts:
		// The interpreter's conditions, in its order.
		switch {
		case f.Opt && f.Always != nil:
			conds = append(conds, fmt.Sprintf("(len(%s) > 0 || p.%s == %q)", x, f.Always.Field.GoName, f.Always.Value))
		case f.Opt:
			conds = append(conds, fmt.Sprintf("len(%s) > 0", x))
		}
		if f.NilAbsent && !f.Union {
			conds = append(conds, x+" != nil")
		}
		open()
		key()
		g.P("w.b = append(w.b, '[')")
		g.P("for i := range %s {", x)
		g.P("if i > 0 {")
		g.P("w.b = append(w.b, ',')")
		g.P("}")
		if f.Kind == schema.Messages {
			g.P("w.json%s(&%s[i])", f.Elem.Type.Name(), x)
		} else {
			g.P("w.part(&%s[i])", x)
		}
		g.P("}")
		g.P("w.b = append(w.b, ']')")
		end()
	default:
		panic(fmt.Sprintf("codecgen: %s: kind %d has no JSON writer", f.GoName, f.Kind))
	}
}
