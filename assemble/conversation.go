package assemble

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/internal/jsonx"
)

// Options configure a Conversation. The zero value is ready to use.
type Options struct {
	// Messages are the conversation's messages before the first event (a
	// client's history). They are copied.
	Messages []event.Message
	// State is the state before the first event; nil means {} (the
	// TypeScript client's default agent state).
	State event.RawValue
	// Check turns on sequence checking: an event that breaks the AG-UI
	// lifecycle (see SequenceError) is refused instead of applied.
	Check bool
	// Strict turns on the draft specification's fatal rules, which no
	// released version states yet (see strict.go): a RUN_FINISHED naming
	// another run or thread than the run it closes, a RUN_STARTED on
	// another thread than the stream's, two interrupts of one id in an
	// outcome, and (End) a stream that ends while its run is running.
	Strict bool
	// ThreadID, when set, is the thread every RUN_STARTED must name under
	// Strict (the input's threadId); empty means the first run's.
	ThreadID string
	// MaxPatchWork is the work budget of one JSON Patch (STATE_DELTA,
	// ACTIVITY_DELTA); 0 means DefaultMaxPatchWork.
	MaxPatchWork int
	// WorkBudget, CopyBudget and MemoryBudget bound the conversation's cost
	// per byte of the events applied (see the budgets in the package
	// documentation): 0 means DefaultWorkBudget, DefaultCopyBudget,
	// DefaultMemoryBudget; a negative value removes the bound.
	WorkBudget, CopyBudget, MemoryBudget int
	// MaxEventSize is for Compact: when positive, no event it writes is
	// larger than this many bytes as a binary frame's payload (a joined text
	// that would be is written in several content events); an event it
	// cannot make that small fails with ErrEventTooLarge.
	MaxEventSize int
}

// Conversation is the conversation an AG-UI event stream describes: its
// messages, its state and its runs, built by applying events in order
// exactly as the TypeScript client @ag-ui/client 1.0.0 applies them.
//
// A Conversation is not safe for concurrent use.
type Conversation struct {
	opts  Options
	msgs  []*msg
	state *node
	// stateText caches the state's JSON text; nil after a change.
	stateText event.RawValue

	byID     map[string]*msg // first message with each id
	byToolID map[string]*msg // first message holding each tool call id
	dirty    bool            // the indexes need a rebuild

	// What the budgets are measured against and what was spent of them.
	in, work, copies, held int64
	lanes                  lanes
	checker                *checker
	runs                   []Run
	stats                  Stats
	index                  int // events offered to Apply so far
}

// msg is one message under construction. Streamed text accumulates in
// text; tool call arguments in each call's args.
type msg struct {
	m       event.Message
	text    []byte
	hasText bool // text, not m.Content or m.Parts, is the content
	calls   []*call
	// act is an activity message's content as a tree once a delta has
	// patched it (m.ActivityContent is then stale), so a run of deltas
	// does not parse and write the content once per delta.
	act *node
	// keys is the order of the message's members as the client holds them
	// (see order.go).
	keys []string
}

type call struct {
	tc   event.ToolCall
	args []byte
	keys []string // the order of its members, as msg.keys
}

// Stats counts what happened to the events a Conversation was given.
type Stats struct {
	// Events is the number of events offered to Apply.
	Events int
	// Unknown counts events of a type this version does not apply (the
	// pre-1.0 THINKING_* events, and frames from a later protocol when
	// reading a stream): skipped, as the TypeScript client drops them.
	Unknown int
	// Ignored counts events the client also drops without effect because
	// what they name is not there: content or an end for a message that does
	// not exist, a delta for an activity message that does not exist, and
	// the like. With Check on, most of these are sequence errors instead.
	Ignored int
}

// RunStatus is where a run stands.
type RunStatus string

// Run statuses.
const (
	RunRunning  RunStatus = "running"
	RunFinished RunStatus = "finished"
	RunErrored  RunStatus = "error"
)

// Run is what the stream said about one run (one RUN_STARTED).
type Run struct {
	ThreadID, RunID string
	ParentRunID     *string
	Status          RunStatus
	// Outcome, Result and Usage are RUN_FINISHED's (Usage: or RUN_ERROR's).
	Outcome *event.RunOutcome
	Result  event.RawValue
	Usage   []event.Usage
	// Error and ErrorCode are RUN_ERROR's message and code.
	Error     string
	ErrorCode *string
	// Steps lists the run's steps in the order they started.
	Steps []Step
	// Metadata is the metadata of the run's RUN_STARTED, RUN_FINISHED and
	// RUN_ERROR events, merged: run-level metadata stays on the run and never
	// reaches a message.
	Metadata event.Object
}

// Step is one STEP_STARTED, and whether its STEP_FINISHED arrived.
type Step struct {
	Name          string
	SubagentRunID *string
	Finished      bool
}

// New returns an empty Conversation (or one holding opts.Messages and
// opts.State).
func New(opts Options) (*Conversation, error) {
	c := &Conversation{opts: opts}
	for i := range opts.Messages {
		c.msgs = append(c.msgs, newMsg(&opts.Messages[i]))
		c.in += messageBytes(&opts.Messages[i])
		c.held += messageMemory(&opts.Messages[i])
	}
	c.dirty = true
	st := opts.State
	if st == nil {
		st = event.RawValue("{}")
	}
	n, err := parseValue(st)
	if err != nil {
		return nil, fmt.Errorf("assemble: initial state: %w", err)
	}
	c.state = n
	c.in += int64(len(st))
	c.held += treeMemory(n)
	if opts.Check {
		c.checker = newChecker()
	}
	return c, nil
}

func newMsg(m *event.Message) *msg {
	x := &msg{m: *m, keys: schemaKeys(m)}
	x.m.ToolCalls = nil
	for _, tc := range m.ToolCalls {
		x.calls = append(x.calls, &call{tc: tc, args: []byte(tc.Function.Arguments), keys: callSchemaKeys(&tc)})
	}
	return x
}

// Stats reports how many events were applied, skipped and ignored.
func (c *Conversation) Stats() Stats { return c.stats }

// Runs returns the runs seen so far, oldest first.
func (c *Conversation) Runs() []Run {
	out := make([]Run, len(c.runs))
	for i, r := range c.runs {
		out[i] = r
		out[i].Steps = append([]Step(nil), r.Steps...)
	}
	return out
}

// State returns the current state as JSON text (member order and number
// spelling as they arrived). It is "null" if the state was set to null.
func (c *Conversation) State() event.RawValue {
	if c.stateText == nil {
		if c.state == nil {
			c.stateText = event.RawValue("null")
		} else {
			c.stateText = raw(c.state)
		}
	}
	return append(event.RawValue(nil), c.stateText...)
}

// Len returns the number of messages.
func (c *Conversation) Len() int { return len(c.msgs) }

// Messages returns the current messages. Later events do not change the
// result; its metadata, content and content part values share their bytes
// with the Conversation and must not be modified.
func (c *Conversation) Messages() []event.Message {
	out := make([]event.Message, len(c.msgs))
	for i, m := range c.msgs {
		out[i] = m.message()
	}
	return out
}

// message materialises one message.
func (m *msg) message() event.Message {
	out := m.m
	if m.hasText {
		s := string(m.text)
		out.Content, out.Parts = &s, nil
	} else if m.m.Parts != nil {
		out.Parts = append([]event.ContentPart{}, m.m.Parts...)
	}
	if m.act != nil {
		m.m.ActivityContent = event.Object(raw(m.act))
		m.act = nil
		out.ActivityContent = m.m.ActivityContent
	}
	if m.calls != nil {
		out.ToolCalls = make([]event.ToolCall, len(m.calls))
		for i, c := range m.calls {
			out.ToolCalls[i] = c.tc
			out.ToolCalls[i].Function.Arguments = string(c.args)
		}
	}
	return out
}

// SequenceError is an event refused because it breaks the AG-UI lifecycle
// (Options.Check) or a draft rule (Options.Strict), or a chunk event that
// cannot be expanded. Index is the event's position among the events given
// to Apply, from 0; from End, Type is empty and Index is where the missing
// terminal event would have been.
type SequenceError struct {
	Index int
	Type  event.Type
	Err   error // one of the ErrSeq* or ErrChunk* errors, wrapped with detail
}

func (e *SequenceError) Error() string {
	if e.Type == "" { // End: the event that never came
		return fmt.Sprintf("after event %d, the end of the stream: %v", e.Index-1, e.Err)
	}
	return fmt.Sprintf("event %d (%s): %v", e.Index, e.Type, e.Err)
}

func (e *SequenceError) Unwrap() error { return e.Err }

// ApplyError is an event that could not be applied: a JSON Patch that
// failed (Err is then a *PatchError), or activity content a patch turned
// into something other than an object. The conversation is as it was before
// the event, except that an ACTIVITY_DELTA's metadata is merged even when its
// patch fails (as the TypeScript client does).
type ApplyError struct {
	Index int
	Type  event.Type
	Err   error
}

func (e *ApplyError) Error() string {
	return fmt.Sprintf("event %d (%s): %v", e.Index, e.Type, e.Err)
}

func (e *ApplyError) Unwrap() error { return e.Err }

// ErrActivityNotObject: an ACTIVITY_DELTA patch left the activity content
// something other than a JSON object.
var ErrActivityNotObject = errors.New("activity content is not an object after the patch")

// Apply applies one event. Chunk events are expanded first, as the client
// expands them; an event of a later protocol or a pre-1.0 THINKING_* event
// is skipped and counted (Stats.Unknown). A refused event returns a
// *SequenceError, a failed patch an *ApplyError; in both cases the
// conversation stays as it was and later events can still be applied.
func (c *Conversation) Apply(ev event.Event) error {
	idx := c.index
	c.index++
	c.stats.Events++
	if ev != nil {
		c.in += eventBytes(ev)
	}
	fail := func(err error) error {
		if err == nil {
			return nil
		}
		var se *SequenceError
		var ae *ApplyError
		if errors.As(err, &se) || errors.As(err, &ae) {
			return err
		}
		return &SequenceError{Index: idx, Type: ev.Type(), Err: err}
	}
	if !known(ev) {
		c.stats.Unknown++
		return nil
	}
	if len(c.lanes.order) == 0 && !isChunk(ev) {
		// The common case: no chunk stream open, nothing to expand.
		return c.step(idx, ev, ev)
	}
	expanded, err := c.lanes.expand(ev)
	if err != nil {
		return fail(err)
	}
	for _, x := range expanded {
		if err := c.step(idx, ev, x); err != nil {
			return err
		}
	}
	return nil
}

func isChunk(ev event.Event) bool {
	switch ev.(type) {
	case *event.TextMessageChunk, *event.ToolCallChunk, *event.ReasoningMessageChunk:
		return true
	}
	return false
}

// step checks and applies x, one of the events ev stands for.
func (c *Conversation) step(idx int, ev, x event.Event) error {
	if md := x.BaseEvent().Metadata; md != nil {
		// Metadata is read as the encoder reads it: each key once, every
		// number one a double holds.
		if err := jsonx.CheckValue(md, jsonx.TreeOptions{MaxDepth: maxValueDepth}); err != nil {
			return &ApplyError{Index: idx, Type: ev.Type(), Err: fmt.Errorf("metadata: %w", err)}
		}
		// Merges are charged as they happen; one past the budget stops the
		// events with metadata that follow.
		if c.work > c.workCap() {
			return &ApplyError{Index: idx, Type: ev.Type(), Err: fmt.Errorf("%w (merging metadata)", ErrWorkBudget)}
		}
	}
	if c.checker != nil {
		if err := c.checker.check(x); err != nil {
			return &SequenceError{Index: idx, Type: ev.Type(), Err: err}
		}
	}
	if c.opts.Strict {
		if err := c.strictCheck(x); err != nil {
			return &SequenceError{Index: idx, Type: ev.Type(), Err: err}
		}
	}
	if err := c.apply(x); err != nil {
		return &ApplyError{Index: idx, Type: ev.Type(), Err: err}
	}
	return nil
}

// known reports whether ev is one of the 31 event types this version applies.
func known(ev event.Event) bool {
	if ev == nil {
		return false
	}
	if _, ok := ev.(*event.Thinking); ok {
		return false
	}
	return ev.Type().Known()
}

func (c *Conversation) reindex() {
	if !c.dirty {
		return
	}
	c.byID = make(map[string]*msg, len(c.msgs))
	c.byToolID = map[string]*msg{}
	for _, m := range c.msgs {
		if _, ok := c.byID[m.m.ID]; !ok {
			c.byID[m.m.ID] = m
		}
		for _, tc := range m.calls {
			if _, ok := c.byToolID[tc.tc.ID]; !ok {
				c.byToolID[tc.tc.ID] = m
			}
		}
	}
	c.dirty = false
}

func (c *Conversation) find(id string) *msg {
	c.reindex()
	return c.byID[id]
}

func (c *Conversation) findCall(id string) (*msg, *call) {
	c.reindex()
	m := c.byToolID[id]
	if m == nil {
		return nil, nil
	}
	for _, tc := range m.calls {
		if tc.tc.ID == id {
			return m, tc
		}
	}
	return nil, nil
}

// push appends a message, keeping the indexes current.
func (c *Conversation) push(m *msg) {
	c.reindex()
	c.msgs = append(c.msgs, m)
	if _, ok := c.byID[m.m.ID]; !ok {
		c.byID[m.m.ID] = m
	}
	for _, tc := range m.calls {
		if _, ok := c.byToolID[tc.tc.ID]; !ok {
			c.byToolID[tc.tc.ID] = m
		}
	}
}

func (c *Conversation) addCall(m *msg, tc *call) {
	c.reindex()
	m.calls = append(m.calls, tc)
	if _, ok := c.byToolID[tc.tc.ID]; !ok {
		c.byToolID[tc.tc.ID] = m
	}
}

func (c *Conversation) run() *Run {
	if len(c.runs) == 0 {
		return nil
	}
	return &c.runs[len(c.runs)-1]
}

func strPtr(s string) *string { return &s }

// encryptedType is the type an entity stores with the encrypted value e
// gives it (AG-UI 1.1): e's, returned as it came; none when e carries none,
// removing the type a previous value had, which described that value.
func encryptedType(e *event.ReasoningEncryptedValue, keys []string) (*string, []string) {
	if e.EncryptedValueType == nil {
		return nil, dropKey(keys, "encryptedValueType")
	}
	return strPtr(*e.EncryptedValueType), setKey(keys, "encryptedValueType")
}

// apply applies one event that is not a chunk.
func (c *Conversation) apply(ev event.Event) error {
	md := ev.BaseEvent().Metadata
	switch e := ev.(type) {
	case *event.TextMessageStart:
		existing := c.find(e.MessageID)
		if existing != nil && existing.m.Role == event.RoleActivity {
			c.stats.Ignored++ // the text (and its metadata) is dropped
			return nil
		}
		target := existing
		if target == nil {
			if err := c.allocate(msgOverhead); err != nil {
				return err
			}
			role := event.RoleAssistant
			if e.Role != nil {
				role = *e.Role
			}
			target = &msg{m: event.Message{ID: e.MessageID, Role: role, Name: e.Name, SubagentRunID: e.SubagentRunID}, hasText: true,
				keys: []string{"id", "role", "content"}}
			if e.Name != nil {
				target.keys = append(target.keys, "name")
			}
			if e.SubagentRunID != nil {
				target.keys = append(target.keys, "subagentRunId")
			}
			c.push(target)
		}
		c.mergeMsg(target, md)
	case *event.TextMessageContent:
		c.appendText(e.MessageID, e.Delta, md)
	case *event.TextMessageEnd:
		c.endText(e.MessageID, md)
	case *event.ReasoningMessageStart:
		existing := c.find(e.MessageID)
		if existing != nil && existing.m.Role == event.RoleActivity {
			c.stats.Ignored++
			return nil
		}
		target := existing
		if target == nil {
			if err := c.allocate(msgOverhead); err != nil {
				return err
			}
			target = &msg{m: event.Message{ID: e.MessageID, Role: event.RoleReasoning, SubagentRunID: e.SubagentRunID}, hasText: true,
				keys: []string{"id", "role", "content"}}
			if e.SubagentRunID != nil {
				target.keys = append(target.keys, "subagentRunId")
			}
			c.push(target)
		}
		c.mergeMsg(target, md)
	case *event.ReasoningMessageContent:
		c.appendText(e.MessageID, e.Delta, md)
	case *event.ReasoningMessageEnd:
		c.endText(e.MessageID, md)
	case *event.ToolCallStart:
		return c.toolCallStart(e)
	case *event.ToolCallArgs:
		_, tc := c.findCall(e.ToolCallID)
		if tc == nil {
			c.stats.Ignored++
			return nil
		}
		tc.args = append(tc.args, e.Delta...)
		c.mergeCall(tc, md)
	case *event.ToolCallEnd:
		_, tc := c.findCall(e.ToolCallID)
		if tc == nil {
			c.stats.Ignored++
			return nil
		}
		c.mergeCall(tc, md)
	case *event.ToolCallResult:
		return c.toolCallResult(e)
	case *event.StateSnapshot:
		n, err := parseValue(e.Snapshot)
		if err != nil {
			return err
		}
		if err := c.allocate(treeMemory(n)); err != nil {
			return err
		}
		c.state, c.stateText = n, nil
	case *event.StateDelta:
		lim := c.limits()
		err := applyPatch(&c.state, e.Delta, lim)
		c.patched(lim)
		if err != nil {
			return err
		}
		c.stateText = nil
	case *event.MessagesSnapshot:
		return c.messagesSnapshot(e)
	case *event.ActivitySnapshot:
		return c.activitySnapshot(e)
	case *event.ActivityDelta:
		return c.activityDelta(e)
	case *event.ReasoningEncryptedValue:
		if e.Subtype == "tool-call" {
			for _, m := range c.msgs {
				if err := c.spendWork(1 + len(m.calls)); err != nil {
					return err
				}
				if m.m.Role != event.RoleAssistant {
					continue
				}
				for _, tc := range m.calls {
					if tc.tc.ID == e.EntityID {
						tc.tc.EncryptedValue = strPtr(e.EncryptedValue)
						tc.keys = setKey(tc.keys, "encryptedValue")
						tc.tc.EncryptedValueType, tc.keys = encryptedType(e, tc.keys)
						return nil
					}
				}
			}
			c.stats.Ignored++
			return nil
		}
		if m := c.find(e.EntityID); m != nil && m.m.Role != event.RoleActivity {
			m.m.EncryptedValue = strPtr(e.EncryptedValue)
			m.keys = setKey(m.keys, "encryptedValue")
			m.m.EncryptedValueType, m.keys = encryptedType(e, m.keys)
			return nil
		}
		c.stats.Ignored++
	case *event.RunStarted:
		if e.Input != nil {
			if err := checkMessages(e.Input.Messages); err != nil {
				return fmt.Errorf("input: %w", err)
			}
			var mem int64
			for i := range e.Input.Messages {
				mem += messageMemory(&e.Input.Messages[i])
			}
			if err := c.allocate(mem); err != nil {
				return err
			}
		}
		c.runs = append(c.runs, Run{ThreadID: e.ThreadID, RunID: e.RunID, ParentRunID: e.ParentRunID, Status: RunRunning, Metadata: md})
		if e.Input != nil {
			for i := range e.Input.Messages {
				if c.find(e.Input.Messages[i].ID) == nil {
					c.push(newMsg(&e.Input.Messages[i]))
				}
			}
		}
	case *event.RunFinished:
		if r := c.run(); r != nil {
			r.Status, r.Outcome, r.Result, r.Usage = RunFinished, e.Outcome, e.Result, e.Usage
			r.Metadata = c.merge(r.Metadata, md)
		}
	case *event.RunError:
		if r := c.run(); r != nil {
			r.Status, r.Error, r.ErrorCode = RunErrored, e.Message, e.Code
			if e.Usage != nil {
				r.Usage = e.Usage
			}
			r.Metadata = c.merge(r.Metadata, md)
		} else {
			c.runs = append(c.runs, Run{Status: RunErrored, Error: e.Message, ErrorCode: e.Code, Usage: e.Usage, Metadata: md})
		}
	case *event.StepStarted:
		if r := c.run(); r != nil {
			r.Steps = append(r.Steps, Step{Name: e.StepName, SubagentRunID: e.SubagentRunID})
		}
	case *event.StepFinished:
		if r := c.run(); r != nil {
			for i := len(r.Steps) - 1; i >= 0; i-- {
				if s := &r.Steps[i]; s.Name == e.StepName && !s.Finished && eqPtr(s.SubagentRunID, e.SubagentRunID) {
					s.Finished = true
					break
				}
			}
		}
	case *event.Raw, *event.Custom, *event.ReasoningStart, *event.ReasoningEnd,
		*event.SubagentStarted, *event.SubagentFinished, *event.SubagentError:
		// They change no message; their metadata stays on the event.
	default:
		// A type the registry knows that this switch does not: loud, so a
		// new event type cannot be dropped without anyone deciding it
		// (TestEveryRegisteredTypeIsApplied).
		return fmt.Errorf("%w: %s", errUnhandled, ev.Type())
	}
	return nil
}

// errUnhandled: an event type the conversation has no case for.
var errUnhandled = errors.New("assemble: no case for this event type")

func eqPtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// merge folds event metadata into a target's (see MergeMetadata); an
// event without metadata leaves the target's untouched without copying.
// mergeWork is the work units charged per byte of metadata merged: a merge
// reads both objects, indexes their keys and writes the result, several
// times the work of the units a patch is charged.
const mergeWork = 8

func (c *Conversation) merge(existing, incoming event.Object) event.Object {
	if incoming == nil {
		return existing
	}
	// Merging rewrites the target's metadata: charged to the work budget
	// (checked before each event with metadata, see step), so a stream of
	// small events piling keys onto one message stays linear.
	c.work += mergeWork * int64(len(existing)+len(incoming))
	return MergeMetadata(existing, incoming)
}

// mergeMsg merges event metadata into a message; the client sets its
// metadata member then, last if it had none.
func (c *Conversation) mergeMsg(m *msg, md event.Object) {
	if md == nil {
		return
	}
	m.m.Metadata = c.merge(m.m.Metadata, md)
	m.keys = setKey(m.keys, "metadata")
}

// mergeCall is mergeMsg for a tool call.
func (c *Conversation) mergeCall(tc *call, md event.Object) {
	if md == nil {
		return
	}
	tc.tc.Metadata = c.merge(tc.tc.Metadata, md)
	tc.keys = setKey(tc.keys, "metadata")
}

func (c *Conversation) appendText(id, delta string, md event.Object) {
	m := c.find(id)
	if m == nil || m.m.Role == event.RoleActivity {
		c.stats.Ignored++
		return
	}
	if !m.hasText {
		// String content is appended to; content that is not a string
		// (absent, or parts) is replaced by the streamed text.
		m.hasText, m.text = true, nil
		if m.m.Content != nil {
			m.text = []byte(*m.m.Content)
		}
	}
	m.text = append(m.text, delta...)
	m.keys = setKey(m.keys, "content")
	c.mergeMsg(m, md)
}

func (c *Conversation) endText(id string, md event.Object) {
	m := c.find(id)
	if m == nil || m.m.Role == event.RoleActivity {
		c.stats.Ignored++
		return
	}
	c.mergeMsg(m, md)
}

func (c *Conversation) toolCallStart(e *event.ToolCallStart) error {
	if _, tc := c.findCall(e.ToolCallID); tc != nil {
		// A start for a call that exists (a replay) updates it in place.
		tc.tc.Function.Name = e.ToolCallName
		c.mergeCall(tc, e.Metadata)
		return nil
	}
	// At most a new parent message and the call.
	if err := c.allocate(msgOverhead + int64(unsafe.Sizeof(call{})) + 8); err != nil {
		return err
	}
	var parent *msg
	if e.ParentMessageID != nil && *e.ParentMessageID != "" {
		existing := c.find(*e.ParentMessageID)
		if existing != nil && existing.m.Role == event.RoleAssistant {
			parent = existing
		} else {
			id := *e.ParentMessageID
			if existing != nil {
				id = e.ToolCallID // the id names another kind of message
			}
			parent = &msg{m: event.Message{ID: id, Role: event.RoleAssistant}, calls: []*call{}, keys: []string{"id", "role", "toolCalls"}}
			if e.SubagentRunID != nil {
				parent.m.SubagentRunID = e.SubagentRunID
				parent.keys = append(parent.keys, "subagentRunId")
			}
			c.push(parent)
		}
	} else {
		parent = &msg{m: event.Message{ID: e.ToolCallID, Role: event.RoleAssistant}, calls: []*call{}, keys: []string{"id", "role", "toolCalls"}}
		if e.SubagentRunID != nil {
			parent.m.SubagentRunID = e.SubagentRunID
			parent.keys = append(parent.keys, "subagentRunId")
		}
		c.push(parent)
	}
	if parent.calls == nil {
		parent.calls = []*call{}
	}
	parent.keys = setKey(parent.keys, "toolCalls")
	tc := &call{tc: event.ToolCall{ID: e.ToolCallID, Type: "function", Function: event.FunctionCall{Name: e.ToolCallName}},
		keys: []string{"id", "type", "function"}}
	c.mergeCall(tc, e.Metadata)
	c.addCall(parent, tc)
	return nil
}

func (c *Conversation) toolCallResult(e *event.ToolCallResult) error {
	if err := checkParts(e.Parts); err != nil {
		return err
	}
	// It walks the list for the owner, shifts what follows it, and the
	// indexes are rebuilt.
	if err := c.spendWork(3 * len(c.msgs)); err != nil {
		return err
	}
	role := event.RoleTool
	if e.Role != nil && *e.Role != "" {
		role = *e.Role
	}
	m := &msg{m: event.Message{ID: e.MessageID, Role: role, ToolCallID: strPtr(e.ToolCallID), Content: e.Content, Parts: e.Parts, SubagentRunID: e.SubagentRunID},
		keys: []string{"id", "toolCallId", "role", "content"}}
	if e.SubagentRunID != nil {
		m.keys = append(m.keys, "subagentRunId")
	}
	c.mergeMsg(m, e.Metadata)
	if err := c.allocate(messageMemory(&m.m)); err != nil {
		return err
	}
	owner := -1
	for i, x := range c.msgs {
		if x.m.Role != event.RoleAssistant {
			continue
		}
		for _, tc := range x.calls {
			if tc.tc.ID == e.ToolCallID {
				owner = i
				break
			}
		}
		if owner >= 0 {
			break
		}
	}
	if owner < 0 {
		c.push(m)
		return nil
	}
	at := owner + 1
	for at < len(c.msgs) && c.msgs[at].m.Role == event.RoleTool {
		at++
	}
	c.msgs = append(c.msgs, nil)
	copy(c.msgs[at+1:], c.msgs[at:])
	c.msgs[at] = m
	c.dirty = true
	return nil
}

// activityHistoryKey is the MESSAGES_SNAPSHOT metadata key under which the
// TypeScript client reads which activity types a snapshot is authoritative
// for.
const activityHistoryKey = "@ag-ui/client"

// authoritativeActivityTypes reads that declaration: all=true for null (the
// snapshot owns every activity type), a list for an array of strings, an
// empty list for anything invalid, and declared=false when there is none.
func authoritativeActivityTypes(md event.Object) (types []string, all, declared bool) {
	v, ok := md.Get(activityHistoryKey)
	if !ok {
		return nil, false, false
	}
	var sc jsonx.Scanner
	sc.Reset(v)
	if sc.Peek() != jsonx.Object {
		return nil, false, true
	}
	// Read as JavaScript reads it: a repeated key's last value wins.
	tv, ok := event.Object(v).Get("authoritativeActivityTypes")
	if !ok {
		return nil, false, false
	}
	t, err := jsonx.ParseTree(tv, jsonx.TreeOptions{MaxDepth: maxValueDepth, Inexact: true})
	if err != nil {
		return []string{}, false, true
	}
	switch t.Kind {
	case jsonx.Null:
		return nil, true, true
	case jsonx.Array:
		out := []string{}
		for _, x := range t.Elems {
			if x.Kind != jsonx.String {
				return []string{}, false, true
			}
			out = append(out, x.Text)
		}
		return out, false, true
	}
	return []string{}, false, true
}

func (c *Conversation) messagesSnapshot(e *event.MessagesSnapshot) error {
	if err := checkMessages(e.Messages); err != nil {
		return err
	}
	// It walks the list and the snapshot, builds the snapshot's messages and
	// two maps, and the indexes are rebuilt.
	if err := c.spendWork(3 * (len(c.msgs) + len(e.Messages))); err != nil {
		return err
	}
	mem := int64(0)
	for i := range e.Messages {
		mem += messageMemory(&e.Messages[i]) + 2*48
	}
	if err := c.allocate(mem); err != nil {
		return err
	}
	snap := make(map[string]int, len(e.Messages)) // id → the last snapshot message with it
	hasActivity, hasReasoning := false, false
	for i := range e.Messages {
		m := &e.Messages[i]
		snap[m.ID] = i // the last message with an id wins
		hasActivity = hasActivity || m.Role == event.RoleActivity
		hasReasoning = hasReasoning || m.Role == event.RoleReasoning
	}
	ownedList, ownsAll, declared := authoritativeActivityTypes(e.Metadata)
	owned := make(map[string]bool, len(ownedList))
	for _, t := range ownedList {
		owned[t] = true
	}
	keepClientOnly := func(m *msg) bool {
		switch m.m.Role {
		case event.RoleActivity:
			if ownsAll {
				return false
			}
			if declared {
				return m.m.ActivityType == nil || !owned[*m.m.ActivityType]
			}
			return !hasActivity
		case event.RoleReasoning:
			return !hasReasoning
		}
		return false
	}
	out := make([]*msg, 0, len(e.Messages))
	matched := make([]bool, len(e.Messages)) // by the index snap holds
	for _, m := range c.msgs {
		if i, ok := snap[m.m.ID]; ok {
			out = append(out, newMsg(&e.Messages[i]))
			matched[i] = true
		} else if keepClientOnly(m) {
			out = append(out, m)
		}
	}
	// Snapshot messages whose id was not already in the list are appended,
	// every one of them (the client checks against the list before the
	// appends; a message kept above has an id the snapshot does not name).
	for i := range e.Messages {
		if !matched[snap[e.Messages[i].ID]] {
			out = append(out, newMsg(&e.Messages[i]))
		}
	}
	c.msgs = out
	c.dirty = true
	return nil
}

func (c *Conversation) activitySnapshot(e *event.ActivitySnapshot) error {
	if err := jsonx.CheckValue(e.Content, jsonx.TreeOptions{MaxDepth: maxValueDepth}); err != nil {
		return err
	}
	replace := e.Replace == nil || *e.Replace
	fresh := func() *msg {
		m := &msg{m: event.Message{ID: e.MessageID, Role: event.RoleActivity, ActivityType: strPtr(e.ActivityType),
			ActivityContent: append(event.Object(nil), e.Content...), SubagentRunID: e.SubagentRunID},
			keys: []string{"id", "role", "activityType", "content"}}
		if e.SubagentRunID != nil {
			m.keys = append(m.keys, "subagentRunId")
		}
		return m
	}
	existing := c.find(e.MessageID)
	switch {
	case existing == nil:
		if err := c.allocate(msgOverhead + int64(len(e.Content))); err != nil {
			return err
		}
	case existing.m.Role != event.RoleActivity && replace:
		if err := c.spendWork(len(c.msgs)); err != nil { // the indexes are rebuilt
			return err
		}
		if err := c.allocate(int64(len(e.Content))); err != nil {
			return err
		}
	case existing.m.Role == event.RoleActivity && replace:
		if err := c.allocate(int64(len(e.Content))); err != nil {
			return err
		}
	}
	target := existing
	switch {
	case existing == nil:
		target = fresh()
		c.push(target)
	case existing.m.Role == event.RoleActivity:
		if replace {
			target.m.ActivityType = strPtr(e.ActivityType)
			target.m.ActivityContent, target.act = append(event.Object(nil), e.Content...), nil
			target.m.SubagentRunID = e.SubagentRunID
			// The client spreads the message and sets these three, then
			// deletes an absent subagentRunId.
			for _, k := range []string{"activityType", "content", "subagentRunId"} {
				target.keys = setKey(target.keys, k)
			}
			if e.SubagentRunID == nil {
				target.keys = dropKey(target.keys, "subagentRunId")
			}
		}
	case replace:
		// The message becomes an activity message in its place (tool calls
		// and all are gone, so the indexes are rebuilt).
		*existing = *fresh()
		c.dirty = true
	default:
		c.stats.Ignored++
		return nil
	}
	c.mergeMsg(target, e.Metadata)
	return nil
}

func (c *Conversation) activityDelta(e *event.ActivityDelta) error {
	m := c.find(e.MessageID)
	if m == nil || m.m.Role != event.RoleActivity {
		c.stats.Ignored++
		return nil
	}
	// Metadata does not depend on the patch: it is merged first.
	c.mergeMsg(m, e.Metadata)
	doc := m.act
	if doc == nil {
		base := m.m.ActivityContent
		if base == nil {
			base = event.Object("{}")
		}
		var err error
		if doc, err = parseValue(base); err != nil {
			return err
		}
		if err := c.allocate(treeMemory(doc)); err != nil {
			return err
		}
	}
	mustBeObject := func(n *node) error {
		if n == nil || n.Kind != jsonx.Object {
			return ErrActivityNotObject
		}
		return nil
	}
	lim := c.limits()
	err := applyPatchTo(&doc, e.Patch, lim, mustBeObject)
	c.patched(lim)
	if err != nil {
		return err
	}
	m.act = doc
	m.m.ActivityType = strPtr(e.ActivityType)
	m.keys = setKey(setKey(m.keys, "content"), "activityType")
	return nil
}

// checkMessages reads the JSON values messages carry (metadata, activity
// content, tool calls' and content parts' metadata) as the encoder reads
// them: each key once, every number one a double holds.
func checkMessages(msgs []event.Message) error {
	for i := range msgs {
		m := &msgs[i]
		for _, v := range [][]byte{m.Metadata, m.ActivityContent} {
			if err := checkValue(v); err != nil {
				return jsonx.WithIndex(jsonx.WithKey(err, "messages"), i)
			}
		}
		for j := range m.ToolCalls {
			if err := checkValue(m.ToolCalls[j].Metadata); err != nil {
				return jsonx.WithIndex(jsonx.WithKey(err, "messages"), i)
			}
		}
		if err := checkParts(m.Parts); err != nil {
			return jsonx.WithIndex(jsonx.WithKey(err, "messages"), i)
		}
	}
	return nil
}

func checkParts(parts []event.ContentPart) error {
	for j := range parts {
		if err := checkValue(parts[j].Metadata); err != nil {
			return jsonx.WithIndex(jsonx.WithKey(err, "content"), j)
		}
	}
	return nil
}

func checkValue(v []byte) error {
	if v == nil {
		return nil
	}
	return jsonx.CheckValue(v, jsonx.TreeOptions{MaxDepth: maxValueDepth})
}
