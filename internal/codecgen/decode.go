package main

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agwire/agwire/internal/schema"
)

// The decoders. A generated decoder reads the canonical shape of a frame —
// one envelope arm, each singular field at most once, only known fields
// with their own wire types — in one pass per message (two for a message
// with repeated fields: count, then fill slices allocated at their final
// size), charging the memory budget as the reference decoder does, and
// applies the same finish (allowed names, what proto3 leaves implicit, the
// type's rule). Anything else — a merged occurrence, an unknown field, any
// error — makes it give up (return false), and the reference decoder
// (decode.go) decodes the frame from the start and reports it. Its result
// is then the reference's, error for error; the cost of giving up is at
// most the fast attempt, linear in the frame.

func (g *gen) decoders() {
	g.P("// decodeGenerated decodes the envelope of d.data with the generated")
	g.P("// decoders; ok is false when the frame is not in their canonical shape")
	g.P("// or is wrong, and the reference decoder must read it.")
	g.P("func decodeGenerated(d *decoder) (ev event.Event, ok bool) {")
	g.P("num, body, ok := envelopeArm(d.data)")
	g.P("if !ok {")
	g.P("return nil, false")
	g.P("}")
	g.P("sl := d.eventSlots()")
	g.P("switch num {")
	for _, in := range g.events {
		p := planOf(in)
		name := p.Type.Name()
		g.P("case %d:", in.Arm)
		g.P("if d.charge(%s) != nil {", sizeof(p.Type))
		g.P("return nil, false")
		g.P("}")
		g.P("if p := fresh(d, &sl.%s); dec%s(d, body, p, %d) {", name, name, in.Enum)
		g.P("return p, true")
		g.P("}")
	}
	g.P("}")
	g.P("return nil, false")
	g.P("}")
	g.P("")
	g.P("// slots holds one event of each type for transient decodes (see fresh).")
	g.P("type slots struct {")
	seen := map[string]bool{}
	for _, in := range g.events {
		if name := planOf(in).Type.Name(); !seen[name] {
			seen[name] = true
			g.P("%s event.%s", name, name)
		}
	}
	g.P("}")
	g.P("")
	for _, p := range g.order {
		if g.onWire[p] {
			g.decoder(p)
		}
	}
}

// decoder writes decT for plan p: an event's takes its EventType enum
// value, which base_event must declare; Base's checks it.
func (g *gen) decoder(p *schema.Plan) {
	if len(p.Wire) > 63 {
		panic("codecgen: more than 63 wire fields in " + p.Type.Name())
	}
	g.decodeHead(p)
	g.decodeFirstPass(p)
	if hasRepeated(p) {
		g.decodeSecondPass(p)
	}
	g.decodeTail(p)
	if compiledFinish(p) {
		g.finishFunc(p)
	}
}

// compiledFinish reports whether p's finish is written as straight-line
// code (finishFunc): every type that needs one but a type with a flat
// container whose element has a rule, which keeps the reference's.
func compiledFinish(p *schema.Plan) bool {
	if !needsFinish(p) {
		return false
	}
	for i := range p.Wire {
		if v := p.Wire[i].Via; v != nil && v.Elem.Check != nil {
			return false
		}
	}
	return true
}

// finishFunc writes finishT, the reference decoder's finish (decode.go) for
// p in straight-line code: a required object the wire left out becomes the
// empty object, an enum the wire left out its first name (the decoder
// reads the others by number from the set), a restricted string is looked
// up in its set (one outside it, rare, goes to the
// reference finish, which states the error), then the type's own hooks.
func (g *gen) finishFunc(p *schema.Plan) {
	g.P("// finish%s settles a decoded event.%s as decoder.finish does.", p.Type.Name(), p.Type.Name())
	g.P("func finish%s(d *decoder, p *event.%s) error {", p.Type.Name(), p.Type.Name())
	for i := range p.Wire {
		f := &p.Wire[i]
		if f.Via != nil {
			continue
		}
		if f.Kind == schema.Object && f.Req {
			g.P("if p.%s == nil {", f.GoName)
			g.P(`p.%s = event.Object("{}")`, f.GoName)
			g.P("}")
		}
		if f.Names == nil {
			continue
		}
		set := g.setOf(f)
		cond := fmt.Sprintf("%s(p.%s) < 0", set.index(), f.GoName)
		switch f.Kind {
		case schema.Enum: // read by number from the set: only absence is left
			g.P(`if p.%s == "" {`, f.GoName)
			g.P("p.%s = %s[0]", f.GoName, set.byNumber())
			g.P("}")
			continue
		case schema.OptString:
			cond = fmt.Sprintf("p.%s != nil && %s(*p.%s) < 0", f.GoName, set.index(), f.GoName)
		}
		g.P("if %s {", cond)
		g.P("return d.finish(%s, schema.PointerTo(p)) // states the error", planVar(p))
		g.P("}")
	}
	if p.FromWire != nil {
		g.P("%s.FromWire(schema.PointerTo(p))", planVar(p))
	}
	if p.Check != nil {
		g.P("return %s.Check(schema.PointerTo(p))", planVar(p))
	} else {
		g.P("return nil")
	}
	g.P("}")
	g.P("")
}

func hasRepeated(p *schema.Plan) bool {
	for i := range p.Wire {
		if repeated(&p.Wire[i]) {
			return true
		}
	}
	return false
}

// hasSingular reports whether p has a singular field, whose repetition
// the decoder tracks.
func hasSingular(p *schema.Plan) bool {
	if isBase(p) {
		return true // field 1, the type
	}
	for i := range p.Wire {
		if !repeated(&p.Wire[i]) {
			return true
		}
	}
	return false
}

// decodeHead writes decT's signature and its variables.
func (g *gen) decodeHead(p *schema.Plan) {
	name := p.Type.Name()
	if p.Event || isBase(p) {
		g.P("func dec%s(d *decoder, b []byte, p *event.%s, enum int32) bool {", name, name)
	} else {
		g.P("func dec%s(d *decoder, b []byte, p *event.%s) bool {", name, name)
	}
	g.P("if d.depth++; d.depth > d.maxDepth {")
	g.P("return false")
	g.P("}")
	if hasRepeated(p) {
		g.P("all := b // for the second pass")
		for i := range p.Wire {
			if repeated(&p.Wire[i]) {
				g.P("count%d := 0", i)
			}
		}
	}
	if p.Event {
		g.P("var base []byte")
		g.P("haveBase := false")
	}
	if isBase(p) {
		g.P("declared := int32(0)")
	}
	if hasSingular(p) {
		g.P("var seen uint64 // bit i+1: wire field i was read")
	}
}

// decodeFirstPass writes the loop over the fields of the message: singular
// fields are read, repeated ones counted.
func (g *gen) decodeFirstPass(p *schema.Plan) {
	g.P("for len(b) > 0 {")
	g.P("num, typ, n := consumeTag(b)")
	g.P("if n < 0 {")
	g.P("return false")
	g.P("}")
	g.P("b = b[n:]")
	g.P("switch num {")
	switch {
	case p.Event:
		g.P("case 1:")
		g.P("if typ != protowire.BytesType || haveBase {")
		g.P("return false")
		g.P("}")
		g.P("v, n := protowire.ConsumeBytes(b)")
		g.P("if n < 0 {")
		g.P("return false")
		g.P("}")
		g.P("b = b[n:]")
		g.P("base, haveBase = v, true")
	case isBase(p):
		g.P("case 1:")
		g.P("if typ != protowire.VarintType || seen&1 != 0 {")
		g.P("return false")
		g.P("}")
		g.P("seen |= 1")
		g.P("v, n := protowire.ConsumeVarint(b)")
		g.P("if n < 0 {")
		g.P("return false")
		g.P("}")
		g.P("b = b[n:]")
		g.P("declared = int32(v)")
	}
	for i := range p.Wire {
		g.decodeField(p, i)
	}
	g.P("default:")
	g.P("return false // a field the reference skips, or a group")
	g.P("}")
	g.P("}")
}

// decodeField writes the first pass's case of wire field i.
func (g *gen) decodeField(p *schema.Plan, i int) {
	f := &p.Wire[i]
	wt := "protowire.BytesType"
	if wireType(f.Kind) == protowire.VarintType {
		wt = "protowire.VarintType"
	}
	g.P("case %d:", f.Num)
	if repeated(f) {
		g.P("if typ != %s {", wt)
		g.P("return false")
		g.P("}")
		g.P("_, n := protowire.ConsumeBytes(b)")
		g.P("if n < 0 {")
		g.P("return false")
		g.P("}")
		g.P("b = b[n:]")
		g.P("count%d++", i)
		return
	}
	bit := fmt.Sprintf("1<<%d", i+1)
	g.P("if typ != %s || seen&(%s) != 0 {", wt, bit)
	g.P("return false")
	g.P("}")
	g.P("seen |= %s", bit)
	if wt == "protowire.VarintType" {
		g.P("v, n := protowire.ConsumeVarint(b)")
	} else {
		g.P("v, n := protowire.ConsumeBytes(b)")
	}
	g.P("if n < 0 {")
	g.P("return false")
	g.P("}")
	g.P("b = b[n:]")
	if f.Via != nil {
		g.container(f)
	}
	x := target(f) + "." + f.GoName
	switch f.Kind {
	case schema.String:
		g.P("s, ok := d.fastStr(v)")
		g.P("if !ok {")
		g.P("return false")
		g.P("}")
		g.P("%s = s", x)
	case schema.OptString:
		g.P("s, ok := d.fastStr(v)")
		g.P("if !ok || d.charge(costString) != nil {")
		g.P("return false")
		g.P("}")
		g.P("%s = d.slabs.String(s)", x)
	case schema.OptBool:
		g.P("if d.charge(costBool) != nil {")
		g.P("return false")
		g.P("}")
		g.P("%s = d.slabs.Bool(v != 0)", x)
	case schema.OptInt64:
		g.P("if !jsonx.SafeInteger(int64(v)) && !d.unsafeInts || d.charge(costInt64) != nil {")
		g.P("return false")
		g.P("}")
		g.P("%s = d.slabs.Int64(int64(v))", x)
	case schema.Enum:
		s := g.setOf(f).byNumber()
		g.P("if v >= uint64(len(%s)) {", s)
		g.P("return false")
		g.P("}")
		g.P("%s = %s[v]", x, s)
	case schema.Value:
		g.P("x, err := d.valueJSON(one(v))")
		g.P("if err != nil {")
		g.P("return false")
		g.P("}")
		if f.Opt {
			g.P("if string(x) == \"null\" {")
			g.P("x = nil // JSON null on an optional value is its absence")
			g.P("}")
		}
		g.P("%s = x", x)
	case schema.Object:
		g.P("x, err := d.structJSON(one(v))")
		g.P("if err != nil {")
		g.P("return false")
		g.P("}")
		g.P("%s = x", x)
	case schema.Message:
		g.P("if !dec%s(d, v, &%s) {", f.Elem.Type.Name(), x)
		g.P("return false")
		g.P("}")
	case schema.OptMessage:
		g.P("if d.charge(%s) != nil {", sizeof(f.Elem.Type))
		g.P("return false")
		g.P("}")
		g.P("x := new(event.%s)", f.Elem.Type.Name())
		g.P("if !dec%s(d, v, x) {", f.Elem.Type.Name())
		g.P("return false")
		g.P("}")
		g.P("%s = x", x)
	}
}

// target is the Go expression of the struct that holds field f.
func target(f *schema.Field) string {
	if f.Via != nil {
		return "p." + f.Via.GoName
	}
	return "p"
}

// container writes the allocation (charged) of the flat container of f
// on first use.
func (g *gen) container(f *schema.Field) {
	g.P("if p.%s == nil {", f.Via.GoName)
	g.P("if d.charge(%s) != nil {", sizeof(f.Via.Elem.Type))
	g.P("return false")
	g.P("}")
	g.P("p.%s = new(event.%s)", f.Via.GoName, f.Via.Elem.Type.Name())
	g.P("}")
}

// decodeSecondPass writes the allocation of the repeated fields, at the
// size the first pass counted, and the pass that fills them.
func (g *gen) decodeSecondPass(p *schema.Plan) {
	var any []string
	for i := range p.Wire {
		if repeated(&p.Wire[i]) {
			any = append(any, fmt.Sprintf("count%d > 0", i))
		}
	}
	g.P("if %s {", strings.Join(any, " || "))
	for i := range p.Wire {
		f := &p.Wire[i]
		if !repeated(f) {
			continue
		}
		elem := "string"
		if f.Kind != schema.Strings {
			elem = "event." + f.Elem.Type.Name()
		}
		g.P("if count%d > 0 {", i)
		if f.Via != nil {
			g.container(f)
		}
		g.P("if d.charge(count%d*%s) != nil {", i, sizeof(f.Type.Elem()))
		g.P("return false")
		g.P("}")
		g.P("%s.%s = make([]%s, count%d)", target(f), f.GoName, elem, i)
		g.P("count%d = 0", i)
		g.P("}")
	}
	g.P("for b = all; len(b) > 0; {")
	g.P("num, typ, n := consumeTag(b)")
	g.P("b = b[n:]")
	g.P("switch num {")
	for i := range p.Wire {
		f := &p.Wire[i]
		if !repeated(f) {
			continue
		}
		x := fmt.Sprintf("%s.%s[count%d]", target(f), f.GoName, i)
		g.P("case %d:", f.Num)
		g.P("v, n := protowire.ConsumeBytes(b)")
		g.P("b = b[n:]")
		switch f.Kind {
		case schema.Strings:
			g.P("s, ok := d.fastStr(v)")
			g.P("if !ok {")
			g.P("return false")
			g.P("}")
			g.P("%s = s", x)
		case schema.Messages:
			g.P("if !dec%s(d, v, &%s) {", f.Elem.Type.Name(), x)
			g.P("return false")
			g.P("}")
		case schema.Parts:
			g.P("if d.contentPart(one(v), planContentPart, &%s) != nil {", x)
			g.P("return false")
			g.P("}")
		}
		g.P("count%d++", i)
	}
	g.P("default:")
	g.P("b = b[protowire.ConsumeFieldValue(num, typ, b):] // read in the first pass")
	g.P("}")
	g.P("}")
	g.P("}")
}

// decodeTail writes what follows the fields: base_event (of an event), the
// declared type (of Base), the finish.
func (g *gen) decodeTail(p *schema.Plan) {
	// base_event's fields belong to the event's level, and what follows
	// reads no nesting: the level is left before base_event is read.
	g.P("d.depth--")
	var conds []string
	if p.Event {
		conds = append(conds, "haveBase && decBase(d, base, &p.Base, enum)")
	}
	if isBase(p) {
		conds = append(conds, "declared == enum")
	}
	switch {
	case compiledFinish(p):
		conds = append(conds, fmt.Sprintf("finish%s(d, p) == nil", p.Type.Name()))
	case needsFinish(p):
		conds = append(conds, fmt.Sprintf("d.finish(%s, schema.PointerTo(p)) == nil", planVar(p)))
	}
	if len(conds) == 0 {
		conds = []string{"true"}
	}
	g.P("return %s", strings.Join(conds, " && "))
	g.P("}")
	g.P("")
}
