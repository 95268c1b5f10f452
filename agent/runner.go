package agent

import (
	"context"
	"iter"

	"github.com/agwire/agwire/event"
)

// Stream is the events of one run. *transport.EventReader is one.
type Stream interface {
	Events() iter.Seq2[event.Event, error]
	Close() error
}

// Runner runs one input and returns its events.
type Runner interface {
	Run(ctx context.Context, in *event.RunAgentInput) (Stream, error)
}

// RunnerFunc is a Runner made of a function.
type RunnerFunc func(ctx context.Context, in *event.RunAgentInput) (Stream, error)

// Run calls f.
func (f RunnerFunc) Run(ctx context.Context, in *event.RunAgentInput) (Stream, error) {
	return f(ctx, in)
}

// Adapt makes a Runner of a function that runs an input and returns a
// stream of a concrete type. An agent over HTTP is a transport client's Run
// method:
//
//	c, err := transport.NewClient(url, transport.ClientOptions{})
//	...
//	thread := agent.New(agent.Adapt(c.Run), agent.Options{})
func Adapt[S Stream](run func(context.Context, *event.RunAgentInput) (S, error)) Runner {
	return RunnerFunc(func(ctx context.Context, in *event.RunAgentInput) (Stream, error) {
		s, err := run(ctx, in)
		if err != nil {
			return nil, err
		}
		return s, nil
	})
}

// Script returns a Runner that answers the n-th run it is given with the
// n-th list of events (and with no events once they are used up), recording
// every input in *inputs when inputs is not nil: for tests and examples.
func Script(inputs *[]*event.RunAgentInput, runs ...[]event.Event) Runner {
	n := 0
	return RunnerFunc(func(ctx context.Context, in *event.RunAgentInput) (Stream, error) {
		if inputs != nil {
			*inputs = append(*inputs, in)
		}
		var evs []event.Event
		if n < len(runs) {
			evs = runs[n]
		}
		n++
		return sliceStream(evs), nil
	})
}

type sliceStream []event.Event

func (s sliceStream) Events() iter.Seq2[event.Event, error] {
	return func(yield func(event.Event, error) bool) {
		for _, ev := range s {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

func (sliceStream) Close() error { return nil }
