package main

import (
	"fmt"
	"strings"

	"github.com/agwire/agwire/internal/schema"
)

// The JSON parsers, package event's compiled path of Parse (and so of
// codec's JSON→wire conversion). Like the decoders, they read the canonical
// shape only — "type" the first member, each member known and once, every
// value of its field's JSON kind, no null — and give up on anything else
// (return false): the interpreter (event's reader, parse.go) then reads
// the text from the start and reports it. They use the same scanner, so a
// string, number or dynamic value is accepted or refused by the same code;
// they apply the same required-field test and the same rule (the table's
// Check); content parts go through the interpreter's own part reader. An
// event's parser hands the members it does not know to parseBase, which
// reads Base's.

func (g *gen) parsers() {
	g.P("// parseEvent reads a JSON event with the compiled parsers; ok is false")
	g.P("// when the text is not in their canonical shape or is wrong, and the")
	g.P("// interpreter must read it (and report what is wrong).")
	g.P("func parseEvent(s *jsonx.Scanner) (ev Event, ok bool) {")
	g.P("if s.ObjectStart() != nil {")
	g.P("return nil, false")
	g.P("}")
	g.P("if key, more, err := s.ObjectNext(true); err != nil || !more || key != \"type\" || s.Peek() != jsonx.String {")
	g.P("return nil, false")
	g.P("}")
	g.P("t, err := s.String()")
	g.P("if err != nil {")
	g.P("return nil, false")
	g.P("}")
	g.P("switch t {")
	for _, in := range g.events {
		name := planOf(in).Type.Name()
		g.P("case %q:", string(in.Type))
		g.P("p := new(%s)", name)
		g.P("ev, ok = p, parse%s(s, p)", name)
	}
	g.P("}")
	g.P("return ev, ok && s.End() == nil")
	g.P("}")
	g.P("")
	for _, p := range g.order {
		if isBase(p) {
			g.baseParser(p)
		} else {
			g.parser(p)
		}
	}
}

// parser writes parseT(s, p): the members of an object into p. For an
// event, the object's '{' and "type" were read, and Base's members come
// among its own. Otherwise the object starts at s.
func (g *gen) parser(p *schema.Plan) {
	name := p.Type.Name()
	if len(p.Fields) > 64 {
		panic("codecgen: too many fields in " + name)
	}
	g.P("func parse%s(s *jsonx.Scanner, p *%s) bool {", name, name)
	g.P("var seen uint64 // bit i: member i was read")
	if p.Event {
		g.P("var seenBase uint64")
		g.P("for {")
		g.P("key, more, err := s.ObjectNext(false)")
	} else {
		g.P("if s.ObjectStart() != nil {")
		g.P("return false")
		g.P("}")
		g.P("for first := true; ; first = false {")
		g.P("key, more, err := s.ObjectNext(first)")
	}
	g.P("if err != nil {")
	g.P("return false")
	g.P("}")
	g.P("if !more {")
	g.P("break")
	g.P("}")
	g.P("switch key {")
	g.members(p, "seen")
	g.P("default:")
	if p.Event {
		g.P("if !parseBase(s, key, &p.Base, &seenBase) {")
		g.P("return false")
		g.P("}")
	} else {
		g.P("return false // an unknown member")
	}
	g.P("}")
	g.P("}")
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
		g.P("if seen&%#x != %#x {", req, req)
		g.P("return false")
		g.P("}")
	}
	if p.Check != nil {
		g.P("return %s.Check(schema.PointerTo(p)) == nil", planVar(p))
	} else {
		g.P("return true")
	}
	g.P("}")
	g.P("")
}

// baseParser writes parseBase(s, key, p, seen): one member of an event
// that is Base's, false for any other key (an unknown member, or "type"
// again) or one read before.
func (g *gen) baseParser(p *schema.Plan) {
	g.P("func parseBase(s *jsonx.Scanner, key string, p *Base, seen *uint64) bool {")
	g.P("switch key {")
	g.members(p, "*seen")
	g.P("default:")
	g.P("return false // an unknown member, or \"type\" again")
	g.P("}")
	g.P("return true")
	g.P("}")
	g.P("")
}

// members writes the cases of p's members: a repeated member gives up,
// the others set their bit of seen and read the value.
func (g *gen) members(p *schema.Plan, seen string) {
	var names []string
	byName := map[string][]*schema.Field{}
	for i := range p.Fields {
		f := &p.Fields[i]
		if byName[f.Name] == nil {
			names = append(names, f.Name)
		}
		byName[f.Name] = append(byName[f.Name], f)
	}
	for _, name := range names {
		bit := firstIndex(p, name)
		// Each member is read once: its bit in seen is tested with the
		// first condition the value must meet, then set.
		once := fmt.Sprintf("%s&(1<<%d) != 0", seen, bit)
		mark := fmt.Sprintf("%s |= 1 << %d", seen, bit)
		g.P("case %q:", name)
		carriers := byName[name]
		if len(carriers) == 1 {
			g.member(carriers[0], once, mark, false)
			continue
		}
		// A union: the value's kind picks the carrier.
		g.P("if %s {", once)
		g.P("return false")
		g.P("}")
		g.P("%s", mark)
		g.P("switch s.Peek() {")
		for _, f := range carriers {
			kind := map[schema.Kind]string{schema.OptString: "jsonx.String", schema.Parts: "jsonx.Array", schema.Object: "jsonx.Object"}[f.Kind]
			if kind == "" {
				panic("codecgen: union carrier of kind " + fmt.Sprint(f.Kind))
			}
			g.P("case %s:", kind)
			g.member(f, "", "", true)
		}
		g.P("default:")
		g.P("return false")
		g.P("}")
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

// member writes the reading of one member's value into field f of p.
// Unless they are empty, once is a condition to add to the first test of
// the value, and mark a statement to write after that test. known says
// that the value's kind was tested already (a union's carrier).
func (g *gen) member(f *schema.Field, once, mark string, known bool) {
	x := "p." + f.GoName
	// fail writes the test that gives up when cond holds; cond may begin
	// with an init statement ("k := s.Peek(); ").
	fail := func(cond string) {
		init := ""
		if i := strings.Index(cond, "; "); i >= 0 {
			init, cond = cond[:i+2], cond[i+2:]
		}
		switch {
		case cond == "":
			cond = once
		case once != "":
			cond = once + " || " + cond
		}
		g.P("if %s%s {", init, cond)
		g.P("return false")
		g.P("}")
		if mark != "" {
			g.P("%s", mark)
		}
		once, mark = "", ""
	}
	// kind writes the test of the value's JSON kind, unless it is known.
	kind := func(k string) {
		if !known {
			fail("s.Peek() != jsonx." + k)
		}
	}
	// array writes the loop over an array's elements; each appends to v.
	array := func(elem string, read func()) {
		fail("s.ArrayStart() != nil")
		g.P("v := []%s{}", elem)
		g.P("for first := true; ; first = false {")
		g.P("more, err := s.ArrayNext(first)")
		read()
		g.P("}")
		g.P("%s = v", x)
	}
	switch f.Kind {
	case schema.String, schema.Enum, schema.OptString:
		kind("String")
		g.P("v, err := s.String()")
		if f.Names != nil {
			fail(fmt.Sprintf("err != nil || index%s(v) < 0", g.setOf(f).name))
		} else {
			fail("err != nil")
		}
		if f.Kind == schema.OptString {
			g.P("%s = &v", x)
		} else {
			g.P("%s = v", x)
		}
	case schema.OptBool:
		fail("k := s.Peek(); k != jsonx.True && k != jsonx.False")
		g.P("v, err := s.Bool()")
		fail("err != nil")
		g.P("%s = &v", x)
	case schema.OptInt64:
		kind("Number")
		g.P("text, err := s.Number()")
		fail("err != nil")
		g.P("v, ok := jsonx.ParseInt64(text)")
		fail("!ok")
		g.P("%s = &v", x)
	case schema.Value:
		if once != "" {
			fail("")
		}
		if f.Opt {
			// On an optional value, null is absence.
			g.P("if s.Peek() == jsonx.Null {")
			fail("s.Null() != nil")
			g.P("break")
			g.P("}")
		}
		g.P("raw, err := s.Raw()")
		fail("err != nil")
		g.P("%s = raw", x)
	case schema.Object:
		kind("Object")
		g.P("raw, err := s.Raw()")
		fail("err != nil")
		g.P("%s = raw", x)
	case schema.Message:
		fail(fmt.Sprintf("s.Peek() != jsonx.Object || !parse%s(s, &%s)", f.Elem.Type.Name(), x))
	case schema.OptMessage:
		kind("Object")
		g.P("v := new(%s)", f.Elem.Type.Name())
		fail(fmt.Sprintf("!parse%s(s, v)", f.Elem.Type.Name()))
		g.P("%s = v", x)
	case schema.Strings:
		array("string", func() {
			fail("err != nil || more && s.Peek() != jsonx.String")
			g.P("if !more {")
			g.P("break")
			g.P("}")
			g.P("e, err := s.String()")
			fail("err != nil")
			g.P("v = append(v, e)")
		})
	case schema.Messages:
		elem := f.Elem.Type.Name()
		array(elem, func() {
			fail("err != nil")
			g.P("if !more {")
			g.P("break")
			g.P("}")
			g.P("v = append(v, %s{})", elem)
			fail(fmt.Sprintf("s.Peek() != jsonx.Object || !parse%s(s, &v[len(v)-1])", elem))
		})
	case schema.Parts:
		// Each part is read by the interpreter's part reader (where the
		// JSON form of parts is stated), from the text the scanner takes.
		array(f.Elem.Type.Name(), func() {
			fail("err != nil")
			g.P("if !more {")
			g.P("break")
			g.P("}")
			g.P("v = append(v, %s{})", f.Elem.Type.Name())
			fail("!parsePart(s, &v[len(v)-1])")
		})
	default:
		panic(fmt.Sprintf("codecgen: %s: kind %d has no parser", f.GoName, f.Kind))
	}
}
