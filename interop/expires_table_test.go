package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// The zones TestExpiresAtTable decides its table in: one west of UTC with
// daylight saving, one east with a half hour, one with a half hour and
// daylight saving in December.
var expiryZones = []string{"America/New_York", "Asia/Kolkata", "Australia/Adelaide"}

// expirySpelling is one expiresAt of the table and the shape it spells.
type expirySpelling struct{ shape, s string }

// expiryTable generates the spellings TestExpiresAtTable decides: every
// shape V8's Date.parse reads besides the ECMAScript format (slashes,
// unpadded fields, dots, leading white space, ordinal dates, bare numbers,
// month names, zones, am/pm, comments and words), and the ECMAScript format
// itself, each written for instants near now in loc's local time (a
// second, a minute, an hour, a day before and after), so that reading a
// local time as UTC, or the other way round, changes the decision.
func expiryTable(now time.Time, loc *time.Location) []expirySpelling {
	deltas := []time.Duration{0, -time.Second, time.Second, -10 * time.Second, -time.Minute, time.Minute, -59 * time.Minute,
		61 * time.Minute, 2 * time.Hour, -5 * time.Hour, 5 * time.Hour, -12 * time.Hour, -25 * time.Hour, 25 * time.Hour,
		7 * 24 * time.Hour, -40 * 24 * time.Hour, 400 * 24 * time.Hour, -400 * 24 * time.Hour}
	months := []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	var out []expirySpelling
	seen := map[string]bool{}
	add := func(shape, s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, expirySpelling{shape, s})
		}
	}
	for di, d := range deltas {
		b := now.Add(d).In(loc)
		u := now.Add(d).UTC()
		Y, M, D := b.Date()
		h, m, s := b.Clock()
		ms := b.Nanosecond() / 1e6
		mon, full := months[M-1][:3], months[M-1]
		wd := b.Weekday().String()[:3]
		h12, ap := h%12, "AM"
		if h12 == 0 {
			h12 = 12
		}
		if h >= 12 {
			ap = "PM"
		}
		yy := Y % 100
		uY, uM, uD := u.Date()
		uh, um, us := u.Clock()
		// A fixed offset, written as V8's legacy forms write one.
		off := []int{-5 * 60, 5*60 + 30, 0, 9 * 60, -(3*60 + 30)}[di%5]
		o := now.Add(d).In(time.FixedZone("", off*60))
		oY, oM, oD := o.Date()
		oh, om, os := o.Clock()
		sign, ao := "+", off
		if off < 0 {
			sign, ao = "-", -off
		}
		f := fmt.Sprintf
		// The ECMAScript format: local without an offset, UTC with Z.
		add("iso", f("%04d-%02d-%02dT%02d:%02d:%02d", Y, M, D, h, m, s))
		add("iso", f("%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", uY, uM, uD, uh, um, us, ms))
		add("iso", f("%04d-%02d-%02dT%02d:%02d%s%02d:%02d", oY, oM, oD, oh, om, sign, ao/60, ao%60))
		add("iso", f("%04d-%02d-%02d", Y, M, D))
		// An ECMAScript date, then a legacy time.
		add("iso+legacy", f("%04d-%02d-%02d %02d:%02d:%02d", Y, M, D, h, m, s))
		add("iso+legacy", f("%04d-%02d-%02d %02d:%02d %s", Y, M, D, h12, m, ap))
		add("iso+legacy", f("%04d-%02d-%02d %02d:%02d:%02d GMT%s%02d%02d", oY, oM, oD, oh, om, os, sign, ao/60, ao%60))
		add("iso+legacy", f("%04d-%02d-%02d %02d:%02d:%02d Z", uY, uM, uD, uh, um, us))
		// Slashes.
		add("slashes", f("%d/%d/%d %d:%02d:%02d", M, D, Y, h, m, s))
		add("slashes", f("%02d/%02d/%04d %02d:%02d", M, D, Y, h, m))
		add("slashes", f("%04d/%02d/%02d %02d:%02d:%02d", Y, M, D, h, m, s))
		add("slashes", f("%d/%d/%02d %d:%02d %s", M, D, yy, h12, m, strings.ToLower(ap)))
		add("slashes", f("%d/%d/%d", M, D, Y))
		add("slashes", f("%d/%d/%d %d:%02d:%02d UTC", uM, uD, uY, uh, um, us))
		add("slashes", f("%d/%d/%d %d:%02d %s%d:%02d", oM, oD, oY, oh, om, sign, ao/60, ao%60))
		add("slashes", f("%d/%d %d:%02d", M, D, h, m)) // no year: 2001
		add("slashes", f("%d/%d/%d %d:%02d", D, M, Y, h, m))
		// Unpadded fields.
		add("unpadded", f("%d-%d-%d %d:%d:%d", Y, M, D, h, m, s))
		add("unpadded", f("%04d-%d-%d", Y, M, D))
		add("unpadded", f("%04d-%02d-%d %d:%d", Y, M, D, h, m))
		add("unpadded", f("%d:%d:%d %d-%d-%d", h, m, s, M, D, Y))
		add("unpadded", f("%d-%d-%d %d:%d", M, D, Y, h, m))
		add("unpadded", f("%04d-%d-%02dT%02d:%02d", Y, M, D, h, m))
		// Dots.
		add("dots", f("%d.%d.%d %d:%02d", M, D, Y, h, m))
		add("dots", f("%04d.%02d.%02d %02d:%02d:%02d.%03d", Y, M, D, h, m, s, ms))
		add("dots", f("%d.%d.%d", M, D, Y))
		add("dots", f("%02d.%02d.%02d %02d:%02d", M, D, yy, h, m))
		add("dots", f("%04d-%02d-%02d %02d:%02d:%02d.%d", Y, M, D, h, m, s, ms))
		add("dots", f("%04d/%02d/%02d %02d:%02d.%02d", Y, M, D, h, m, s))
		// Leading (and trailing) white space.
		sp := []string{" ", "  ", "\t", "\n", "\u00a0", "\ufeff", "\u3000", "\u2003", "\u2028", "\u0085"}[di%10]
		add("whitespace", f("%s%04d-%02d-%02d %02d:%02d", sp, Y, M, D, h, m))
		add("whitespace", f("%s%04d-%02d-%02dT%02d:%02d:%02dZ", sp, uY, uM, uD, uh, um, us))
		add("whitespace", f("%s%04d-%02d-%02d", sp, Y, M, D))
		add("whitespace", f("%04d-%02d-%02d%s", Y, M, D, sp))
		add("whitespace", f("%s%s %d %d %d:%02d%s", sp, mon, D, Y, h, m, sp))
		// Ordinal dates: YYYY-DDD, which V8 reads as a year and a month.
		yd := b.YearDay()
		add("ordinal", f("%04d-%03d", Y, yd))
		add("ordinal", f("%04d-%03d %02d:%02d", Y, yd, h, m))
		add("ordinal", f("%04d-%03d", Y, M))
		add("ordinal", f("%04d-%03d %02d:%02d:%02d", Y, M, h, m, s))
		add("ordinal", f("%04d%03d", Y, yd))
		// Bare numbers.
		add("numbers", f("%d", Y))
		add("numbers", f("%d", M))
		add("numbers", f("%d", D))
		add("numbers", f("%d", yy))
		add("numbers", f("%d", h+100))
		add("numbers", f("%d %d", M, Y))
		add("numbers", f("%d %d %d", M, D, Y))
		add("numbers", f("%d %d %d %d:%02d", Y, M, D, h, m))
		add("numbers", f("%d", now.Add(d).UnixMilli()))
		add("numbers", f("%d%02d%02d", Y, M, D))
		// Month names.
		add("months", f("%s %d %d %d:%02d:%02d", mon, D, Y, h, m, s))
		add("months", f("%d %s %d %02d:%02d", D, full, Y, h, m))
		add("months", f("%s %d, %d %d:%02d %s", full, D, Y, h12, m, ap))
		add("months", f("%s, %02d %s %d %02d:%02d:%02d GMT", u.Weekday().String()[:3], uD, months[uM-1][:3], uY, uh, um, us))
		add("months", f("%s %s %02d %d %02d:%02d:%02d GMT%s%02d%02d (Some Time)", wd, mon, D, Y, h, m, s, sign, ao/60, ao%60))
		add("months", f("%02d-%s-%d %02d:%02d", D, mon, Y, h, m))
		add("months", f("%s-%02d-%d", mon, D, Y))
		add("months", f("%d %s %d", Y, mon, D))
		add("months", f("%s %d", full, D)) // no year: 2001
		add("months", f("%s %d %02d %d:%02d", mon, D, yy, h, m))
		add("months", f("%s %d %d %d:%02d:%02d %s", strings.ToUpper(mon), D, Y, h12, m, s, strings.ToLower(ap)))
		add("months", f("%s %d %d %d:%02d", full[:4]+"xyz", D, Y, h, m))
		// Zones: names, GMT offsets, bare offsets.
		z := []struct {
			name  string
			hours int
		}{{"EST", -5}, {"EDT", -4}, {"CST", -6}, {"CDT", -5}, {"MST", -7}, {"MDT", -6}, {"PST", -8}, {"PDT", -7}, {"UT", 0}, {"UTC", 0}, {"GMT", 0}, {"Z", 0}}[di%12]
		zt := now.Add(d).In(time.FixedZone("", z.hours*3600))
		zY, zM, zD := zt.Date()
		zh, zm, zs := zt.Clock()
		add("zones", f("%s %d %d %d:%02d:%02d %s", months[zM-1][:3], zD, zY, zh, zm, zs, z.name))
		add("zones", f("%d/%d/%d %d:%02d %s", zM, zD, zY, zh, zm, strings.ToLower(z.name)))
		add("zones", f("%s %d %d %d:%02d:%02d UTC%s%d", mon, oD, oY, oh, om, os, sign, ao/60*100+ao%60))
		add("zones", f("%s %d %d %d:%02d %s%02d:%02d", mon, oD, oY, oh, om, sign, ao/60, ao%60))
		add("zones", f("%s %d %d %d:%02d GMT%s%d", mon, oD, oY, oh, om, sign, ao/60))
		add("zones", f("%s %d %d %d:%02d:%02dZ", months[uM-1][:3], uD, uY, uh, um, us))
		add("zones", f("%d-%d-%d %d:%02d %s%03d", oM, oD, oY, oh, om, sign, ao/60*100+ao%60))
		// am/pm, comments, words, separators.
		add("words", f("%s, %s %d, %d, %d:%02d:%02d %s", wd, full, D, Y, h12, m, s, ap))
		add("words", f("(due) %d/%d/%d %d:%02d (local)", M, D, Y, h, m))
		add("words", f("%s %d %d at %d:%02d", mon, D, Y, h, m))
		add("words", f("%s %d %d %d:%02d!", mon, D, Y, h, m))
		add("words", f("due %s %d %d %d:%02d", mon, D, Y, h, m))
		add("words", f("due%d/%d/%d", M, D, Y))
		add("words", f("%d/%d/%d %d:%02d (unclosed", M, D, Y, h, m))
		add("words", f("%d/%d/%d, %d:%02d %s", M, D, Y, h12, m, ap))
		add("words", f("%d/%d/%d %d:%02d %s", M, D, Y, h, m, ap))
		add("words", f("%d/%d/%d %d::", M, D, Y, h))
		add("words", f("%d/%d/%d %d:%02d:%02d:%d", M, D, Y, h, m, s, ms))
	}
	// Fixed spellings beyond the instants: limits and refusals.
	for _, s := range []string{"", " ", "0", "1", "12", "13", "31", "32", "49", "50", "99", "100", "275760", "275761",
		"2026-001", "2026-012", "2026-013", "2026-366", "+2026/1/1", "-1/1/2026", "1/1/-5", "2026/13/1", "2026/1/32",
		"2/30/2026", "Feb 30 2026", "Jan", "10:00", "T10:00", "24:00 1/1/2026", "1/1/2026 24:00", "1/1/2026 24:01",
		"1/1/2026 10:00 GMT+99", "1/1/2026 10:00 GMT+596523:00", "1/1/2026 10:00 GMT+596524:00", "1/1/2026 10:00 +12345",
		"1/1/2026 10:00 +", "1/1/2026 +0100", "1/1/2026 10:00 GMT + 0100", "1/1/2026)", "January 1st 2026", "é 1/1/2026",
		"1/1/2026 é", "_ 1/1/2026", "x1/1/2026", "1/1/2026 10:00 a", "1/1/2026 10:00 A.M.", "1/1/2026 13:00 pm",
		"1/1/2026 0:00 pm", "1/1/2026 pm", "Jan Feb 1 2026", "GMT Jan 1 2026", "1/1/2026 10:00:00Z+01", "1.2.2026",
		"2026.1.2", "1 2 2026", "1/1/0", "1/1/49", "1/1/50", "1/1/0100", "+002026-01-01", "+02026-01-01",
		"-000000-01-01T00:00:00Z", "2026-01-01T24:00", "2026-01-01T24:00:00.001Z", "2026-01-01T10:00:00.Z",
		"2026-01-01 10:00:00.", "2026-01-01T10:00:00,5Z", "2026-1-1-1", "1/1/2026/5", "20260101", "2026-01-01T10",
		// Offsets past 2^31 seconds wrap, as V8 counts them.
		"1/1/2026 10:00 GMT+1193047:00", "1/1/2026 10:00 GMT+99999999999:00",
		// Local times around the changes of daylight saving time (New York,
		// Adelaide): skipped ones read with the offset before, repeated ones
		// as the earlier instant.
		"2027-03-14 02:30", "2027-03-14T02:30:00", "2026-11-01 01:30", "2026-11-01T01:59:59",
		"2026-10-04 02:30", "2027-04-04 02:30", "2027-04-04T02:59:59", "1883-11-18 12:03:58"} {
		add("limits", s)
	}
	return out
}

// TestExpiresAtTable decides a generated table of expiresAt spellings (see
// expiryTable) as @ag-ui/client 1.0.0 does, in node, and as agwire's
// Thread does, in three time zones, at now: the decision at now, and for
// each date the exact millisecond it expires at (expired at Date.parse's
// value, not one millisecond before); a string that is not a date to the
// client never expires for agwire either.
func TestExpiresAtTable(t *testing.T) {
	nodePath, dir := requireNode(t, "expires.mjs")
	now := time.Now().Truncate(time.Millisecond)
	saved := time.Local
	defer func() { time.Local = saved }()
	for _, zone := range expiryZones {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatalf("no zone database for %s: %v", zone, err)
		}
		table := expiryTable(now, loc)
		cases := make([]string, len(table))
		for i, c := range table {
			cases[i] = c.s
		}
		in, _ := json.Marshal(map[string]any{"now": now.UnixMilli(), "cases": cases})
		ctx, cancel := context.WithTimeout(context.Background(), nodeScriptTimeout)
		cmd := exec.CommandContext(ctx, nodePath, "expires.mjs")
		cmd.Dir, cmd.Env = dir, append(nodeEnv(), "TZ="+zone)
		cmd.Stdin = strings.NewReader(string(in))
		out, err := cmd.Output()
		cancel()
		if err != nil {
			t.Fatalf("TZ=%s node expires.mjs: %v", zone, err)
		}
		var js []struct {
			MS      *int64
			Expired bool
		}
		if err := json.Unmarshal(out, &js); err != nil || len(js) != len(table) {
			t.Fatalf("node answered %d of %d (%v)", len(js), len(table), err)
		}
		time.Local = loc
		type count struct{ dates, notDates, expired int }
		shapes := map[string]*count{}
		for i, c := range table {
			k := shapes[c.shape]
			if k == nil {
				k = &count{}
				shapes[c.shape] = k
			}
			got := agwireExpired(t, c.s, now)
			if got != js[i].Expired {
				t.Errorf("TZ=%s now=%d: expiresAt %q (%s): agwire expired=%v, @ag-ui/client expired=%v (Date.parse: %v)",
					zone, now.UnixMilli(), c.s, c.shape, got, js[i].Expired, js[i].MS)
				continue
			}
			if js[i].Expired {
				k.expired++
			}
			if js[i].MS == nil {
				k.notDates++
				if agwireExpired(t, c.s, time.UnixMilli(8.64e15)) {
					t.Errorf("TZ=%s: expiresAt %q (%s) is not a date to the client, but agwire expires it", zone, c.s, c.shape)
				}
				continue
			}
			k.dates++
			at := time.UnixMilli(*js[i].MS)
			if !agwireExpired(t, c.s, at) || agwireExpired(t, c.s, at.Add(-time.Millisecond)) {
				t.Errorf("TZ=%s: expiresAt %q (%s): agwire does not expire it exactly at %d ms, where the client does", zone, c.s, c.shape, *js[i].MS)
			}
		}
		var names []string
		for n := range shapes {
			names = append(names, n)
		}
		sort.Strings(names)
		var b strings.Builder
		total := count{}
		for _, n := range names {
			k := shapes[n]
			fmt.Fprintf(&b, "\n  %-11s %4d dates (%4d expired at now) %4d not dates", n, k.dates, k.expired, k.notDates)
			total.dates += k.dates
			total.notDates += k.notDates
			total.expired += k.expired
			// Every shape must decide something both ways, or it shows
			// nothing about the parser.
			if n != "limits" && (k.dates == 0 || k.expired == 0 || k.expired == k.dates) {
				t.Errorf("TZ=%s: shape %s: %d dates, %d expired: it decides nothing", zone, n, k.dates, k.expired)
			}
		}
		t.Logf("TZ=%s: %d spellings, %d dates (%d expired at now), %d not dates:%s", zone, len(table), total.dates, total.expired, total.notDates, b.String())
		if len(table) < 1000 {
			t.Errorf("TZ=%s: the table has %d spellings, fewer than 1,000", zone, len(table))
		}
	}
	if !slices.Contains(expiryZones, "America/New_York") {
		t.Fatal("the zones lost New York")
	}
}
