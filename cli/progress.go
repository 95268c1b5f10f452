package cli

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progressInterval is the shortest time between two redraws of the progress
// line, and how long a run goes before the first: a short run shows nothing.
const progressInterval = 200 * time.Millisecond

// clearLine returns the cursor to the start of the line and erases it.
const clearLine = "\r\033[K"

// isTerminal reports whether w is a terminal; not merely a character
// device, which /dev/null is too. Tests replace it.
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTerminalFile(f)
}

// progressClock is the progress line's clock. Tests replace it.
var progressClock = time.Now

// progress is a one-line report of a long conversion on stderr, redrawn in
// place: "agwire decode: 120000 events, 48.2 MiB read, 3.1s". The methods
// of a nil *progress do nothing, so a command calls them unconditionally.
type progress struct {
	w            io.Writer
	name         string // the command, as in "agwire decode"
	unit, verb   string // "event", "read"
	start, drawn time.Time
	shown        bool // the line is on the screen
}

// startProgress returns the progress line of the command, or nil when
// standard error is not a terminal, or when the output goes to the same
// terminal (the line would be drawn over it). unit names what is counted
// ("event", "frame"), verb what happens to the bytes ("read", "written").
func (c *cli) startProgress(out *output, unit, verb string) *progress {
	if !isTerminal(c.stderr) || out == nil || out.outFile == nil && isTerminal(c.stdout) {
		return nil
	}
	now := progressClock()
	c.prog = &progress{w: c.stderr, name: "agwire " + c.name, unit: unit, verb: verb, start: now, drawn: now}
	return c.prog
}

// update reports n records and that many bytes; it redraws the line when
// progressInterval has passed since the last redraw (or the start).
func (p *progress) update(n, bytes int64) {
	if p == nil {
		return
	}
	now := progressClock()
	if now.Sub(p.drawn) < progressInterval {
		return
	}
	p.drawn = now
	p.shown = true
	fmt.Fprintf(p.w, "%s%s: %s, %s %s, %s", clearLine, p.name, plural(n, p.unit), humanBytes(bytes), p.verb,
		now.Sub(p.start).Round(100*time.Millisecond))
}

// clear erases the line if it is on the screen; a later update draws it
// again.
func (p *progress) clear() {
	if p == nil || !p.shown {
		return
	}
	p.shown = false
	fmt.Fprint(p.w, clearLine)
}

// humanBytes spells a byte count for people: "512 B", "48.2 MiB".
func humanBytes(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	v, unit := float64(n)/1024, "KiB"
	for _, u := range []string{"MiB", "GiB", "TiB"} {
		if v < 1024 {
			break
		}
		v, unit = v/1024, u
	}
	return fmt.Sprintf("%.1f %s", v, unit)
}
