package runlog

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Cursor names a position in a run: the run id and the sequence number of
// the last event its holder has received. Seq 0 is the start of the run:
// reading from it yields every event. Inc, when set, is the run's
// incarnation token (see Incarnated): the cursor then reads that run only,
// never a later run of the same id.
type Cursor struct {
	Run string
	Seq uint64
	Inc string
}

// String returns the cursor's text, which ParseCursor reads back: the run
// id with every byte outside A-Z a-z 0-9 - _ . ~ written as %XX (upper-case
// hex), a slash, the incarnation token and a slash when Inc is set, and
// Seq in decimal, such as "run-42/17", "run-42/Qm9vLWJhci1iYXot/17" or
// "r%2F1%20%C3%A9/0". The text holds only printable ASCII, so it fits an
// SSE id field and an HTTP header value (Last-Event-ID) as it is. The
// escaped run id never holds a slash, so both forms read unambiguously.
func (c Cursor) String() string {
	var b strings.Builder
	b.Grow(len(c.Run) + len(c.Inc) + 22)
	escapeRun(&b, c.Run)
	b.WriteByte('/')
	if c.Inc != "" {
		b.WriteString(c.Inc)
		b.WriteByte('/')
	}
	b.WriteString(strconv.FormatUint(c.Seq, 10))
	return b.String()
}

// ParseCursor reads the text String writes, with or without an
// incarnation token (the text of earlier versions has none). Anything else
// is ErrBadCursor, naming the problem: text longer than MaxCursorLen
// (checked first, so a hostile header costs nothing more), no slash, a
// sequence that is not a decimal uint64 without leading zeros, an escape
// that is malformed or not in String's canonical form, a run id that
// CheckRunID refuses, or a token that CheckInc refuses.
func ParseCursor(s string) (Cursor, error) {
	if len(s) > MaxCursorLen {
		return Cursor{}, fmt.Errorf("%w: %d bytes, longer than the %d a cursor can have", ErrBadCursor, len(s), MaxCursorLen)
	}
	i := strings.LastIndexByte(s, '/')
	if i < 0 {
		return Cursor{}, fmt.Errorf("%w: %q has no '/' between run id and sequence", ErrBadCursor, s)
	}
	digits := s[i+1:]
	if digits == "" || (len(digits) > 1 && digits[0] == '0') || strings.TrimLeft(digits, "0123456789") != "" {
		return Cursor{}, fmt.Errorf("%w: sequence %q is not a decimal number without leading zeros", ErrBadCursor, digits)
	}
	seq, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return Cursor{}, fmt.Errorf("%w: sequence %q does not fit 64 bits", ErrBadCursor, digits)
	}
	rest, inc := s[:i], ""
	if j := strings.LastIndexByte(rest, '/'); j >= 0 {
		rest, inc = rest[:j], rest[j+1:]
		if err := CheckInc(inc); err != nil {
			return Cursor{}, err
		}
	}
	run, err := unescapeRun(rest)
	if err != nil {
		return Cursor{}, err
	}
	if err := CheckRunID(run); err != nil {
		return Cursor{}, err
	}
	return Cursor{Run: run, Seq: seq, Inc: inc}, nil
}

// CheckInc reports whether inc is an incarnation token a cursor can carry:
// 1 to MaxIncLen bytes of A-Z a-z 0-9 - _. The error wraps ErrBadCursor.
func CheckInc(inc string) error {
	if inc == "" || len(inc) > MaxIncLen {
		return fmt.Errorf("%w: incarnation token of %d bytes; it has 1 to %d", ErrBadCursor, len(inc), MaxIncLen)
	}
	for i := 0; i < len(inc); i++ {
		if c := inc[i]; !(unreserved(c) && c != '.' && c != '~') {
			return fmt.Errorf("%w: byte %q of incarnation token %q is not one of A-Z a-z 0-9 - _", ErrBadCursor, c, inc)
		}
	}
	return nil
}

// CheckRunID reports whether a Log accepts run as a run id: it must be
// non-empty, valid UTF-8 and at most MaxRunIDLen bytes. The error wraps
// ErrBadCursor.
func CheckRunID(run string) error {
	switch {
	case run == "":
		return fmt.Errorf("%w: empty run id", ErrBadCursor)
	case len(run) > MaxRunIDLen:
		return fmt.Errorf("%w: run id of %d bytes, longer than %d", ErrBadCursor, len(run), MaxRunIDLen)
	case !utf8.ValidString(run):
		return fmt.Errorf("%w: run id is not valid UTF-8", ErrBadCursor)
	}
	return nil
}

const hexDigits = "0123456789ABCDEF"

func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~'
}

func escapeRun(b *strings.Builder, run string) {
	for i := 0; i < len(run); i++ {
		c := run[i]
		if unreserved(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
}

func unescapeRun(s string) (string, error) {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case unreserved(c):
			b.WriteByte(c)
		case c == '%':
			if i+2 >= len(s) {
				return "", fmt.Errorf("%w: escape at byte %d is cut short", ErrBadCursor, i)
			}
			hi, lo := strings.IndexByte(hexDigits, s[i+1]), strings.IndexByte(hexDigits, s[i+2])
			if hi < 0 || lo < 0 {
				return "", fmt.Errorf("%w: escape %q at byte %d is not %%XX with upper-case hex", ErrBadCursor, s[i:i+3], i)
			}
			v := byte(hi<<4 | lo)
			if unreserved(v) {
				return "", fmt.Errorf("%w: escape %q at byte %d stands for %q, which is written as itself", ErrBadCursor, s[i:i+3], i, v)
			}
			b.WriteByte(v)
			i += 2
		default:
			return "", fmt.Errorf("%w: byte %q at %d must be escaped", ErrBadCursor, c, i)
		}
	}
	return b.String(), nil
}
