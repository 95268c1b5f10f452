package agent_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/agwire/agwire/agent"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/transport"
)

// A run that stops for an approval, and the next run that answers it. A real
// agent is reached through a transport.Client c: agent.Adapt(c.Run).
func Example() {
	mustParse := func(lines ...string) []event.Event {
		var evs []event.Event
		for _, l := range lines {
			ev, err := event.Parse([]byte(l))
			if err != nil {
				panic(err)
			}
			evs = append(evs, ev)
		}
		return evs
	}
	runner := agent.Script(nil,
		mustParse(`{"type":"RUN_STARTED","threadId":"t","runId":"r1"}`,
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r1","outcome":{"type":"interrupt","interrupts":[{"id":"approve-1","reason":"tool_approval"}]}}`),
		mustParse(`{"type":"RUN_STARTED","threadId":"t","runId":"r2"}`,
			`{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","delta":"Sent."}`,
			`{"type":"RUN_FINISHED","threadId":"t","runId":"r2"}`))
	thread := agent.New(runner, agent.Options{ThreadID: "t"})
	ctx := context.Background()
	if _, err := thread.Run(ctx, agent.RunParams{}); err != nil {
		panic(err)
	}
	for _, in := range thread.PendingInterrupts() {
		fmt.Println("pending:", in.ID, in.Reason)
	}
	_, err := thread.Run(ctx, agent.RunParams{})
	fmt.Println("without resume:", errors.Is(err, agent.ErrInterruptsNotAddressed))
	res, err := thread.Run(ctx, agent.RunParams{Resume: []event.ResumeEntry{{InterruptID: "approve-1", Status: "resolved"}}})
	if err != nil {
		panic(err)
	}
	fmt.Println("answer:", *res.NewMessages[0].Content)
	// Output:
	// pending: approve-1 tool_approval
	// without resume: true
	// answer: Sent.
}

// The same loop over HTTP: an agent served by transport.NewHandler stops
// its first run for an approval (RUN_FINISHED with an interrupt outcome);
// the thread answers with a resume entry, and the resumed run, which
// receives it in its input, finishes the job.
func Example_interruptOverHTTP() {
	srv := httptest.NewServer(mustHandler(func(ctx context.Context, _ *http.Request, in *event.RunAgentInput, w transport.EventWriter) error {
		evs := []event.Event{&event.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}}
		if len(in.Resume) == 0 {
			// Nothing is sent before the user approves.
			evs = append(evs, &event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID, Outcome: &event.RunOutcome{
				Type: event.OutcomeInterrupt,
				Interrupts: []event.Interrupt{{ID: "approve-1", Reason: "tool_approval",
					Message: event.Ptr("Send the report to Ana?")}},
			}})
		} else {
			r := in.Resume[0]
			fmt.Printf("server: resumed with %s %s %s\n", r.InterruptID, r.Status, r.Payload)
			evs = append(evs,
				&event.TextMessageStart{MessageID: "m1", Role: event.Ptr(event.RoleAssistant)},
				&event.TextMessageContent{MessageID: "m1", Delta: "Sent to Ana."},
				&event.TextMessageEnd{MessageID: "m1"},
				&event.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
		}
		for _, ev := range evs {
			if err := w.WriteEvent(ev); err != nil {
				return err
			}
		}
		return nil
	}))
	defer srv.Close()

	c, err := transport.NewClient(srv.URL, transport.ClientOptions{})
	if err != nil {
		panic(err)
	}
	thread := agent.New(agent.Adapt(c.Run), agent.Options{ThreadID: "t"})
	thread.AddMessages(event.Message{ID: "u1", Role: event.RoleUser, Content: event.Ptr("Send the report to Ana.")})
	ctx := context.Background()
	res, err := thread.Run(ctx, agent.RunParams{RunID: "r1"})
	if err != nil {
		panic(err)
	}
	fmt.Println("run 1:", res.Run.Outcome.Type)
	var resume []event.ResumeEntry
	for _, in := range thread.PendingInterrupts() {
		fmt.Println("asks:", in.ID, *in.Message)
		resume = append(resume, event.ResumeEntry{InterruptID: in.ID, Status: event.ResumeResolved,
			Payload: event.RawValue(`{"approved":true}`)})
	}
	res, err = thread.Run(ctx, agent.RunParams{RunID: "r2", Resume: resume})
	if err != nil {
		panic(err)
	}
	fmt.Println("run 2:", res.Run.Status, len(thread.PendingInterrupts()), "pending")
	for _, m := range res.NewMessages {
		fmt.Println(m.Role+":", *m.Content)
	}
	// Output:
	// run 1: interrupt
	// asks: approve-1 Send the report to Ana?
	// server: resumed with approve-1 resolved {"approved":true}
	// run 2: finished 0 pending
	// assistant: Sent to Ana.
}

func mustHandler(fn transport.RunFunc) http.Handler {
	h, err := transport.NewHandler(fn, transport.HandlerOptions{})
	if err != nil {
		panic(err)
	}
	return h
}
