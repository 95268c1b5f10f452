package transport_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/runlog"
	"github.com/agwire/agwire/transport"
)

// A resumable endpoint: runs go to a log, a client that is cut off resumes
// with its cursor, and any client follows a run by id.
func ExampleNewFollowHandler() {
	log := runlog.NewMemory(runlog.MemoryOptions{})
	defer log.Close()
	agent, err := transport.NewHandler(func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		w.WriteEvent(&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID})
		w.WriteEvent(&event.TextMessageContent{MessageID: "m1", Delta: "Hello"})
		return w.WriteEvent(&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	}, transport.HandlerOptions{Log: log, Detach: true})
	if err != nil {
		panic(err)
	}
	follow, err := transport.NewFollowHandler(log, transport.FollowOptions{})
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("POST /agent", agent)
	mux.Handle("GET /agent/runs/{run}", follow)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	ctx := context.Background()
	c, err := transport.NewClient(srv.URL+"/agent", transport.ClientOptions{Reconnect: &transport.ReconnectOptions{}})
	if err != nil {
		panic(err)
	}
	r, err := c.Run(ctx, &event.RunAgentInput{ThreadID: "t", RunID: "run-1"})
	if err != nil {
		panic(err)
	}
	var first runlog.Cursor
	for ev, err := range r.Events() {
		if err != nil {
			panic(err)
		}
		// A cursor names the run, its incarnation (a random token: a run
		// of the same id in another log never matches it) and the event.
		cur, _ := r.Cursor()
		if cur.Seq == 1 {
			first = cur
		}
		fmt.Println(cur.Run, cur.Seq, ev.Type())
	}
	r.Close()

	// A follower joining after event 1, over SSE (the follower route is
	// the agent URL with /runs/{run} appended: ClientOptions.FollowURL).
	sse, err := transport.NewClient(srv.URL+"/agent", transport.ClientOptions{Prefer: transport.PreferSSEOnly})
	if err != nil {
		panic(err)
	}
	f, err := sse.Follow(ctx, "run-1", first)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	for ev, err := range f.Events() {
		if err != nil {
			panic(err)
		}
		fmt.Println("follower:", ev.Type())
	}
	// Output:
	// run-1 1 RUN_STARTED
	// run-1 2 TEXT_MESSAGE_CONTENT
	// run-1 3 RUN_FINISHED
	// follower: TEXT_MESSAGE_CONTENT
	// follower: RUN_FINISHED
}
