package cli

import (
	"fmt"
	"io"

	"github.com/agwire/agwire/assemble"
	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/framing"
)

const compactSynopsis = `Compact reads a recorded AG-UI event stream (SSE, JSON lines or binary, told
from its first bytes unless --from says) and writes a much shorter one that
assembles to the same conversation — the same messages, metadata included,
and the same state — in agwire and in @ag-ui/client 1.0.0:

  - chunk events are expanded as the client expands them;
  - each text message, reasoning message and tool call becomes its start
    (carrying all its metadata, merged in order), one content or args event
    with the deltas joined, and its end, where it started;
  - an activity message's snapshots and deltas become one snapshot;
  - all STATE_SNAPSHOT and STATE_DELTA events become one STATE_SNAPSHOT of the
    final state, where the last of them was;
  - every other event is kept, in order.

No stream is compacted across an event that could change what it builds (a
MESSAGES_SNAPSHOT, a RUN_STARTED, an event naming the same message): it is
compacted on each side of it instead, so a snapshot inside an open stream
replays as it did. Metadata that only ever stays on events (on the dropped
state and content events) is not kept.

The output format is --to (the input's format when omitted). The reduction,
in events and bytes, is reported on standard error. The stream is checked as
assemble checks it (--no-check to skip that); a bad event, or a JSON Patch
that fails, stops the command with status 1 before anything is written.`

const compactExample = `  agwire compact -i run.jsonl -o run.compact.jsonl
  agwire compact --to binary -i recorded.sse -o recorded.bin
  agwire compact < run.bin > run.compact.bin
`

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func runCompact(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newBareCLI("compact", compactSynopsis, compactExample, stdin, stdout, stderr)
	c.fs.StringVar(&c.in, "i", "-", "read from `FILE` (- is standard input)")
	c.fs.StringVar(&c.out, "o", "-", "write to `FILE` (- is standard output)")
	flags := addStreamFlags(c)
	var to streamFormat
	c.fs.Var(&to, "to", "`sse|jsonl|binary`: the output's format; the input's when omitted")
	maxOut := sizeFlag(0)
	c.fs.Var(&maxOut, "max-output-frame-size", "write no event larger than `BYTES` as a binary frame (a longer joined text\nbecomes several content events); --max-frame-size when omitted")
	if code, ok := c.parse(args); !ok {
		return code
	}
	in, out, err := c.open()
	if err != nil {
		c.failf("%v", err)
		return exitFail
	}
	defer out.close()
	counted := &countingReader{r: in}
	src, from, err := flags.openSource(counted, c.consumeWarn)
	if err != nil {
		c.failf("%v", err)
		return exitFail
	}
	if to == "" {
		to = from
	}
	evs, at, _, ok := c.readEvents(src)
	if !ok {
		return exitFail
	}
	for i, ev := range evs {
		if ev == nil {
			c.failf("%s: an event of a type this version does not know cannot be compacted", at[i])
			return exitFail
		}
	}
	if maxOut == 0 {
		maxOut = flags.maxFrame
	}
	compacted, rep, err := assemble.Compact(evs, assemble.Options{Check: !*flags.noCheck, MaxEventSize: int(maxOut)})
	if err != nil {
		c.failf("%s", atEvent(err, at))
		return exitFail
	}
	written := &countingWriter{w: out}
	var dst eventSink
	switch to {
	case formatJSONL:
		dst = &jsonSink{w: written}
	case formatSSE:
		dst = &jsonSink{w: written, sse: true}
	case formatBinary:
		dst = &binarySink{w: framing.NewWriter(written, framing.WriterOptions{MaxFrameSize: int(maxOut), Codec: flags.profile.readCodec(codec.Codec{})})}
	}
	for _, ev := range compacted {
		if err := dst.write(ev); err != nil {
			c.failf("writing %s: %v", ev.Type(), err)
			return exitFail
		}
	}
	out.complete = true
	if err := out.close(); err != nil {
		c.failf("writing output: %v", err)
		return exitFail
	}
	fmt.Fprintf(c.stderr, "agwire compact: %s (%s) -> %s (%s): %s fewer events, %s fewer bytes; %s joined, %d state events -> %d, %s split at a barrier\n",
		plural(int64(rep.EventsIn), "event"), plural(counted.n, "byte"), plural(int64(rep.EventsOut), "event"), plural(written.n, "byte"),
		percent(rep.EventsIn-rep.EventsOut, rep.EventsIn), percent(int(counted.n-written.n), int(counted.n)),
		plural(int64(rep.Streams), "stream"), rep.StateEvents, min(rep.StateEvents, 1), plural(int64(rep.Splits), "stream"))
	return exitOK
}

func percent(part, whole int) string {
	if whole == 0 {
		return "0%"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(part)/float64(whole))
}

// countingReader counts the bytes read through it (the input's size for the
// reduction report).
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
