package assemble

import (
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/agwire/agwire/event"
)

// Budgets. A Conversation's cost is bounded by what it was given: each
// event adds its size (the bytes of its ids, texts, values and metadata, as
// eventBytes estimates them; about its encoded size) to the bytes applied,
// and three budgets grow with that sum:
//
//   - work: the work of all JSON Patches together (path segments, object
//     members scanned, array elements shifted, nodes copied or compared), of
//     the events that walk or reorder the message list (TOOL_CALL_RESULT,
//     MESSAGES_SNAPSHOT, an ACTIVITY_SNAPSHOT replacing a message, a
//     tool-call REASONING_ENCRYPTED_VALUE) and of metadata merges (8 units
//     per byte merged) may not exceed WorkBudget units per byte applied plus
//     WorkFloor;
//   - copies: copy operations may create CopyBudget nodes per byte applied
//     plus CopyFloor;
//   - memory: the messages and state the conversation builds may allocate
//     MemoryBudget bytes per byte applied plus MemoryFloor, as estimated from
//     the sizes of the Go values it holds (counted when they are made, never
//     given back), like the decoder's Codec.MemoryBudget.
//
// An event past a budget is refused before it changes anything, with an
// *ApplyError naming it that wraps ErrWorkBudget, ErrCopyBudget or
// ErrMemoryBudget. So the time and memory of applying a stream are linear in
// its size, whatever it holds.
const (
	DefaultWorkBudget   = 64
	WorkFloor           = 1 << 24
	DefaultCopyBudget   = 1
	CopyFloor           = 1 << 16
	DefaultMemoryBudget = 64
	MemoryFloor         = 16 << 20
)

var (
	// ErrWorkBudget: the event would take the work of the conversation's
	// patches and list operations past its budget (Options.WorkBudget).
	ErrWorkBudget = errors.New("the conversation's work budget is spent")
	// ErrMemoryBudget: what the event builds would take the conversation's
	// memory past its budget (Options.MemoryBudget).
	ErrMemoryBudget = errors.New("the conversation would exceed its memory budget")
)

// budgetCap is floor + per × bytes, per being def when 0 and the cap
// unbounded when per is negative.
func budgetCap(per, def int, floor, bytes int64) int64 {
	if per < 0 {
		return math.MaxInt64
	}
	if per == 0 {
		per = def
	}
	if bytes > (math.MaxInt64-floor)/int64(per) {
		return math.MaxInt64
	}
	return floor + int64(per)*bytes
}

func (c *Conversation) workCap() int64 {
	return budgetCap(c.opts.WorkBudget, DefaultWorkBudget, WorkFloor, c.in)
}

func (c *Conversation) memCap() int64 {
	return budgetCap(c.opts.MemoryBudget, DefaultMemoryBudget, MemoryFloor, c.in)
}

func (c *Conversation) copyCap() int64 {
	return budgetCap(c.opts.CopyBudget, DefaultCopyBudget, CopyFloor, c.in)
}

// spendWork charges n units of work, or refuses without charging.
func (c *Conversation) spendWork(n int) error {
	if c.work+int64(n) > c.workCap() {
		return fmt.Errorf("%w (%d units done, %d allowed for %d bytes applied)", ErrWorkBudget, c.work, c.workCap(), c.in)
	}
	c.work += int64(n)
	return nil
}

// allocate records n bytes of memory built, or refuses without recording.
func (c *Conversation) allocate(n int64) error {
	if c.held+n > c.memCap() {
		return fmt.Errorf("%w (%d bytes held, %d more, %d allowed for %d bytes applied)", ErrMemoryBudget, c.held, n, c.memCap(), c.in)
	}
	c.held += n
	return nil
}

// limits returns the budgets of the next patch.
func (c *Conversation) limits() *limits {
	lim := &limits{bounded: true, work: c.opts.MaxPatchWork}
	if lim.work <= 0 {
		lim.work = DefaultMaxPatchWork
	}
	if left := c.workCap() - c.work; left < int64(lim.work) {
		lim.work, lim.workErr = int(max(left, 0)), ErrWorkBudget // 0: the first unit fails
	}
	lim.copies = int(min(c.copyCap()-c.copies, math.MaxInt32))
	lim.mem = c.memCap() - c.held
	return lim
}

// patched charges what a patch spent.
func (c *Conversation) patched(lim *limits) {
	c.work += int64(max(lim.spent, 0))
	c.copies += int64(lim.copied)
	c.held += lim.added
}

// msgOverhead is the memory of one message beside its strings: the msg (and
// the event.Message in it), its pointer in the list and its index entry.
const msgOverhead = int64(unsafe.Sizeof(msg{})) + 8 + 48

// messageBytes estimates the encoded size of a message.
func messageBytes(m *event.Message) int64 {
	n := int64(4 + len(m.ID) + len(m.Role) + len(m.Metadata) + len(m.ActivityContent))
	for _, p := range []*string{m.Content, m.Name, m.ToolCallID, m.Error, m.SubagentRunID, m.EncryptedValue, m.ActivityType} {
		if p != nil {
			n += int64(2 + len(*p))
		}
	}
	for i := range m.ToolCalls {
		tc := &m.ToolCalls[i]
		n += int64(8 + len(tc.ID) + len(tc.Type) + len(tc.Function.Name) + len(tc.Function.Arguments) + len(tc.Metadata))
		if tc.EncryptedValue != nil {
			n += int64(len(*tc.EncryptedValue))
		}
	}
	for i := range m.Parts {
		p := &m.Parts[i]
		n += int64(4 + len(p.Type) + len(p.Text) + len(p.Metadata))
		if p.Source != nil {
			n += int64(len(p.Source.Type) + len(p.Source.Value))
		}
	}
	return n
}

// messageMemory estimates the memory a message occupies in a Conversation.
func messageMemory(m *event.Message) int64 {
	return msgOverhead + messageBytes(m) + int64(len(m.ToolCalls))*int64(unsafe.Sizeof(call{})+8) +
		int64(len(m.Parts))*int64(unsafe.Sizeof(event.ContentPart{}))
}

// eventBytes estimates an event's size: its metadata and raw event, and the
// texts and values the events that build something carry. The ids of other
// events count for a few bytes; estimating low only makes the budgets
// stricter.
func eventBytes(ev event.Event) int64 {
	b := ev.BaseEvent()
	n := int64(8 + len(b.Metadata) + len(b.RawEvent))
	switch e := ev.(type) {
	case *event.TextMessageContent:
		n += int64(len(e.MessageID) + len(e.Delta))
	case *event.ReasoningMessageContent:
		n += int64(len(e.MessageID) + len(e.Delta))
	case *event.ToolCallArgs:
		n += int64(len(e.ToolCallID) + len(e.Delta))
	case *event.TextMessageChunk:
		if e.Delta != nil {
			n += int64(len(*e.Delta))
		}
	case *event.ToolCallChunk:
		if e.Delta != nil {
			n += int64(len(*e.Delta))
		}
	case *event.ReasoningMessageChunk:
		if e.Delta != nil {
			n += int64(len(*e.Delta))
		}
	case *event.ToolCallResult:
		n += messageBytes(&event.Message{ID: e.MessageID, Content: e.Content, Parts: e.Parts, ToolCallID: &e.ToolCallID})
	case *event.StateSnapshot:
		n += int64(len(e.Snapshot))
	case *event.StateDelta:
		n += patchBytes(e.Delta)
	case *event.ActivitySnapshot:
		n += int64(len(e.MessageID) + len(e.ActivityType) + len(e.Content))
	case *event.ActivityDelta:
		n += int64(len(e.MessageID)) + patchBytes(e.Patch)
	case *event.MessagesSnapshot:
		for i := range e.Messages {
			n += messageBytes(&e.Messages[i])
		}
	case *event.RunStarted:
		if e.Input != nil {
			for i := range e.Input.Messages {
				n += messageBytes(&e.Input.Messages[i])
			}
			n += int64(len(e.Input.State))
		}
	}
	return n
}

func patchBytes(ops []event.PatchOp) int64 {
	n := int64(0)
	for i := range ops {
		op := &ops[i]
		n += int64(4 + len(op.Op) + len(op.Path) + len(op.Value))
		if op.From != nil {
			n += int64(len(*op.From))
		}
	}
	return n
}

// treeMemory is the memory a parsed value occupies.
func treeMemory(n *node) int64 {
	if n == nil {
		return 0
	}
	b, _ := n.Size()
	return int64(b)
}
