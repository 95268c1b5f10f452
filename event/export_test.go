package event

// ParseInterpreted reads data with the interpreter alone.
func ParseInterpreted(p Parser, data []byte) (Event, error) {
	ev, err := p.parse(append([]byte(nil), data...), nil)
	return ev, exported(err)
}

// ParseCompiled reads data with the compiled parsers alone.
func ParseCompiled(maxDepth int, data []byte) (Event, bool) {
	return parseOwned(maxDepth, data)
}

// AppendJSONInterpreted writes ev with the interpreter alone.
func AppendJSONInterpreted(dst []byte, ev Event) ([]byte, error) {
	out, err := appendJSONInterpreted(dst, ev)
	return out, exported(err)
}

// AppendJSONCompiled writes ev with the compiled writers alone.
func AppendJSONCompiled(dst []byte, ev Event) ([]byte, bool) { return appendFast(dst, ev) }
