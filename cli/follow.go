package cli

import (
	"context"
	"errors"
	"flag"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/transport"
)

const followSynopsis = `Follow reads a run of a resumable AG-UI server by its id and writes each event
as one line of AG-UI JSON: the events held so far, then the new ones as they
come, until the run ends. URL is the server's base; the run is followed at
URL/runs/RUN_ID, the follower route of "agwire serve --resumable" (and of
transport.NewFollowHandler mounted there).

--from CURSOR starts after an event: a cursor as the server writes it
(RUN_ID/INC/SEQ, the SSE id of an event) or just its sequence number; without it
the run is replayed from its first event. A cut connection is resumed from the
last event written, up to --reconnect times in a row. A run the server does
not hold, or whose events after the cursor are gone, is an error (exit 1).
A server that binds runs to principals (agwire serve --auth bearer) is
followed with --bearer TOKEN, the token that started the run.`

const followExample = `  agwire serve --resumable --detach &
  curl -s -H 'Content-Type: application/json' \
      -d '{"threadId":"t1","runId":"r1","messages":[]}' http://127.0.0.1:8080/ >/dev/null
  agwire follow http://127.0.0.1:8080/ r1
  agwire follow http://127.0.0.1:8080/ r1 --from 5 | jq -c .type
`

func runFollow(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newBareCLI("follow", followSynopsis, followExample, stdin, stdout, stderr)
	c.operands = "URL RUN_ID"
	c.fs.StringVar(&c.out, "o", "-", "write to `FILE` (- is standard output)")
	from := c.fs.String("from", "", "start after `CURSOR` (RUN_ID/INC/SEQ as the server writes it, or SEQ)")
	sse := c.fs.Bool("sse", false, "ask for Server-Sent Events instead of the binary stream")
	bearer := c.fs.String("bearer", "", "send Authorization: Bearer `TOKEN`, the principal that started the run\n(a server run with --auth bearer answers anyone else 404)")
	attempts := c.fs.Int("reconnect", transport.DefaultReconnectAttempts, "resume a cut connection up to `N` times in a row (0: never)")
	var pos []string
	for {
		err := c.fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			c.usage(c.stdout)
			return exitOK
		}
		if err != nil {
			return c.usageErrorf("%s", c.flagError(err))
		}
		if c.fs.NArg() == 0 {
			break
		}
		pos = append(pos, c.fs.Arg(0))
		args = c.fs.Args()[1:]
	}
	if len(pos) != 2 {
		return c.usageErrorf("want URL and RUN_ID, got %d arguments", len(pos))
	}
	base, run := pos[0], pos[1]
	if err := runlog.CheckRunID(run); err != nil {
		return c.usageErrorf("RUN_ID: %v", err)
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c.usageErrorf("URL %q is not an http or https URL", base)
	}
	cursor := runlog.Cursor{Run: run}
	if *from != "" {
		if seq, err := strconv.ParseUint(*from, 10, 64); err == nil {
			cursor.Seq = seq
		} else if cursor, err = runlog.ParseCursor(*from); err != nil {
			return c.usageErrorf("--from %q: want RUN_ID/INC/SEQ (a cursor as the server writes it) or a bare sequence number SEQ", *from)
		} else if cursor.Run != run {
			return c.usageErrorf("--from: the cursor is of run %q, not %q", cursor.Run, run)
		}
	}
	if *attempts < 0 {
		return c.usageErrorf("--reconnect must not be negative")
	}
	_, out, err := c.open()
	if err != nil {
		c.failf("%v", err)
		return exitFail
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := transport.ClientOptions{}
	if *bearer != "" {
		opts.Header = http.Header{"Authorization": {"Bearer " + *bearer}}
	}
	if *sse {
		opts.Prefer = transport.PreferSSEOnly
	}
	if *attempts > 0 {
		opts.Reconnect = &transport.ReconnectOptions{MaxAttempts: *attempts, MaxBackoff: 2 * time.Second}
	}
	status := exitOK
	client, err := transport.NewClient(u.String(), opts) // follows at URL/runs/RUN_ID
	if err != nil {
		c.failf("%v", err)
		out.close()
		return exitFail
	}
	r, err := client.Follow(ctx, run, cursor)
	if err != nil {
		c.failf("%v", err)
		out.close()
		return exitFail
	}
	defer r.Close()
	for ev, err := range r.Events() {
		if err != nil {
			c.failf("%v", err)
			if !errors.As(err, new(*transport.EventError)) {
				status = exitFail
				break
			}
			status = exitFail
			continue
		}
		b, err := event.Marshal(ev)
		if err != nil {
			c.failf("%v", err)
			status = exitFail
			continue
		}
		out.Write(b)
		out.WriteByte('\n')
		out.Flush()
	}
	out.complete = status == exitOK
	return c.finish(out, status)
}
