package main

import (
	"fmt"
	"reflect"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/internal/schema"
)

// The JSON parsers, for the JSON→wire path. Like the decoders, they read
// the canonical shape only — "type" the first member, each member known
// and once, every value of its field's JSON kind, no null — and give up on
// anything else (return false): the reference reader (package event's
// parser) then reads the text from the start and reports it. They use the
// same scanner, so a string, number or dynamic value is accepted or refused
// by the same code; they apply the same required-field test and the same
// rule (the table's Check); content parts go through package event's own
// part reader.

func (g *gen) parsers(events []event.Info) {
	g.p("// parseJSONGenerated reads a JSON event with the generated parsers;\n")
	g.p("// ok is false when the text is not in their canonical shape or is\n")
	g.p("// wrong, and the reference reader must read it.\n")
	g.p("func parseJSONGenerated(s *jsonx.Scanner) (ev event.Event, ok bool) {\n")
	g.p("\tif s.ObjectStart() != nil {\n\t\treturn nil, false\n\t}\n")
	g.p("\tif key, more, err := s.ObjectNext(true); err != nil || !more || key != \"type\" || s.Peek() != jsonx.String {\n\t\treturn nil, false\n\t}\n")
	g.p("\tt, err := s.String()\n\tif err != nil {\n\t\treturn nil, false\n\t}\n")
	g.p("\tswitch t {\n")
	for _, in := range events {
		p := schema.For(reflect.TypeOf(in.New()).Elem())
		name := p.Type.Name()
		g.p("\tcase %q:\n\t\tp := new(event.%s)\n\t\tif !parse%s(s, p, false) {\n\t\t\treturn nil, false\n\t\t}\n\t\tev = p\n", string(in.Type), name, name)
	}
	g.p("\tdefault:\n\t\treturn nil, false\n\t}\n")
	g.p("\treturn ev, s.End() == nil\n}\n\n")
	for _, p := range g.order {
		if p.Type == reflect.TypeFor[event.Base]() {
			continue // read with its event's members
		}
		g.parser(p)
	}
}

// parser writes parseT(s, p, open): the members of an object into p. For
// an event, open is false: its '{' and "type" were read, and Base's
// members come among its own. Otherwise the object starts at s.
func (g *gen) parser(p *schema.Plan) {
	name := p.Type.Name()
	if len(p.Fields) > 58 {
		panic("codecgen: too many fields in " + name)
	}
	g.p("func parse%s(s *jsonx.Scanner, p *event.%s, open bool) bool {\n", name, name)
	g.p("\tfirst := false\n\tif open {\n\t\tif s.ObjectStart() != nil {\n\t\t\treturn false\n\t\t}\n\t\tfirst = true\n\t}\n")
	g.p("\tvar seen uint64\n")
	g.p("\tfor ; ; first = false {\n")
	g.p("\t\tkey, more, err := s.ObjectNext(first)\n\t\tif err != nil {\n\t\t\treturn false\n\t\t}\n\t\tif !more {\n\t\t\tbreak\n\t\t}\n")
	g.p("\t\tswitch key {\n")
	type member struct {
		f    *schema.Field
		bit  int
		base bool
		plan *schema.Plan
	}
	var members []member
	byName := map[string][]member{}
	for i := range p.Fields {
		m := member{f: &p.Fields[i], bit: firstIndex(p, p.Fields[i].Name), plan: p}
		if _, ok := byName[m.f.Name]; !ok {
			members = append(members, m)
		}
		byName[m.f.Name] = append(byName[m.f.Name], m)
	}
	if p.Event {
		for i := range p.Base.Fields {
			m := member{f: &p.Base.Fields[i], bit: 61 - i, base: true, plan: p.Base}
			members = append(members, m)
			byName[m.f.Name] = []member{m}
		}
	}
	for _, m := range members {
		g.p("\t\tcase %q:\n", m.f.Name)
		g.p("\t\t\tif seen&(1<<%d) != 0 {\n\t\t\t\treturn false\n\t\t\t}\n\t\t\tseen |= 1 << %d\n", m.bit, m.bit)
		target := "p"
		if m.base {
			target = "(&p.Base)"
		}
		carriers := byName[m.f.Name]
		if len(carriers) == 1 {
			g.member(m.plan, carriers[0].f, target, "\t\t\t")
			continue
		}
		// A union: the value's kind picks the carrier.
		g.p("\t\t\tswitch s.Peek() {\n")
		for _, c := range carriers {
			kind := map[schema.Kind]string{schema.OptString: "jsonx.String", schema.Parts: "jsonx.Array", schema.Object: "jsonx.Object"}[c.f.Kind]
			if kind == "" {
				panic("codecgen: union carrier of kind " + fmt.Sprint(c.f.Kind))
			}
			g.p("\t\t\tcase %s:\n", kind)
			g.member(m.plan, c.f, target, "\t\t\t\t")
		}
		g.p("\t\t\tdefault:\n\t\t\t\treturn false\n\t\t\t}\n")
	}
	g.p("\t\tdefault:\n\t\t\treturn false // an unknown member, or \"type\" again\n\t\t}\n\t}\n")
	// The reference reader's required members.
	var req uint64
	for i := range p.Fields {
		f := &p.Fields[i]
		if f.Union {
			continue
		}
		if f.Kind == schema.String || f.Kind == schema.Enum && !f.Opt || f.Kind == schema.Message || f.Req {
			req |= 1 << firstIndex(p, f.Name)
		}
	}
	if req != 0 {
		g.p("\tif seen&%#x != %#x {\n\t\treturn false\n\t}\n", req, req)
	}
	if p.Check != nil {
		g.p("\treturn rule(%s, schema.PointerTo(p)) == nil\n}\n\n", planVar(p))
	} else {
		g.p("\treturn true\n}\n\n")
	}
}

func firstIndex(p *schema.Plan, name string) int {
	for i := range p.Fields {
		if p.Fields[i].Name == name {
			return i
		}
	}
	panic("no field " + name)
}

// member writes the reading of one member's value into field f of the
// struct target points to.
func (g *gen) member(plan *schema.Plan, f *schema.Field, target, in string) {
	acc := target + "." + f.GoName
	p := func(format string, args ...any) { g.p(in+format, args...) }
	fail := func(cond string) { p("if %s {\n%s\treturn false\n%s}\n", cond, in, in) }
	switch f.Kind {
	case schema.String, schema.Enum:
		fail("s.Peek() != jsonx.String")
		p("v, err := s.String()\n")
		if f.Names != nil {
			fail(fmt.Sprintf("err != nil || !%s.Fields[%d].Allows(v)", planVar(plan), fieldPos(plan, f)))
		} else {
			fail("err != nil")
		}
		p("%s = v\n", acc)
	case schema.OptString:
		fail("s.Peek() != jsonx.String")
		p("v, err := s.String()\n")
		if f.Names != nil {
			fail(fmt.Sprintf("err != nil || !%s.Fields[%d].Allows(v)", planVar(plan), fieldPos(plan, f)))
		} else {
			fail("err != nil")
		}
		p("%s = &v\n", acc)
	case schema.OptBool:
		fail("k := s.Peek(); k != jsonx.True && k != jsonx.False")
		p("v, err := s.Bool()\n")
		fail("err != nil")
		p("%s = &v\n", acc)
	case schema.OptInt64:
		fail("s.Peek() != jsonx.Number")
		p("text, err := s.Number()\n")
		fail("err != nil")
		p("v, ok := jsonx.ParseInt64(text)\n")
		fail("!ok")
		p("%s = &v\n", acc)
	case schema.Value:
		if f.Opt {
			// On an optional value, null is absence.
			p("if s.Peek() == jsonx.Null {\n%s\tif s.Null() != nil {\n%s\t\treturn false\n%s\t}\n%s\tbreak\n%s}\n", in, in, in, in, in)
		}
		p("raw, err := s.Raw()\n")
		fail("err != nil")
		p("%s = raw\n", acc)
	case schema.Object:
		fail("s.Peek() != jsonx.Object")
		p("raw, err := s.Raw()\n")
		fail("err != nil")
		p("%s = raw\n", acc)
	case schema.Message:
		fail(fmt.Sprintf("s.Peek() != jsonx.Object || !parse%s(s, &%s, true)", f.Elem.Type.Name(), acc))
	case schema.OptMessage:
		fail("s.Peek() != jsonx.Object")
		p("x := new(event.%s)\n", f.Elem.Type.Name())
		fail(fmt.Sprintf("!parse%s(s, x, true)", f.Elem.Type.Name()))
		p("%s = x\n", acc)
	case schema.Strings:
		fail("s.ArrayStart() != nil")
		p("v := []string{}\n")
		p("for first := true; ; first = false {\n")
		p("\tmore, err := s.ArrayNext(first)\n")
		p("\tif err != nil || more && s.Peek() != jsonx.String {\n%s\t\treturn false\n%s\t}\n", in, in)
		p("\tif !more {\n%s\t\tbreak\n%s\t}\n", in, in)
		p("\te, err := s.String()\n\tif err != nil {\n%s\t\treturn false\n%s\t}\n\tv = append(v, e)\n}\n", in, in)
		p("%s = v\n", acc)
	case schema.Messages:
		fail("s.ArrayStart() != nil")
		p("v := []event.%s{}\n", f.Elem.Type.Name())
		p("for first := true; ; first = false {\n")
		p("\tmore, err := s.ArrayNext(first)\n\tif err != nil {\n%s\t\treturn false\n%s\t}\n", in, in)
		p("\tif !more {\n%s\t\tbreak\n%s\t}\n", in, in)
		p("\tv = append(v, event.%s{})\n", f.Elem.Type.Name())
		p("\tif s.Peek() != jsonx.Object || !parse%s(s, &v[len(v)-1], true) {\n%s\t\treturn false\n%s\t}\n}\n", f.Elem.Type.Name(), in, in)
		p("%s = v\n", acc)
	case schema.Parts:
		// Each part is read by package event's own part reader (where the
		// JSON form of parts is stated), from the text the scanner took.
		fail("s.ArrayStart() != nil")
		p("v := []event.%s{}\n", f.Elem.Type.Name())
		p("for first := true; ; first = false {\n")
		p("\tmore, err := s.ArrayNext(first)\n\tif err != nil {\n%s\t\treturn false\n%s\t}\n", in, in)
		p("\tif !more {\n%s\t\tbreak\n%s\t}\n", in, in)
		p("\traw, err := s.Raw()\n\tif err != nil {\n%s\t\treturn false\n%s\t}\n", in, in)
		p("\tv = append(v, event.%s{})\n", f.Elem.Type.Name())
		p("\tif v[len(v)-1].UnmarshalJSON(raw) != nil {\n%s\t\treturn false\n%s\t}\n}\n", in, in)
		p("%s = v\n", acc)
	default:
		panic(fmt.Sprintf("codecgen: %s: kind %d has no parser", f.GoName, f.Kind))
	}
}

func fieldPos(p *schema.Plan, f *schema.Field) int {
	for i := range p.Fields {
		if &p.Fields[i] == f {
			return i
		}
	}
	panic("field not in plan")
}
