package event_test

import (
	"fmt"
	"testing"

	"github.com/agwire/agwire/event"
)

func TestPtr(t *testing.T) {
	s := "x"
	p := event.Ptr(s)
	s = "changed"
	if *p != "x" {
		t.Errorf("Ptr aliases its argument: %q", *p)
	}
	if q := event.Ptr(int64(5)); *q != 5 {
		t.Errorf("Ptr(int64(5)) = %d", *q)
	}
	if event.Ptr(1) == event.Ptr(1) {
		t.Error("two calls share a pointer")
	}
}

func ExamplePtr() {
	ev := &event.TextMessageStart{MessageID: "m1", Role: event.Ptr(event.RoleAssistant)}
	b, _ := event.Marshal(ev)
	fmt.Println(string(b))
	// Output: {"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}
}
