package main

import (
	"strconv"
	"strings"

	"github.com/agwire/agwire/internal/schema"
)

// The name sets: the names an enum or a restricted string allows, written
// as constants so that the generated code reads no table at run time.

type nameSet struct {
	name  string   // Go suffix: indexRole, knownRole, namesRole
	names []string // the JSON names, an enum's indexed by wire number
	enum  bool     // some enum field uses the set (the decoders need names)
}

// set records the name set of f, if it has one.
func (g *gen) set(p *schema.Plan, f *schema.Field) {
	if f.Names == nil {
		return
	}
	key := strings.Join(f.Names, "\x00")
	if s := g.sets[key]; s != nil {
		s.enum = s.enum || f.Kind == schema.Enum
		return
	}
	name := f.GoName
	for _, s := range g.setsIn {
		if s.name == name {
			name = p.Type.Name() + f.GoName
		}
	}
	s := &nameSet{name: name, names: f.Names, enum: f.Kind == schema.Enum}
	g.sets[key] = s
	g.setsIn = append(g.setsIn, s)
}

// setOf returns the name set of f.
func (g *gen) setOf(f *schema.Field) *nameSet { return g.sets[strings.Join(f.Names, "\x00")] }

func (g *gen) nameSets() {
	for _, s := range g.setsIn {
		g.P("// known%s lists the names of set %s, for error messages.", s.name, s.name)
		g.P("const known%s = %q", s.name, strings.Join(s.names, ", "))
		g.P("")
		g.indexFunc(s)
		if s.enum {
			g.P("// names%s are the names of set %s by wire number.", s.name, s.name)
			g.P("var names%s = [...]string{", s.name)
			for _, n := range s.names {
				g.P("%q,", n)
			}
			g.P("}")
			g.P("")
		}
	}
}

// indexSets writes, for package event, the index function of each set.
func (g *gen) indexSets() {
	for _, s := range g.setsIn {
		g.indexFunc(s)
	}
}

// indexFunc writes the index function of set s.
func (g *gen) indexFunc(s *nameSet) {
	g.P("// index%s returns the index of s in set %s, -1 when it is not in it.", s.name, s.name)
	g.P("func index%s(s string) int {", s.name)
	g.P("switch s {")
	for i, n := range s.names {
		g.P("case %q:", n)
		g.P("return %d", i)
	}
	g.P("}")
	g.P("return -1")
	g.P("}")
	g.P("")
}

// unknown returns the Go expression of the error for v, a string outside
// the set of f.
func (g *gen) unknown(f *schema.Field, v string) string {
	return "unknownName(" + strconv.Quote(f.Name) + ", " + strconv.FormatBool(f.Kind == schema.Enum) + ", " + v + ", known" + g.setOf(f).name + ")"
}
