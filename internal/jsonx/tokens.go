package jsonx

// Token-level reading of objects and arrays, for readers that dispatch on
// keys themselves (the compiled parsers of package event) rather than
// through Object's and Array's callbacks. They accept exactly what Object
// and Array accept; errors carry no key or index (the callers that use them
// hand any failure to a reader that reports it properly).

// ObjectStart consumes the '{' that opens an object, entering a level.
func (s *Scanner) ObjectStart() error {
	if s.Peek() != Object {
		return s.syntax("expected object")
	}
	if err := s.enter(); err != nil {
		return err
	}
	s.pos++
	return nil
}

// ObjectNext reads the next member's key and colon, leaving the scanner at
// its value; more is false at the closing '}', which it consumes (leaving
// the level). first says whether no member has been read since
// ObjectStart. The key may share memory with the input even with
// AliasStrings unset: compare it, do not keep it.
func (s *Scanner) ObjectNext(first bool) (key string, more bool, err error) {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return "", false, s.syntax("expected object key or '}'")
	}
	switch c := s.data[s.pos]; {
	case c == '}' && first:
		s.pos++
		s.depth--
		return "", false, nil
	case first:
	case c == ',':
		s.pos++
		s.skipSpace()
	case c == '}':
		s.pos++
		s.depth--
		return "", false, nil
	default:
		return "", false, s.syntax("expected ',' or '}'")
	}
	if s.pos >= len(s.data) || s.data[s.pos] != '"' {
		return "", false, s.syntax("expected object key")
	}
	// The key is compared, not kept: it may alias the input whatever
	// AliasStrings says (copying it would cost an owned parse a copy of
	// every key).
	alias := s.AliasStrings
	s.AliasStrings = true
	key, err = s.readString()
	s.AliasStrings = alias
	if err != nil {
		return "", false, err
	}
	s.skipSpace()
	if s.pos >= len(s.data) || s.data[s.pos] != ':' {
		return "", false, s.syntax("expected ':' after object key")
	}
	s.pos++
	return key, true, nil
}

// ArrayStart consumes the '[' that opens an array, entering a level.
func (s *Scanner) ArrayStart() error {
	if s.Peek() != Array {
		return s.syntax("expected array")
	}
	if err := s.enter(); err != nil {
		return err
	}
	s.pos++
	return nil
}

// ArrayNext leaves the scanner at the next element; more is false at the
// closing ']', which it consumes (leaving the level). first says whether
// no element has been read since ArrayStart.
func (s *Scanner) ArrayNext(first bool) (more bool, err error) {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return false, s.syntax("expected ',' or ']'")
	}
	switch c := s.data[s.pos]; {
	case c == ']' && first:
		s.pos++
		s.depth--
		return false, nil
	case first:
		return true, nil
	case c == ',':
		s.pos++
		return true, nil
	case c == ']':
		s.pos++
		s.depth--
		return false, nil
	}
	return false, s.syntax("expected ',' or ']'")
}
