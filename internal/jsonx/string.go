package jsonx

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Reading a string is one pass over its bytes: plainEnd finds the next byte
// that is not carried verbatim and validates UTF-8 on the way, 8 bytes at a
// time while they are ASCII. A string without escapes is then the input
// itself (aliased or copied once); one with escapes is unescaped run by run
// straight into the memory the caller gets.

// plainEnd returns the offset of the first byte at or after i that a JSON
// string does not carry verbatim: '"', '\\', a control character, the first
// byte of an invalid (or cut) UTF-8 sequence, or len(d) when there is none.
// The valid UTF-8 sequences before it are checked.
func plainEnd(d []byte, i int) int {
	for {
		for ; i+8 <= len(d); i += 8 {
			x := binary.LittleEndian.Uint64(d[i:])
			// The top bit of a byte is set by x itself when the byte is
			// ≥ 0x80, and otherwise by one of the subtractions when it is
			// '"', '\\' or below 0x20. A borrow only runs upward from such
			// a byte, so the lowest flag is exact.
			q, b := x^quote, x^bslsh
			m := ((q - lsb) | (b - lsb) | (x - space) | x) & msb
			if m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto stop
			}
		}
		for ; i < len(d); i++ {
			if c := d[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
				goto stop
			}
		}
		return i
	stop:
		if d[i] < utf8.RuneSelf {
			return i
		}
		n := seqLen(d[i:])
		if n == 0 {
			return i
		}
		i += n
	}
}

// seqLen returns the length of the valid UTF-8 sequence that starts b (whose
// first byte is ≥ 0x80), or 0 when it is invalid or cut short.
func seqLen(b []byte) int {
	c := b[0]
	switch {
	case c < 0xC2:
		return 0 // a continuation byte, or an overlong lead
	case c < 0xE0:
		if len(b) < 2 || b[1]&0xC0 != 0x80 {
			return 0
		}
		return 2
	case c < 0xF0:
		lo, hi := byte(0x80), byte(0xBF)
		if c == 0xE0 {
			lo = 0xA0 // overlong below
		} else if c == 0xED {
			hi = 0x9F // surrogates above
		}
		if len(b) < 3 || b[1] < lo || b[1] > hi || b[2]&0xC0 != 0x80 {
			return 0
		}
		return 3
	case c < 0xF5:
		lo, hi := byte(0x80), byte(0xBF)
		if c == 0xF0 {
			lo = 0x90 // overlong below
		} else if c == 0xF4 {
			hi = 0x8F // beyond U+10FFFF above
		}
		if len(b) < 4 || b[1] < lo || b[1] > hi || b[2]&0xC0 != 0x80 || b[3]&0xC0 != 0x80 {
			return 0
		}
		return 4
	}
	return 0
}

// plainError reports the byte at s.pos, where plainEnd stopped on neither
// a quote nor a backslash.
func (s *Scanner) plainError() error {
	switch {
	case s.pos >= len(s.data):
		return s.syntax("unterminated string")
	case s.data[s.pos] >= utf8.RuneSelf:
		return s.Errorf("%w: invalid UTF-8 in string", ErrSyntax)
	}
	return s.syntax("control character in string")
}

// Where unescaped strings go.
const (
	toString  = iota // an allocation of the string's own
	toArena          // s.arena
	toScratch        // s.buf
)

func (s *Scanner) readString() (string, error) {
	d := s.data
	start := s.pos + 1
	i := plainEnd(d, start)
	if i < len(d) && d[i] == '"' {
		s.pos = i + 1
		raw := d[start:i]
		switch {
		case len(raw) == 0:
			return "", nil
		case s.AliasStrings:
			return unsafe.String(&raw[0], len(raw)), nil
		case s.Arena:
			out := s.arena[len(s.arena):]
			if cap(out) < len(raw) {
				out = s.grow(out, len(raw), 0, toArena)
			}
			out = append(out, raw...)
			s.arena = s.arena[:len(s.arena)+len(out)]
			return unsafe.String(&out[0], len(out)), nil
		}
		return string(raw), nil
	}
	s.pos = i
	if i >= len(d) || d[i] != '\\' {
		return "", s.plainError()
	}
	var out []byte
	to := toString
	if s.Arena {
		to = toArena
		out = s.arena[len(s.arena):]
	}
	out, err := s.unescape(out, start, to)
	if err != nil {
		return "", err
	}
	if to == toArena {
		// out begins where the arena ends (the arena may be a new one).
		s.arena = s.arena[:len(s.arena)+len(out)]
	}
	return unsafe.String(&out[0], len(out)), nil
}

// UseArena makes b's spare capacity the arena, for a caller that keeps the
// strings it reads (with Arena set and AliasStrings unset): b sized to the
// input holds every string and kept value of it, so reading them costs one
// allocation in all. Call it after Reset, and UseArena(nil) once the input
// is read, so that the next Reset does not reuse what the caller kept.
func (s *Scanner) UseArena(b []byte) { s.arena = b }

// Keep copies b, a value read from the input, into the arena and returns
// the copy, its capacity capped at its length.
func (s *Scanner) Keep(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	out := s.arena[len(s.arena):]
	if cap(out) < len(b) {
		out = s.grow(out, len(b), 0, toArena)
	}
	out = append(out, b...)
	s.arena = s.arena[:len(s.arena)+len(out)]
	return out[:len(out):len(out)]
}

// readStringBytes unescapes the string at s.pos (which is the opening quote)
// into s.buf.
func (s *Scanner) readStringBytes() ([]byte, error) {
	d := s.data
	start := s.pos + 1
	i := plainEnd(d, start)
	if i < len(d) && d[i] == '"' {
		s.pos = i + 1
		s.buf = append(s.buf[:0], d[start:i]...)
		return s.buf, nil
	}
	s.pos = i
	if i >= len(d) || d[i] != '\\' {
		return nil, s.plainError()
	}
	out, err := s.unescape(s.buf[:0], start, toScratch)
	if err != nil {
		return nil, err
	}
	s.buf = out
	return out, nil
}

// unescape appends to out the string whose contents start at start and
// whose first escape is at s.pos, and leaves s.pos after its closing quote.
// It grows out as to says; with toArena, out is the arena's free room and a
// new arena begins with out.
func (s *Scanner) unescape(out []byte, start, to int) ([]byte, error) {
	d := s.data
	run := start
	for {
		// d[run:s.pos] is plain and d[s.pos] is a backslash: room for the
		// run and the longest escape's bytes (4, from a surrogate pair).
		if n := s.pos - run + utf8.UTFMax; cap(out)-len(out) < n {
			out = s.grow(out, n, run, to)
		}
		out = append(out, d[run:s.pos]...)
		if s.pos+1 < len(d) && unescapeByte[d[s.pos+1]] != 0 {
			out = append(out, unescapeByte[d[s.pos+1]]) // one letter: inline
			s.pos += 2
		} else {
			var err error
			if out, err = s.escape(out, true); err != nil {
				return nil, err
			}
		}
		run = s.pos
		s.pos = plainEnd(d, run)
		if s.pos < len(d) && d[s.pos] == '"' {
			if n := s.pos - run; cap(out)-len(out) < n {
				out = s.grow(out, n, run, to)
			}
			out = append(out, d[run:s.pos]...)
			s.pos++
			return out, nil
		}
		if s.pos >= len(d) || d[s.pos] != '\\' {
			return nil, s.plainError()
		}
	}
}

// grow returns out with room for n more bytes; the rest of the string
// starts at run. With toString it is the string's one allocation, as long
// as the escaped text left (which bounds the unescaped) plus the room an
// escape needs: half the bytes allocated and copied of growing twofold. The
// closing quote is found with IndexByte, a fraction of the read's cost on
// text; it costs about what the read does when quotes are escaped every
// few bytes, as in JSON carried in a string. With toArena the new buffer
// is twice the old arena at least and becomes the arena; the strings
// already in the old one keep it alive.
func (s *Scanner) grow(out []byte, n, run, to int) []byte {
	c := max(2*cap(out), 2*(len(out)+n), 64)
	switch to {
	case toString:
		if e := stringEnd(s.data[run:]); e >= 0 {
			c = len(out) + max(e+utf8.UTFMax, n)
		}
	case toArena:
		c = max(c, 2*cap(s.arena))
	}
	b := make([]byte, len(out), c)
	copy(b, out)
	if to == toArena {
		s.arena = b[:0]
	}
	return b
}

// stringEnd returns the offset in b of the quote that closes a string whose
// contents start at b[0], or -1. It only looks for a quote not escaped by a
// backslash; the string is validated separately.
func stringEnd(b []byte) int {
	for off := 0; ; {
		i := bytes.IndexByte(b[off:], '"')
		if i < 0 {
			return -1
		}
		i += off
		// The quote is escaped when an odd number of backslashes precede it.
		bs := 0
		for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
			bs++
		}
		if bs%2 == 0 {
			return i
		}
		off = i + 1
	}
}

// escape reads the escape at s.pos, appending its bytes to out when keep
// is set (the caller has made room for 4).
func (s *Scanner) escape(out []byte, keep bool) ([]byte, error) {
	if s.pos+1 >= len(s.data) {
		s.pos++
		return nil, s.syntax("unterminated escape")
	}
	e := s.data[s.pos+1]
	s.pos += 2
	switch e {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		if keep {
			out = append(out, unescapeByte[e])
		}
	case 'u':
		r, ok := s.hex4()
		if !ok {
			return nil, s.syntax("bad \\u escape")
		}
		if utf16.IsSurrogate(r) {
			var r2 rune = -1
			if s.pos+1 < len(s.data) && s.data[s.pos] == '\\' && s.data[s.pos+1] == 'u' {
				s.pos += 2
				if r2, ok = s.hex4(); !ok {
					return nil, s.syntax("bad \\u escape")
				}
			}
			if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
				return nil, s.Errorf("%w: unpaired UTF-16 surrogate in \\u escape (a protobuf string must be valid UTF-8)", ErrSyntax)
			}
		}
		if keep {
			out = utf8.AppendRune(out, r)
		}
	default:
		s.pos--
		return nil, s.syntax("bad escape")
	}
	return out, nil
}

// unescapeByte maps the letter of a one-letter escape to its byte (and
// every other byte to 0).
var unescapeByte = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

func (s *Scanner) hex4() (rune, bool) {
	if s.pos+4 > len(s.data) {
		return 0, false
	}
	var r rune
	for _, c := range s.data[s.pos : s.pos+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	s.pos += 4
	return r, true
}

// skipString validates the string at s.pos (the opening quote) and moves
// past it.
func (s *Scanner) skipString() error {
	d := s.data
	s.pos = plainEnd(d, s.pos+1)
	for s.pos < len(d) && d[s.pos] == '\\' {
		if s.pos+1 < len(d) && unescapeByte[d[s.pos+1]] != 0 {
			s.pos += 2
		} else if _, err := s.escape(nil, false); err != nil {
			return err
		}
		s.pos = plainEnd(d, s.pos)
	}
	if s.pos < len(d) && d[s.pos] == '"' {
		s.pos++
		return nil
	}
	return s.plainError()
}
