package agent

import (
	"strings"
	"time"
)

// An interrupt's expiresAt is decided as @ag-ui/client 1.0.0 decides it:
// new Date(expiresAt) <= now. parseDate reads the string as ECMAScript's
// Date.parse does in V8 (Node), for the forms a producer writes:
//
//   - the ECMAScript date-time string format: YYYY, YYYY-MM, YYYY-MM-DD
//     (or an extended year ±YYYYYY, never -000000), optionally followed by
//     T (or t) and HH:mm, HH:mm:ss or HH:mm:ss.s… (any number of fraction
//     digits, cut to milliseconds), then Z (or z), ±HH:mm or ±HHmm. T24:00
//     (with zero seconds and fraction) is the next day's midnight. A date
//     alone is UTC; a date-time without an offset is local time. As in V8,
//     a day past the month's end (up to 31) rolls over into the next month;
//     an hour past 24, a minute or second past 59, a comma before the
//     fraction, an offset of 24 hours, or a leading or trailing space make
//     it no date.
//   - an ECMAScript date, then whitespace and a time and zone as V8's
//     fallback reads them ("2020-01-01 00:00:00", "2020-01-01 12:00 PM",
//     "2020-01-01 00:00:00 GMT"): local time without a zone;
//   - the forms of V8's fallback parser with a month name (parseLegacy):
//     RFC 1123 and 2822 as toUTCString writes them, Date.prototype.toString,
//     "December 25, 2019 10:00 PM"; without a zone, local time.
//
// A time beyond ±8.64e15 ms of the epoch is no date. Anything not a date is
// "Invalid Date" in JavaScript, and NaN <= now is false: such an interrupt
// never expires. Dates of numbers only ("2020/01/01"), which V8's fallback
// also reads, are not dates here: no producer writes them for a machine.

// maxTime is ECMAScript's time range: ±8.64e15 ms around the epoch.
const maxTime = 8.64e15

// parseDate returns the milliseconds since the epoch that Date.parse(s)
// returns, local times read in loc, and false where it returns NaN.
func parseDate(s string, loc *time.Location) (int64, bool) {
	if ms, ok := parseISODate(s, loc); ok {
		return ms, true
	}
	// V8's fallback reads an ECMAScript date followed by whitespace and
	// then a time and a zone in its own forms ("2020-01-01 00:00:00 GMT").
	d := &dateScanner{s: s}
	if date, ok := readESDate(d); ok && (d.peek() == ' ' || d.peek() == '\t') {
		if ms, ok := parseLegacy(s[d.i:], loc, &date); ok {
			return ms, true
		}
	}
	return parseLegacy(s, loc, nil)
}

// dateScanner reads a string left to right.
type dateScanner struct {
	s string
	i int
}

func (d *dateScanner) done() bool { return d.i == len(d.s) }

func (d *dateScanner) peek() byte {
	if d.done() {
		return 0
	}
	return d.s[d.i]
}

// digits reads exactly n decimal digits.
func (d *dateScanner) digits(n int) (int, bool) {
	if d.i+n > len(d.s) {
		return 0, false
	}
	v := 0
	for _, c := range []byte(d.s[d.i : d.i+n]) {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	d.i += n
	return v, true
}

func (d *dateScanner) accept(c byte) bool {
	if d.peek() == c {
		d.i++
		return true
	}
	return false
}

// esDate is the date part of the ECMAScript format: YYYY[-MM[-DD]] or
// ±YYYYYY[-MM[-DD]].
type esDate struct{ year, month, day int }

// readESDate reads the date part of the ECMAScript format at the start of
// d.
func readESDate(d *dateScanner) (esDate, bool) {
	var year int
	switch d.peek() {
	case '+', '-':
		neg := d.peek() == '-'
		d.i++
		y, ok := d.digits(6)
		if !ok || neg && y == 0 {
			return esDate{}, false
		}
		year = y
		if neg {
			year = -y
		}
	default:
		y, ok := d.digits(4)
		if !ok {
			return esDate{}, false
		}
		year = y
	}
	month, day := 1, 1
	if d.accept('-') {
		m, ok := d.digits(2)
		if !ok || m < 1 || m > 12 {
			return esDate{}, false
		}
		month = m
		if d.accept('-') {
			dd, ok := d.digits(2)
			if !ok || dd < 1 || dd > 31 {
				return esDate{}, false
			}
			day = dd
		}
	}
	return esDate{year, month, day}, true
}

// parseISODate reads the ECMAScript date-time string format.
func parseISODate(s string, loc *time.Location) (int64, bool) {
	d := &dateScanner{s: s}
	date, ok := readESDate(d)
	if !ok {
		return 0, false
	}
	year, month, day := date.year, date.month, date.day
	if d.done() {
		return clip(time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC))
	}
	sep := d.peek()
	if sep != 'T' && sep != 't' {
		return 0, false
	}
	d.i++
	hour, ok := d.digits(2)
	if !ok || !d.accept(':') {
		return 0, false
	}
	minute, ok := d.digits(2)
	if !ok || hour > 24 || minute > 59 {
		return 0, false
	}
	sec, ms := 0, 0
	if d.accept(':') {
		if sec, ok = d.digits(2); !ok || sec > 59 {
			return 0, false
		}
		if d.accept('.') {
			n := 0
			for !d.done() && d.peek() >= '0' && d.peek() <= '9' {
				if n < 3 {
					ms = ms*10 + int(d.peek()-'0')
				}
				n++
				d.i++
			}
			if n == 0 {
				return 0, false
			}
			for ; n < 3; n++ {
				ms *= 10
			}
		}
	}
	if hour == 24 && (minute != 0 || sec != 0 || ms != 0) {
		return 0, false
	}
	zone := loc
	if !d.done() {
		switch c := d.peek(); c {
		case 'Z', 'z':
			d.i++
			zone = time.UTC
		case '+', '-':
			d.i++
			oh, ok := d.digits(2)
			if !ok {
				return 0, false
			}
			d.accept(':')
			om, ok := d.digits(2)
			if !ok || oh > 23 || om > 59 {
				return 0, false
			}
			off := oh*3600 + om*60
			if c == '-' {
				off = -off
			}
			zone = time.FixedZone("", off)
		default:
			return 0, false
		}
	}
	if !d.done() {
		return 0, false
	}
	return clip(time.Date(year, time.Month(month), day, hour, minute, sec, ms*int(time.Millisecond), zone))
}

var monthNames = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

// usZones are the zone names V8's fallback parser knows, in hours east of
// UTC.
var usZones = map[string]int{"est": -5, "edt": -4, "cst": -6, "cdt": -5, "mst": -7, "mdt": -6, "pst": -8, "pdt": -7}

// dateToken is one token of a legacy date string: a word (lower case), a
// number (its digits), or a punctuation sign.
type dateToken struct {
	word, digits string
	sign         byte
	spaced       bool // whitespace, a comma or a comment came before it
}

// tokenize splits a legacy date string, leaving out whitespace, commas and
// parenthesised comments (an unclosed one runs to the end).
func tokenize(s string) []dateToken {
	var out []dateToken
	spaced := false
	add := func(t dateToken) {
		t.spaced, spaced = spaced, false
		out = append(out, t)
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',':
			i++
			spaced = true
		case c == '(':
			spaced = true
			depth := 0
			for ; i < len(s); i++ {
				if s[i] == '(' {
					depth++
				} else if s[i] == ')' {
					if depth--; depth == 0 {
						i++
						break
					}
				}
			}
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			add(dateToken{digits: s[i:j]})
			i = j
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z') {
				j++
			}
			add(dateToken{word: strings.ToLower(s[i:j])})
			i = j
		default:
			add(dateToken{sign: c})
			i++
		}
	}
	return out
}

// parseLegacy reads the date forms producers write outside the ECMAScript
// format, as V8's fallback parser reads them: RFC 1123 and RFC 2822
// ("Wed, 01 Jan 2020 00:00:00 GMT", toUTCString), Date.prototype.toString
// ("Wed Jan 01 2020 00:00:00 GMT+0000 (Coordinated Universal Time)") and
// "December 25, 2019 10:00 PM": a month by name (its first three letters
// are enough) with a day and a year in either order (a year first when it
// is over 31; a lone number is the year, day 1; a two-digit year is 19xx
// from 50, 20xx below), words before the first number ignored, a time
// H:mm[:ss[.fff]] with am/pm, and a zone: GMT, UTC, UT or Z, optionally
// followed by an offset (±h, ±hhmm, ±hh:mm), an offset alone, or a US zone
// name (EST … PDT). No zone is local time. Dates of numbers only
// ("2020/01/01", "1/2/2020"), which V8 also reads, are not dates here.
//
// With date set (an ECMAScript date read before), s is what follows it: a
// time and a zone, no more date.
func parseLegacy(s string, loc *time.Location, date *esDate) (int64, bool) {
	toks := tokenize(s)
	month, seenNumber := -1, date != nil
	var nums []string
	hour, minute, sec, ms := -1, 0, 0, 0
	ampm := ""
	zone := loc
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.word != "":
			w := t.word
			m := -1
			if len(w) >= 3 {
				for k, n := range monthNames {
					if w[:3] == n {
						m = k + 1
					}
				}
			}
			switch {
			case m > 0:
				if month > 0 || date != nil {
					return 0, false
				}
				month = m
			case w == "am" || w == "pm":
				if hour < 0 || ampm != "" {
					return 0, false
				}
				ampm = w
			case w == "gmt" || w == "utc" || w == "ut" || w == "z":
				zone = time.UTC
				if i+2 < len(toks) && (toks[i+1].sign == '+' || toks[i+1].sign == '-') {
					z, n, ok := offset(toks[i+1:])
					if !ok {
						return 0, false
					}
					zone, i = z, i+n
				}
			case usZones[w] != 0:
				zone = time.FixedZone("", usZones[w]*3600)
			case !seenNumber:
				// A weekday, or any word before the first number.
			default:
				return 0, false
			}
		case t.digits != "":
			seenNumber = true
			if i+1 < len(toks) && toks[i+1].sign == ':' {
				if hour >= 0 {
					return 0, false
				}
				n, ok := clock(toks[i:], &hour, &minute, &sec, &ms)
				if !ok {
					return 0, false
				}
				i += n - 1
				continue
			}
			if date != nil {
				return 0, false
			}
			nums = append(nums, t.digits)
		case t.sign == '+' || t.sign == '-':
			if hour >= 0 && i+1 < len(toks) && toks[i+1].digits != "" {
				// A signed number after the time is an offset.
				z, n, ok := offset(toks[i:])
				if !ok {
					return 0, false
				}
				zone, i = z, i+n-1
				continue
			}
			if t.sign != '-' {
				return 0, false
			}
			// "01-Jan-2020": a dash between the parts of a date.
		default:
			return 0, false
		}
	}
	var y, day int
	switch {
	case date != nil:
		y, month, day = date.year, date.month, date.day
	case month < 0 || len(nums) == 0 || len(nums) > 2:
		return 0, false
	default:
		var ok bool
		if y, day, ok = legacyDate(nums); !ok {
			return 0, false
		}
	}
	if hour < 0 {
		hour = 0
	}
	switch ampm {
	case "am", "pm":
		if hour > 12 {
			return 0, false
		}
		if hour == 12 {
			hour = 0
		}
		if ampm == "pm" {
			hour += 12
		}
	}
	if hour > 24 || minute > 59 || sec > 59 || hour == 24 && (minute != 0 || sec != 0 || ms != 0) {
		return 0, false
	}
	return clip(time.Date(y, time.Month(month), day, hour, minute, sec, ms*int(time.Millisecond), zone))
}

// legacyDate reads the day and year of a legacy date from its one or two
// numbers: a lone number is the year (day 1); of two, the year is the
// first when it is over 31 or has three digits or more, else the second;
// a two-digit year is 19xx from 50, 20xx below.
func legacyDate(nums []string) (year, day int, ok bool) {
	day, ys := 1, nums[0]
	if len(nums) == 2 {
		d := nums[0]
		ys = nums[1]
		if n, _ := number(d, 1, 9); n > 31 || len(d) > 2 {
			d, ys = nums[1], nums[0]
		}
		dv, ok := number(d, 1, 2)
		if !ok || dv < 1 || dv > 31 {
			return 0, 0, false
		}
		day = dv
	}
	y, ok := number(ys, 1, 6)
	if !ok {
		return 0, 0, false
	}
	if len(ys) <= 2 {
		if y < 50 {
			y += 2000
		} else {
			y += 1900
		}
	}
	return y, day, true
}

// clock reads H:mm[:ss[.fff]] from the start of toks and returns how many
// tokens it took.
func clock(toks []dateToken, hour, minute, sec, ms *int) (int, bool) {
	var ok bool
	if *hour, ok = number(toks[0].digits, 1, 2); !ok {
		return 0, false
	}
	if len(toks) < 3 || toks[2].digits == "" {
		return 0, false
	}
	if *minute, ok = number(toks[2].digits, 1, 2); !ok {
		return 0, false
	}
	n := 3
	if len(toks) > 4 && toks[3].sign == ':' && toks[4].digits != "" {
		if *sec, ok = number(toks[4].digits, 1, 2); !ok {
			return 0, false
		}
		n = 5
		if len(toks) > 5 && toks[5].sign == '.' {
			if len(toks) < 7 || toks[6].digits == "" {
				return 0, false
			}
			f := toks[6].digits + "00"
			*ms, _ = number(f[:3], 3, 3)
			n = 7
		}
	}
	return n, true
}

// offset reads ±h, ±hh, ±hmm, ±hhmm or ±hh:mm from the start of toks and
// returns the zone and how many tokens it took.
//
// As in V8, the sign and its number are one token: no space between them.
func offset(toks []dateToken) (*time.Location, int, bool) {
	if len(toks) < 2 || toks[1].digits == "" || toks[1].spaced {
		return nil, 0, false
	}
	d := toks[1].digits
	n, used := 0, 2
	switch {
	case len(toks) > 3 && toks[2].sign == ':' && toks[3].digits != "" && len(d) <= 2:
		h, _ := number(d, 1, 2)
		m, ok := number(toks[3].digits, 2, 2)
		if !ok {
			return nil, 0, false
		}
		n, used = h*60+m, 4
	case len(d) <= 2:
		h, _ := number(d, 1, 2)
		n = h * 60
	case len(d) <= 4:
		v, _ := number(d, 3, 4)
		n = v/100*60 + v%100
	default:
		return nil, 0, false
	}
	if toks[0].sign == '-' {
		n = -n
	}
	return time.FixedZone("", n*60), used, true
}

// number reads a decimal of min to max digits.
func number(s string, min, max int) (int, bool) {
	if len(s) < min || len(s) > max {
		return 0, false
	}
	v := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

// clip is ECMAScript's TimeClip: a time outside ±8.64e15 ms is NaN.
func clip(t time.Time) (int64, bool) {
	ms := t.UnixMilli()
	if ms > maxTime || ms < -maxTime {
		return 0, false
	}
	return ms, true
}
