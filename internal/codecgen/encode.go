package main

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agwire/agwire/internal/schema"
)

// The encoders. An event's encoder sizes base_event and its fields, then
// writes the envelope arm, base_event and the fields; a message type's
// sizeT validates and sizes, its writeT writes. The size pass checks in
// this order, which sets the error reported first: the type's rule, then
// the fields in number order, a flat container's rule at its first field.
// The write pass follows the same conditions, with the sizes the size pass
// recorded, and cannot fail.

func (g *gen) encoders() {
	g.P("// appendGenerated encodes ev with its generated coder; ok is false for")
	g.P("// a value with none (a nil event, a THINKING_* event, a type defined")
	g.P("// outside package event), which Codec.refusal then reports.")
	g.P("func appendGenerated(g *genc, dst []byte, ev event.Event) (b []byte, ok bool, err error) {")
	g.P("switch p := ev.(type) {")
	for _, in := range g.events {
		name := planOf(in).Type.Name()
		g.P("case *event.%s:", name)
		g.P("if p != nil {")
		g.P("b, err = encode%s(g, dst, p)", name)
		g.P("return b, true, err")
		g.P("}")
	}
	g.P("}")
	g.P("return dst, false, nil")
	g.P("}")
	g.P("")
	for _, in := range g.events {
		g.eventEncoder(in.Arm, in.Enum, planOf(in))
	}
	for _, p := range g.order {
		if !p.Event && g.onWire[p] {
			g.sizer(p)
			g.writer(p)
		}
	}
}

// eventEncoder writes encodeT, the envelope arm around base_event and the
// fields.
func (g *gen) eventEncoder(arm, enum int32, p *schema.Plan) {
	name := p.Type.Name()
	armTag, _ := tag(arm, protowire.BytesType)
	g.P("// encode%s writes the Event envelope's arm %d.", name, arm)
	g.P("func encode%s(g *genc, dst []byte, p *event.%s) ([]byte, error) {", name, name)
	g.P("bn, err := sizeBase(g, &p.Base, %d)", enum)
	g.P("if err != nil {")
	g.P("return dst, err")
	g.P("}")
	g.P("n := 1 + protowire.SizeBytes(bn)")
	g.sizeFields(p, "dst")
	g.P("b := appendLen(append(dst, %s), n)", armTag)
	g.P("b = appendLen(append(b, 0x0a), bn)")
	g.P("b = writeBase(g, b, &p.Base, %d)", enum)
	g.writeFields(p)
	g.P("return b, nil")
	g.P("}")
	g.P("")
}

// sizer writes sizeT (Base's takes the event's EventType enum value, its
// field 1).
func (g *gen) sizer(p *schema.Plan) {
	name := p.Type.Name()
	if isBase(p) {
		g.P("func size%s(g *genc, p *event.%s, enum int32) (int, error) {", name, name)
		g.P("n := 0")
		g.P("if enum != 0 {")
		g.P("n += 1 + protowire.SizeVarint(uint64(enum))")
		g.P("}")
	} else {
		g.P("func size%s(g *genc, p *event.%s) (int, error) {", name, name)
		g.P("n := 0")
	}
	g.sizeFields(p, "0")
	g.P("return n, nil")
	g.P("}")
	g.P("")
}

// writer writes writeT.
func (g *gen) writer(p *schema.Plan) {
	name := p.Type.Name()
	if isBase(p) {
		g.P("func write%s(g *genc, b []byte, p *event.%s, enum int32) []byte {", name, name)
		g.P("if enum != 0 {")
		g.P("b = protowire.AppendVarint(append(b, 0x08), uint64(enum))")
		g.P("}")
	} else {
		g.P("func write%s(g *genc, b []byte, p *event.%s) []byte {", name, name)
	}
	g.writeFields(p)
	g.P("return b")
	g.P("}")
	g.P("")
}

// access returns the Go expression of wire field f of the struct p points
// to: a flat container's fields are read through o, the container.
func access(f *schema.Field) string {
	if f.Via != nil {
		return "o." + f.GoName
	}
	return "p." + f.GoName
}

// wrap returns the Go expression that adds f's path to error err.
func wrap(f *schema.Field, err string) string {
	out := fmt.Sprintf("jsonx.WithKey(%s, %q)", err, f.Name)
	if f.Via != nil {
		out = fmt.Sprintf("jsonx.WithKey(%s, %q)", out, f.Via.Name)
	}
	return out
}

// containers calls field for each wire field of p, opening and closing
// the blocks of flat containers around the fields that live in them (one
// block per run of such fields); first reports a container's first field.
func (g *gen) containers(p *schema.Plan, field func(f *schema.Field, first bool)) {
	var open *schema.Field
	met := map[*schema.Field]bool{}
	for i := range p.Wire {
		f := &p.Wire[i]
		if f.Via != open {
			if open != nil {
				g.P("}")
			}
			if open = f.Via; open != nil {
				g.P("if o := p.%s; o != nil {", open.GoName)
			}
		}
		field(f, f.Via != nil && !met[f.Via])
		met[f.Via] = true
	}
	if open != nil {
		g.P("}")
	}
}

// sizeFields writes the size pass of p's fields, adding to n; a failure
// returns zero and the error. A flat container's rule is checked once, at
// its first field.
func (g *gen) sizeFields(p *schema.Plan, zero string) {
	if p.Check != nil {
		g.P("if err := rule(%s, schema.PointerTo(p)); err != nil {", planVar(p))
		g.P("return %s, err", zero)
		g.P("}")
	}
	g.containers(p, func(f *schema.Field, first bool) {
		if first && f.Via.Elem.Check != nil {
			g.P("if err := rule(%s, schema.PointerTo(o)); err != nil {", planVar(f.Via.Elem))
			g.P("return %s, jsonx.WithKey(err, %q)", zero, f.Via.Name)
			g.P("}")
		}
		g.sizeField(f, zero)
	})
}

// sizeField writes the size pass of one field.
func (g *gen) sizeField(f *schema.Field, zero string) {
	x := access(f)
	_, tn := tag(f.Num, wireType(f.Kind))
	fail := func(cond, err string) {
		g.P("if %s {", cond)
		g.P("return %s, %s", zero, wrap(f, err))
		g.P("}")
	}
	switch f.Kind {
	case schema.String:
		if f.Names != nil {
			fail(fmt.Sprintf("%s(%s) < 0", g.setOf(f).index(), x), g.unknown(f, x))
		}
		g.P("if v := %s; v != \"\" {", x)
		fail("err := g.checkString(v); err != nil", "err")
		g.P("n += %d + protowire.SizeBytes(len(v))", tn)
		g.P("}")
	case schema.Enum:
		g.P("if k := %s(%s); k < 0 {", g.setOf(f).index(), x)
		g.P("return %s, %s", zero, wrap(f, g.unknown(f, x)))
		g.P("} else if k != 0 {")
		g.P("n += %d + protowire.SizeVarint(uint64(k))", tn)
		g.P("}")
	case schema.OptString:
		g.P("if v := %s; v != nil {", x)
		if f.Names != nil {
			fail(fmt.Sprintf("%s(*v) < 0", g.setOf(f).index()), g.unknown(f, "*v"))
		}
		fail("err := g.checkString(*v); err != nil", "err")
		g.P("n += %d + protowire.SizeBytes(len(*v))", tn)
		g.P("}")
	case schema.OptBool:
		g.P("if %s != nil {", x)
		g.P("n += %d", tn+1)
		g.P("}")
	case schema.OptInt64:
		g.P("if v := %s; v != nil {", x)
		fail("err := g.checkInt64(*v); err != nil", "err")
		g.P("n += %d + protowire.SizeVarint(uint64(*v))", tn)
		g.P("}")
	case schema.Value:
		g.P("if v := %s; %s {", x, valuePresent(f))
		g.P("m, err := g.valueBody(v)")
		fail("err != nil", "err")
		g.P("n += %d + m", tn)
		g.P("}")
	case schema.Object:
		if f.Req {
			g.P("{")
			g.P("m, err := g.structBody(requiredObject(%s))", x)
		} else {
			g.P("if v := %s; v != nil {", x)
			g.P("m, err := g.structBody(v)")
		}
		fail("err != nil", "err")
		g.P("n += %d + m", tn)
		g.P("}")
	case schema.Message:
		g.P("{")
		g.P("slot := g.slot()")
		g.P("m, err := size%s(g, &%s)", f.Elem.Type.Name(), x)
		fail("err != nil", "err")
		g.P("n += %d + g.fill(slot, m)", tn)
		g.P("}")
	case schema.OptMessage:
		g.P("if v := %s; v != nil {", x)
		g.P("slot := g.slot()")
		g.P("m, err := size%s(g, v)", f.Elem.Type.Name())
		fail("err != nil", "err")
		g.P("n += %d + g.fill(slot, m)", tn)
		g.P("}")
	case schema.Strings:
		g.P("for i, s := range %s {", x)
		fail("err := g.checkString(s); err != nil", "jsonx.WithIndex(err, i)")
		g.P("n += %d + protowire.SizeBytes(len(s))", tn)
		g.P("}")
	case schema.Messages, schema.Parts:
		elem := f.Elem.Type.Name()
		if f.Kind == schema.Parts {
			elem = "Part"
		}
		g.P("for i := range %s {", x)
		g.P("slot := g.slot()")
		g.P("m, err := size%s(g, &%s[i])", elem, x)
		fail("err != nil", "jsonx.WithIndex(err, i)")
		g.P("n += %d + g.fill(slot, m)", tn)
		g.P("}")
	default:
		panic(fmt.Sprintf("codecgen: %s: kind %d has no coder", f.GoName, f.Kind))
	}
}

// writeFields writes the write pass of p's fields.
func (g *gen) writeFields(p *schema.Plan) {
	g.containers(p, func(f *schema.Field, _ bool) { g.writeField(f) })
}

// writeField writes the write pass of one field: the conditions of the
// size pass, the sizes it recorded, no checks.
func (g *gen) writeField(f *schema.Field) {
	x := access(f)
	t, _ := tag(f.Num, wireType(f.Kind))
	switch f.Kind {
	case schema.String:
		g.P("if v := %s; v != \"\" {", x)
		g.P("b = appendStr(append(b, %s), v)", t)
		g.P("}")
	case schema.Enum:
		g.P("if k := %s(%s); k != 0 {", g.setOf(f).index(), x)
		g.P("b = protowire.AppendVarint(append(b, %s), uint64(k))", t)
		g.P("}")
	case schema.OptString:
		g.P("if v := %s; v != nil {", x)
		g.P("b = appendStr(append(b, %s), *v)", t)
		g.P("}")
	case schema.OptBool:
		g.P("if v := %s; v != nil {", x)
		g.P("b = append(b, %s, byte(protowire.EncodeBool(*v)))", t)
		g.P("}")
	case schema.OptInt64:
		g.P("if v := %s; v != nil {", x)
		g.P("b = protowire.AppendVarint(append(b, %s), uint64(*v))", t)
		g.P("}")
	case schema.Value:
		g.P("if v := %s; %s {", x, valuePresent(f))
		g.P("b = g.dynamic(append(b, %s))", t)
		g.P("}")
	case schema.Object:
		if f.Req {
			g.P("b = g.dynamic(append(b, %s))", t)
			return
		}
		g.P("if %s != nil {", x)
		g.P("b = g.dynamic(append(b, %s))", t)
		g.P("}")
	case schema.Message:
		g.P("b = write%s(g, g.nested(append(b, %s)), &%s)", f.Elem.Type.Name(), t, x)
	case schema.OptMessage:
		g.P("if v := %s; v != nil {", x)
		g.P("b = write%s(g, g.nested(append(b, %s)), v)", f.Elem.Type.Name(), t)
		g.P("}")
	case schema.Strings:
		g.P("for _, s := range %s {", x)
		g.P("b = appendStr(append(b, %s), s)", t)
		g.P("}")
	case schema.Messages, schema.Parts:
		elem := f.Elem.Type.Name()
		if f.Kind == schema.Parts {
			elem = "Part"
		}
		g.P("for i := range %s {", x)
		g.P("b = write%s(g, g.nested(append(b, %s)), &%s[i])", elem, t, x)
		g.P("}")
	}
}
