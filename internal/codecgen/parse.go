package main

import (
	"fmt"

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
	g.P("func parseEvent(s *parsing) (ev Event, ok bool) {")
	g.P("if s.ObjectStart() != nil {")
	g.P("return nil, false")
	g.P("}")
	g.P("if key, more, err := s.ObjectNext(true); err != nil || !more || key != \"type\" || s.Peek() != jsonx.String {")
	g.P("return nil, false")
	g.P("}")
	g.P("t, err := s.StringBytes() // compared, not kept")
	g.P("if err != nil {")
	g.P("return nil, false")
	g.P("}")
	g.P("sl := slotsOf(s)")
	g.P("switch string(t) {")
	for _, in := range g.events {
		name := planOf(in).Type.Name()
		g.P("case %q:", string(in.Type))
		g.P("p := fresh(s, &sl.%s)", name)
		g.P("ev, ok = p, parse%s(s, p)", name)
	}
	g.P("}")
	g.P("return ev, ok && s.End() == nil")
	g.P("}")
	g.P("")
	g.P("// slots holds one event of each type for transient parses (see fresh).")
	g.P("type slots struct {")
	seen := map[string]bool{}
	for _, in := range g.events {
		if name := planOf(in).Type.Name(); !seen[name] {
			seen[name] = true
			g.P("%s %s", name, name)
		}
	}
	g.P("}")
	g.P("")
	g.P("// slotsOf returns the slots of s, made on first use.")
	g.P("func slotsOf(s *parsing) *slots {")
	g.P("sl, _ := s.slots.(*slots)")
	g.P("if sl == nil {")
	g.P("sl = new(slots)")
	g.P("s.slots = sl")
	g.P("}")
	g.P("return sl")
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
	g.P("func parse%s(s *parsing, p *%s) bool {", name, name)
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
	g.members(p, "&seen")
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
	g.P("func parseBase(s *parsing, key string, p *Base, seen *uint64) bool {")
	g.P("switch key {")
	g.members(p, "seen")
	g.P("default:")
	g.P("return false // an unknown member, or \"type\" again")
	g.P("}")
	g.P("return true")
	g.P("}")
	g.P("")
}

// members writes the cases of p's members: each is read once (once tests
// and sets its bit of seen, a union's carriers sharing the first one's),
// then its value by one reader.
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
		once := fmt.Sprintf("once(%s, %d)", seen, firstIndex(p, name))
		g.P("case %q:", name)
		carriers := byName[name]
		if len(carriers) == 1 {
			g.P("if !%s || !%s {", once, g.reader(carriers[0]))
			g.P("return false")
			g.P("}")
			continue
		}
		// A union: the value's kind picks the carrier, whose reader tests
		// that kind again.
		g.P("if !%s {", once)
		g.P("return false")
		g.P("}")
		g.P("var ok bool")
		g.P("switch s.Peek() {")
		for _, f := range carriers {
			kind := map[schema.Kind]string{schema.OptString: "jsonx.String", schema.Parts: "jsonx.Array", schema.Object: "jsonx.Object"}[f.Kind]
			if kind == "" {
				panic("codecgen: union carrier of kind " + fmt.Sprint(f.Kind))
			}
			g.P("case %s:", kind)
			g.P("ok = %s", g.reader(f))
		}
		g.P("}")
		g.P("if !ok {")
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

// reader returns the expression that reads one member's value into field
// f of p, true when it did.
func (g *gen) reader(f *schema.Field) string {
	x := "&p." + f.GoName
	switch f.Kind {
	case schema.String, schema.Enum:
		if f.Names != nil {
			return fmt.Sprintf("(readString(s, %s) && %s(p.%s) >= 0)", x, g.setOf(f).index(), f.GoName)
		}
		return fmt.Sprintf("readString(s, %s)", x)
	case schema.OptString:
		if f.Names != nil {
			return fmt.Sprintf("(readOptString(s, %s) && %s(*p.%s) >= 0)", x, g.setOf(f).index(), f.GoName)
		}
		return fmt.Sprintf("readOptString(s, %s)", x)
	case schema.OptBool:
		return fmt.Sprintf("readBool(s, %s)", x)
	case schema.OptInt64:
		return fmt.Sprintf("readInt64(s, %s)", x)
	case schema.Value:
		return fmt.Sprintf("readValue(s, %s, %t)", x, f.Opt)
	case schema.Object:
		return fmt.Sprintf("readObject(s, %s)", x)
	case schema.Message:
		return fmt.Sprintf("parse%s(s, %s)", f.Elem.Type.Name(), x)
	case schema.OptMessage:
		return fmt.Sprintf("readOpt(s, %s, parse%s)", x, f.Elem.Type.Name())
	case schema.Strings:
		return fmt.Sprintf("readStrings(s, %s)", x)
	case schema.Messages:
		return fmt.Sprintf("readList(s, %s, parse%s)", x, f.Elem.Type.Name())
	case schema.Parts:
		// Each part is read by the interpreter's part reader (where the
		// JSON form of parts is stated).
		return fmt.Sprintf("readList(s, %s, parsePart)", x)
	}
	panic(fmt.Sprintf("codecgen: %s: kind %d has no parser", f.GoName, f.Kind))
}
