package event

// Ptr returns a pointer to a copy of v, for the optional fields of events
// and messages, which are pointers so that absent and empty differ:
//
//	&event.TextMessageStart{MessageID: "m1", Role: event.Ptr(event.RoleAssistant)}
func Ptr[T any](v T) *T { return &v }
