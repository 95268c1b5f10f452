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
//     alone is UTC; a date-time without an offset is local time.
//   - the same with a space instead of the T, as V8's fallback reads it,
//     and an offset after an optional space;
//   - RFC 1123, as Date.prototype.toUTCString writes it, with or without
//     the weekday and its comma, case-insensitive:
//     "Wed, 01 Jan 2020 00:00:00 GMT"; GMT, UTC, Z or ±HHmm, or no zone
//     (local time).
//
// As in V8, a day past the month's end (up to 31) rolls over into the next
// month; an hour past 24, a minute or second past 59, a comma before the
// fraction, an offset of 24 hours, a leading or trailing space, or a time
// beyond ±8.64e15 ms of the epoch are not dates. Anything not a date is
// "Invalid Date" in JavaScript, and NaN <= now is false: such an interrupt
// never expires. Other legacy spellings V8 also reads ("Jan 1 2020",
// "2020/01/01") are not dates here.

// maxTime is ECMAScript's time range: ±8.64e15 ms around the epoch.
const maxTime = 8.64e15

// parseDate returns the milliseconds since the epoch that Date.parse(s)
// returns, local times read in loc, and false where it returns NaN.
func parseDate(s string, loc *time.Location) (int64, bool) {
	if ms, ok := parseISODate(s, loc); ok {
		return ms, true
	}
	return parseRFC1123(s, loc)
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

// parseISODate reads the ECMAScript date-time string format and V8's
// space-separated variant of it.
func parseISODate(s string, loc *time.Location) (int64, bool) {
	d := &dateScanner{s: s}
	var year int
	switch d.peek() {
	case '+', '-':
		neg := d.peek() == '-'
		d.i++
		y, ok := d.digits(6)
		if !ok || neg && y == 0 {
			return 0, false
		}
		year = y
		if neg {
			year = -y
		}
	default:
		y, ok := d.digits(4)
		if !ok {
			return 0, false
		}
		year = y
	}
	month, day := 1, 1
	if d.accept('-') {
		m, ok := d.digits(2)
		if !ok || m < 1 || m > 12 {
			return 0, false
		}
		month = m
		if d.accept('-') {
			dd, ok := d.digits(2)
			if !ok || dd < 1 || dd > 31 {
				return 0, false
			}
			day = dd
		}
	}
	if d.done() {
		return clip(time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC))
	}
	sep := d.peek()
	if sep != 'T' && sep != 't' && sep != ' ' {
		return 0, false
	}
	if sep == ' ' && d.i != 10 {
		return 0, false // V8's fallback takes the space after a full YYYY-MM-DD only
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
	if sep == ' ' && d.peek() == ' ' && d.i+1 < len(d.s) && (d.s[d.i+1] == '+' || d.s[d.i+1] == '-') {
		d.i++ // V8's fallback allows a space before the offset
	}
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
var dayNames = []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}

// parseRFC1123 reads "[Www[,]] D[D] Mon YYYY HH:mm[:ss] [zone]".
func parseRFC1123(s string, loc *time.Location) (int64, bool) {
	f := strings.Fields(strings.ToLower(s))
	if len(f) > 0 && strings.TrimSpace(s) != s {
		return 0, false
	}
	if len(f) > 0 {
		w := strings.TrimSuffix(f[0], ",")
		for _, n := range dayNames {
			if w == n {
				f = f[1:]
				break
			}
		}
	}
	if len(f) < 4 || len(f) > 5 {
		return 0, false
	}
	day, ok := number(f[0], 1, 2)
	if !ok || day < 1 || day > 31 {
		return 0, false
	}
	month := -1
	for i, n := range monthNames {
		if f[1] == n {
			month = i + 1
		}
	}
	year, ok := number(f[2], 4, 4)
	if month < 0 || !ok {
		return 0, false
	}
	hms := strings.Split(f[3], ":")
	if len(hms) < 2 || len(hms) > 3 {
		return 0, false
	}
	var t [3]int
	for i, p := range hms {
		if t[i], ok = number(p, 2, 2); !ok {
			return 0, false
		}
	}
	if t[0] > 24 || t[1] > 59 || t[2] > 59 || t[0] == 24 && (t[1] != 0 || t[2] != 0) {
		return 0, false
	}
	zone := loc
	if len(f) == 5 {
		switch z := f[4]; {
		case z == "gmt" || z == "utc" || z == "z":
			zone = time.UTC
		case len(z) == 5 && (z[0] == '+' || z[0] == '-'):
			oh, ok1 := number(z[1:3], 2, 2)
			om, ok2 := number(z[3:], 2, 2)
			if !ok1 || !ok2 || oh > 23 || om > 59 {
				return 0, false
			}
			off := oh*3600 + om*60
			if z[0] == '-' {
				off = -off
			}
			zone = time.FixedZone("", off)
		default:
			return 0, false
		}
	}
	return clip(time.Date(year, time.Month(month), day, t[0], t[1], t[2], 0, zone))
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
