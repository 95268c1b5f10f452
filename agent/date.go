package agent

import (
	"math"
	"time"
	"unicode/utf8"
)

// An interrupt's expiresAt is decided as @ag-ui/client 1.0.0 decides it:
// new Date(expiresAt) <= now. parseDate reads the string as V8's Date.parse
// (Node) reads it, which is two parsers in one:
//
//   - the ECMAScript date-time string format: YYYY[-MM[-DD]] (or an extended
//     year ±YYYYYY, never -000000), optionally T (or t) and HH:mm[:ss[.s…]]
//     (a fraction of any length, cut to milliseconds) and Z or ±HH:mm or
//     ±HHmm. A date alone is UTC, a date-time without an offset local time;
//     T24:00 is the next midnight; a day past the month's end (up to 31)
//     rolls over. Once a T is read, anything else is not a date.
//   - where the string stops fitting that format before a T (any other
//     character after the date, a date not spelled with fixed-width
//     fields, leading white space), V8 goes on with its legacy parser,
//     keeping the date fields already read. That parser reads words,
//     numbers and signs: numbers are a date's fields (month/day/year, or
//     year/month/day when the first is not a day of 1..31; with a month
//     name, day and year in either order; missing fields are 1, so "12" is
//     December 1 2001; a year of 0..49 is 20xx and 50..99 19xx), a number
//     followed by ':' starts a time (h:m[:s[.fff]], with am/pm), a sign
//     after a time or after GMT/UTC/UT/Z is an offset (±h, ±hh, ±hmm, ±hhmm,
//     ±h:m), US zone names (EST … PDT) are offsets, words before the first
//     number are ignored (weekdays), one after it makes the string no date,
//     and parenthesised comments are skipped. Without a zone the time is
//     local.
//
// The legacy rules here were found by running V8 (Node) on thousands of
// strings, and are held to it: interop/expires_test.go compares this with
// the client's own isInterruptExpired on a generated table of spellings, in
// three time zones. A time beyond ±8.64e15 ms of the epoch is no date.
// Anything not a date is "Invalid Date" in JavaScript, and NaN <= now is
// false: such an interrupt never expires.

// maxTime is ECMAScript's time range: ±8.64e15 ms around the epoch.
const maxTime = 8.64e15

// parseDate returns the milliseconds since the epoch that Date.parse(s)
// returns, local times read in loc, and false where it returns NaN.
func parseDate(s string, loc *time.Location) (int64, bool) {
	p := &dateParser{lx: lexer{s: s}}
	p.time.hourOffset, p.zone.hour, p.zone.minute = -1, -1, -1
	first, ok := p.ecmaScript()
	if !ok {
		return 0, false
	}
	if first.kind != tkEnd && !p.legacy(first) {
		return 0, false
	}
	return p.result(loc)
}

// tokKind is the kind of a token of a date string.
type tokKind uint8

const (
	tkEnd    tokKind = iota
	tkNumber         // a run of ASCII digits
	tkSymbol         // one of : - + . )
	tkWord           // a run of characters from 'A' up that are not white space
	tkSpace          // a run of white space
	tkOther          // any other character, or a parenthesised comment
)

// keyword is what a word names.
type keyword uint8

const (
	kwNone keyword = iota
	kwMonth
	kwAmPm
	kwZone
	kwT // the ECMAScript format's date/time separator
)

type token struct {
	kind   tokKind
	num    int64 // a number's value (see read)
	digits string
	sym    byte
	key    keyword
	value  int // a month's number, am 0 / pm 12, a zone's hours east of UTC
	zoneZ  bool
}

func (t token) fixed(n int) bool { return t.kind == tkNumber && len(t.digits) == n }
func (t token) is(c byte) bool   { return t.kind == tkSymbol && t.sym == c }
func (t token) sign() int {
	if t.kind == tkSymbol && t.sym == '+' {
		return 1
	}
	if t.kind == tkSymbol && t.sym == '-' {
		return -1
	}
	return 0
}

// lexer splits a date string into tokens, one ahead.
type lexer struct {
	s      string
	i      int
	ahead  token
	peeked bool
}

func (l *lexer) peek() token {
	if !l.peeked {
		l.ahead, l.peeked = l.read(), true
	}
	return l.ahead
}

func (l *lexer) next() token {
	t := l.peek()
	l.peeked = false
	return t
}

// skip consumes the symbol c if it comes next.
func (l *lexer) skip(c byte) bool {
	if l.peek().is(c) {
		l.next()
		return true
	}
	return false
}

// dateSpace reports whether V8's date parser takes r for white space: the
// ASCII controls \t \n \v \f \r, the Unicode space separators and U+FEFF
// (not U+2028, U+2029, U+0085, U+180E or U+200B).
func dateSpace(r rune) bool {
	switch {
	case r == ' ' || r >= '\t' && r <= '\r', r == 0xa0, r == 0x1680, r >= 0x2000 && r <= 0x200a,
		r == 0x202f, r == 0x205f, r == 0x3000, r == 0xfeff:
		return true
	}
	return false
}

func (l *lexer) rune() (rune, int) {
	if l.i >= len(l.s) {
		return -1, 0
	}
	return utf8.DecodeRuneInString(l.s[l.i:])
}

func (l *lexer) read() token {
	r, n := l.rune()
	switch {
	case n == 0:
		return token{kind: tkEnd}
	case r >= '0' && r <= '9':
		start := l.i
		var v int64
		for l.i < len(l.s) && l.s[l.i] >= '0' && l.s[l.i] <= '9' {
			// V8 stops adding digits to a number once it is past
			// 214748354 (its digits still count): a long number keeps
			// its first nine or ten digits' value. Only an offset's hours
			// show it (below, in result).
			if v <= 214748354 {
				v = v*10 + int64(l.s[l.i]-'0')
			}
			l.i++
		}
		return token{kind: tkNumber, num: v, digits: l.s[start:l.i]}
	case dateSpace(r):
		for r, n := l.rune(); n > 0 && dateSpace(r); r, n = l.rune() {
			l.i += n
		}
		return token{kind: tkSpace}
	case r == '(':
		// A comment, nested parentheses counted; an unclosed one runs to
		// the end.
		depth := 0
		for l.i < len(l.s) {
			c := l.s[l.i]
			l.i++
			if c == '(' {
				depth++
			} else if c == ')' {
				if depth--; depth == 0 {
					break
				}
			}
		}
		return token{kind: tkOther}
	case r == ':' || r == '-' || r == '+' || r == '.' || r == ')':
		l.i++
		return token{kind: tkSymbol, sym: byte(r)}
	case r >= 'A':
		var pre [3]byte // the first three characters, ASCII letters lowered
		count := 0
		for r, n := l.rune(); n > 0 && r >= 'A' && !dateSpace(r); r, n = l.rune() {
			if count < 3 {
				if r >= 'A' && r <= 'Z' {
					r += 'a' - 'A'
				}
				if r < utf8.RuneSelf {
					pre[count] = byte(r)
				} else {
					pre[count] = 0xff // matches no keyword
				}
			}
			count++
			l.i += n
		}
		return lookup(pre, count)
	}
	l.i += n
	return token{kind: tkOther}
}

// keywords are the words V8's legacy parser knows, by their first three
// letters (a shorter keyword is padded with zeros).
var keywords = map[[3]byte]token{
	{'j', 'a', 'n'}: {key: kwMonth, value: 1}, {'f', 'e', 'b'}: {key: kwMonth, value: 2},
	{'m', 'a', 'r'}: {key: kwMonth, value: 3}, {'a', 'p', 'r'}: {key: kwMonth, value: 4},
	{'m', 'a', 'y'}: {key: kwMonth, value: 5}, {'j', 'u', 'n'}: {key: kwMonth, value: 6},
	{'j', 'u', 'l'}: {key: kwMonth, value: 7}, {'a', 'u', 'g'}: {key: kwMonth, value: 8},
	{'s', 'e', 'p'}: {key: kwMonth, value: 9}, {'o', 'c', 't'}: {key: kwMonth, value: 10},
	{'n', 'o', 'v'}: {key: kwMonth, value: 11}, {'d', 'e', 'c'}: {key: kwMonth, value: 12},
	{'a', 'm'}: {key: kwAmPm, value: 0}, {'p', 'm'}: {key: kwAmPm, value: 12},
	{'u', 't'}: {key: kwZone}, {'u', 't', 'c'}: {key: kwZone}, {'g', 'm', 't'}: {key: kwZone},
	{'z'}:           {key: kwZone, zoneZ: true},
	{'c', 'd', 't'}: {key: kwZone, value: -5}, {'c', 's', 't'}: {key: kwZone, value: -6},
	{'e', 'd', 't'}: {key: kwZone, value: -4}, {'e', 's', 't'}: {key: kwZone, value: -5},
	{'m', 'd', 't'}: {key: kwZone, value: -6}, {'m', 's', 't'}: {key: kwZone, value: -7},
	{'p', 'd', 't'}: {key: kwZone, value: -7}, {'p', 's', 't'}: {key: kwZone, value: -8},
	{'t'}: {key: kwT},
}

// lookup makes a word token: a keyword when its first three letters name
// one and, but for a month name ("January", "Janx"), it is no longer than
// three.
func lookup(pre [3]byte, count int) token {
	t := token{kind: tkWord}
	if k, ok := keywords[pre]; ok && (count <= 3 || k.key == kwMonth) {
		t.key, t.value, t.zoneZ = k.key, k.value, k.zoneZ && count == 1
	}
	return t
}

// The three parts a date string fills in.
type (
	dayParts struct {
		comp  [3]int64
		n     int
		month int // a named month, 0 when none
		iso   bool
	}
	timeParts struct {
		comp       [4]int64 // hour, minute, second, millisecond
		n          int
		hourOffset int // 0 (am) or 12 (pm); -1 when neither
	}
	zoneParts struct {
		sign         int   // 0 when no zone was given: local time
		hour, minute int64 // -1 when not given
	}
)

func (d *dayParts) add(n int64) bool {
	if d.n == len(d.comp) {
		return false
	}
	d.comp[d.n] = n
	d.n++
	return true
}

func (t *timeParts) add(n int64) bool {
	if t.n == len(t.comp) {
		return false
	}
	t.comp[t.n] = n
	t.n++
	return true
}

// addFinal adds the last field of a time: the ones after it are zero.
func (t *timeParts) addFinal(n int64) bool {
	if !t.add(n) {
		return false
	}
	for t.n < len(t.comp) {
		t.comp[t.n] = 0
		t.n++
	}
	return true
}

// expects reports whether n can be the time's next field after a
// separator: a minute, a second or a millisecond.
func (t *timeParts) expects(n int64) bool {
	switch t.n {
	case 1, 2:
		return n >= 0 && n <= 59
	case 3:
		return n >= 0 && n <= 999
	}
	return false
}

func (z *zoneParts) set(hoursEast int) {
	z.sign, z.hour, z.minute = 1, int64(hoursEast), 0
	if hoursEast < 0 {
		z.sign, z.hour = -1, int64(-hoursEast)
	}
}

func (z *zoneParts) utc() bool { return z.sign != 0 && z.hour == 0 && z.minute == 0 }
func (z *zoneParts) expects(n int64) bool {
	return z.sign != 0 && z.hour >= 0 && z.minute < 0 && n >= 0 && n <= 59
}

type dateParser struct {
	lx   lexer
	day  dayParts
	time timeParts
	zone zoneParts
}

// ecmaScript reads the ECMAScript format. It returns the end token when the
// whole string is in it; ok false when the string is no date at all (it
// broke the format after a T); otherwise the token where it stopped, for
// the legacy parser to go on from, the date fields read so far kept.
func (p *dateParser) ecmaScript() (token, bool) {
	l := &p.lx
	if s := l.peek().sign(); s != 0 {
		signTok := l.next()
		if !l.peek().fixed(6) {
			return signTok, true
		}
		y := l.next().num
		if s < 0 && y == 0 {
			return signTok, true // the year is read and dropped
		}
		p.day.add(int64(s) * y)
	} else if l.peek().fixed(4) {
		p.day.add(l.next().num)
	} else {
		return l.next(), true
	}
	if l.skip('-') {
		if t := l.peek(); !t.fixed(2) || t.num < 1 || t.num > 12 {
			return l.next(), true
		}
		p.day.add(l.next().num)
		if l.skip('-') {
			if t := l.peek(); !t.fixed(2) || t.num < 1 || t.num > 31 {
				return l.next(), true
			}
			p.day.add(l.next().num)
		}
	}
	if t := l.peek(); t.kind != tkWord || t.key != kwT {
		if t.kind != tkEnd {
			return l.next(), true
		}
	} else if !p.ecmaTime() {
		return token{}, false
	}
	if p.zone.sign == 0 && p.time.n == 0 {
		p.zone.set(0) // a date alone is UTC
	}
	p.day.iso = true
	return token{kind: tkEnd}, true
}

// ecmaTime reads T and the time of the ECMAScript format, to the end.
func (p *dateParser) ecmaTime() bool {
	l := &p.lx
	l.next() // T
	two := func(max int64) (int64, bool) {
		t := l.peek()
		if !t.fixed(2) || t.num > max {
			return 0, false
		}
		return l.next().num, true
	}
	hour, ok := two(24)
	if !ok || !l.skip(':') {
		return false
	}
	minute, ok := two(59)
	if !ok || hour == 24 && minute > 0 {
		return false
	}
	p.time.add(hour)
	p.time.add(minute)
	if l.skip(':') {
		sec, ok := two(59)
		if !ok || hour == 24 && sec > 0 {
			return false
		}
		p.time.add(sec)
		if l.skip('.') {
			t := l.peek()
			if t.kind != tkNumber || hour == 24 && t.num > 0 {
				return false
			}
			p.time.add(millis(l.next()))
		}
	}
	switch t := l.peek(); {
	case t.kind == tkWord && t.zoneZ:
		l.next()
		p.zone.set(0)
	case t.sign() != 0:
		p.zone.sign = l.next().sign()
		if l.peek().fixed(4) {
			hm := l.next().num
			if hm/100 > 23 || hm%100 > 59 {
				return false
			}
			p.zone.hour, p.zone.minute = hm/100, hm%100
		} else {
			h, ok := two(23)
			if !ok || !l.skip(':') {
				return false
			}
			m, ok := two(59)
			if !ok {
				return false
			}
			p.zone.hour, p.zone.minute = h, m
		}
	}
	return l.peek().kind == tkEnd
}

// millis reads a fraction of a second: its first three digits.
func millis(t token) int64 {
	d := t.digits + "00"
	return int64(d[0]-'0')*100 + int64(d[1]-'0')*10 + int64(d[2]-'0')
}

// legacy reads the rest of the string, from t, with V8's legacy rules.
func (p *dateParser) legacy(t token) bool {
	l := &p.lx
	readNumber := p.day.n > 0
	for ; t.kind != tkEnd; t = l.next() {
		switch {
		case t.kind == tkNumber:
			readNumber = true
			n := t.num
			switch {
			case l.skip(':'):
				if l.skip(':') { // "n::" is n hours
					if p.time.n != 0 {
						return false
					}
					p.time.add(n)
					p.time.add(0)
				} else {
					if !p.time.add(n) {
						return false
					}
					l.skip('.')
				}
			// The dot is consumed whether or not a time is expecting a
			// field: "1.2.2020" is a date.
			case l.skip('.') && p.time.expects(n):
				p.time.add(n)
				if l.peek().kind != tkNumber {
					return false
				}
				p.time.addFinal(millis(l.next()))
			case p.zone.expects(n):
				p.zone.minute = n
			case p.time.expects(n):
				p.time.addFinal(n)
				// A time's last field ends the string, or is followed by
				// white space, Z or a sign.
				if a := l.peek(); a.kind != tkEnd && a.kind != tkSpace && !(a.kind == tkWord && a.zoneZ) && a.sign() == 0 {
					return false
				}
			default:
				if !p.day.add(n) {
					return false
				}
				l.skip('-')
			}
		case t.kind == tkWord && t.key == kwAmPm && p.time.n != 0:
			p.time.hourOffset = t.value
		case t.kind == tkWord && t.key == kwMonth:
			p.day.month = t.value
			l.skip('-')
		case t.kind == tkWord && t.key == kwZone && readNumber:
			p.zone.set(t.value)
		case t.kind == tkWord:
			// Words before the first number are ignored (a weekday), but
			// one right before a number is not a separator.
			if readNumber || l.peek().kind == tkNumber {
				return false
			}
		case t.sign() != 0 && (p.zone.utc() || p.time.n != 0):
			// An offset, after a time or after GMT/UTC/UT/Z.
			p.zone.sign = t.sign()
			var n int64
			digits := 0
			if l.peek().kind == tkNumber {
				nt := l.next()
				n, digits = nt.num, len(nt.digits)
			}
			readNumber = true
			switch {
			case l.peek().is(':'):
				p.zone.hour, p.zone.minute = n, -1
			case digits == 1 || digits == 2:
				p.zone.hour, p.zone.minute = n, 0
			case digits == 3 || digits == 4:
				p.zone.hour, p.zone.minute = n/100, n%100
			default:
				return false
			}
		case (t.sign() != 0 || t.is(')')) && readNumber:
			return false
		}
		// Anything else (white space, other signs and symbols, comments)
		// is skipped.
	}
	return true
}

// result composes the parts into milliseconds since the epoch.
func (p *dateParser) result(loc *time.Location) (int64, bool) {
	d := &p.day
	if d.n < 1 {
		return 0, false
	}
	for d.n < len(d.comp) {
		d.comp[d.n] = 1 // missing fields are 1
		d.n++
	}
	isDay := func(n int64) bool { return n >= 1 && n <= 31 }
	var year, month, day int64
	switch {
	case d.month == 0 && (d.iso || !isDay(d.comp[0])):
		year, month, day = d.comp[0], d.comp[1], d.comp[2]
	case d.month == 0:
		month, day, year = d.comp[0], d.comp[1], d.comp[2]
	case !isDay(d.comp[0]):
		month, year, day = int64(d.month), d.comp[0], d.comp[1]
	default:
		month, day, year = int64(d.month), d.comp[0], d.comp[1]
	}
	if !d.iso {
		if year >= 0 && year <= 49 {
			year += 2000
		} else if year >= 50 && year <= 99 {
			year += 1900
		}
	}
	if month < 1 || month > 12 || !isDay(day) || year > 300000 || year < -300000 {
		return 0, false
	}

	tp := &p.time
	for tp.n < len(tp.comp) {
		tp.comp[tp.n] = 0
		tp.n++
	}
	hour, minute, sec, ms := tp.comp[0], tp.comp[1], tp.comp[2], tp.comp[3]
	if tp.hourOffset >= 0 {
		if hour < 0 || hour > 12 {
			return 0, false
		}
		hour = hour%12 + int64(tp.hourOffset)
	}
	if hour > 23 || minute > 59 || sec > 59 || ms > 999 {
		if hour != 24 || minute != 0 || sec != 0 || ms != 0 {
			return 0, false // only 24:00 is allowed past the day's last hour
		}
	}

	wall := time.Date(int(year), time.Month(month), int(day), int(hour), int(minute), int(sec), int(ms)*int(time.Millisecond), time.UTC)
	if p.zone.sign == 0 {
		return clip(localToUTC(wall, loc))
	}
	var zone *time.Location
	if z := &p.zone; z.sign != 0 {
		h, m := max(z.hour, 0), max(z.minute, 0)
		// V8 counts the offset's seconds in 32 bits without sign, wrapping
		// (GMT+1193047:00 is 1904 seconds east), and refuses a count past
		// 2^31-1.
		secs := uint32(h)*3600 + uint32(m)*60
		if secs > math.MaxInt32 {
			return 0, false
		}
		zone = time.FixedZone("", z.sign*int(secs))
	}
	t := time.Date(int(year), time.Month(month), int(day), int(hour), int(minute), int(sec), int(ms)*int(time.Millisecond), zone)
	return clip(t)
}

// localToUTC is ECMAScript's UTC(t): the instant of the local time wall
// (its fields read as local time in loc). A local time that occurs twice
// (clocks set back) is the earlier instant; one that does not occur (clocks
// set forward) is read with the offset before the change, so 02:30 on the
// day New York skips from 02:00 to 03:00 is 03:30 EDT, as in V8. (Go's
// time.Date leaves the second case open.)
func localToUTC(wall time.Time, loc *time.Location) time.Time {
	offsetAt := func(t time.Time) time.Duration {
		_, off := t.In(loc).Zone()
		return time.Duration(off) * time.Second
	}
	// The offsets in force around the wall time, read as if it were UTC:
	// any instant it can denote is within a day and a half of that.
	var found time.Time
	for _, probe := range []time.Duration{-36 * time.Hour, 0, 36 * time.Hour} {
		off := offsetAt(wall.Add(probe))
		if at := wall.Add(-off); offsetAt(at) == off && (found.IsZero() || at.Before(found)) {
			found = at
		}
	}
	if !found.IsZero() {
		return found
	}
	return wall.Add(-offsetAt(wall.Add(-36 * time.Hour)))
}

// clip is ECMAScript's TimeClip: a time outside ±8.64e15 ms is NaN.
func clip(t time.Time) (int64, bool) {
	ms := t.UnixMilli()
	if ms > maxTime || ms < -maxTime {
		return 0, false
	}
	return ms, true
}
