package assemble_test

import (
	"github.com/agwire/agwire/assemble"
	"github.com/agwire/agwire/event"
)

// fromEvents applies the events of a slice in order with New and Apply,
// the way to assemble events already in hand.
func fromEvents(events []event.Event, opts assemble.Options) (*assemble.Conversation, error) {
	c, err := assemble.New(opts)
	if err != nil {
		return nil, err
	}
	for _, ev := range events {
		if err := c.Apply(ev); err != nil {
			return c, err
		}
	}
	return c, nil
}
