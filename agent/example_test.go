package agent_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/agwire/agwire/agent"
	"github.com/agwire/agwire/event"
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
