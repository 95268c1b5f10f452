package assemble

import (
	"fmt"

	"github.com/agwire/agwire/event"
)

// CompactReport says what Compact did.
type CompactReport struct {
	// EventsIn and EventsOut count the events given and returned.
	EventsIn, EventsOut int
	// Streams is the number of text, reasoning and tool call streams joined.
	Streams int
	// Splits counts streams left in two parts because an event that could
	// change what they build (a MESSAGES_SNAPSHOT, a RUN_STARTED, or an
	// event naming the same message) came between their events: Compact
	// never moves a stream's events across such an event.
	Splits int
	// StateEvents is the number of STATE_SNAPSHOT and STATE_DELTA events
	// replaced by one STATE_SNAPSHOT.
	StateEvents int
}

// Compact returns a shorter event sequence that assembles to the same
// conversation — the same messages, metadata included, and the same state —
// in agwire and in the TypeScript client, starting from opts.Messages and
// opts.State:
//
//   - chunk events are expanded as the client expands them;
//   - each text message, reasoning message and tool call stream becomes at
//     most three events at the place of its first one: the start (carrying
//     the metadata of all its events, merged in order — merging is
//     associative, so the message ends with the same metadata), one content
//     or args event with the deltas joined, and the end;
//   - every STATE_SNAPSHOT and STATE_DELTA becomes one STATE_SNAPSHOT of the
//     final state, at the place of the last of them;
//   - every other event is kept as it is, in order.
//
// Unlike the TypeScript client's compactEvents, Compact never reorders a
// stream's events across an event that could change what the stream builds:
// a MESSAGES_SNAPSHOT, a RUN_STARTED, or any event naming the same message.
// A stream open at such an event is compacted in two parts, one on each
// side, and counted in CompactReport.Splits; so a snapshot inside an open
// stream replays exactly as it did.
//
// What stays on events and never reaches the conversation is not kept for
// the events that are dropped or joined: the metadata of state events, and
// the timestamps and rawEvent of joined events. The stream must apply without error (with
// opts.Check as given); a failed patch or a refused event is returned as an
// error and nothing is compacted.
func Compact(events []event.Event, opts Options) ([]event.Event, CompactReport, error) {
	rep := CompactReport{EventsIn: len(events)}
	live, err := New(opts)
	if err != nil {
		return nil, rep, err
	}
	var expanded []event.Event
	var l lanes
	creates := map[int]bool{} // positions in expanded of ACTIVITY_SNAPSHOTs that create their message
	for i, ev := range events {
		if a, ok := ev.(*event.ActivitySnapshot); ok && live.find(a.MessageID) == nil {
			creates[len(expanded)] = true // activity events are never expanded
		}
		if err := live.Apply(ev); err != nil {
			return nil, rep, fmt.Errorf("assemble: compact: %w", err)
		}
		if !known(ev) {
			expanded = append(expanded, ev)
			continue
		}
		x, err := l.expand(ev)
		if err != nil {
			return nil, rep, fmt.Errorf("assemble: compact: event %d: %w", i, err)
		}
		expanded = append(expanded, x...)
	}

	k := compactor{open: map[groupKey]*group{}, parents: map[string][]string{}}
	lastState := -1
	for i, ev := range expanded {
		k.creating = creates[i]
		switch ev.(type) {
		case *event.StateSnapshot, *event.StateDelta:
			rep.StateEvents++
			lastState = len(k.slots)
			k.slots = append(k.slots, slot{}) // filled below
			continue
		}
		k.add(ev)
	}
	rep.Splits = k.splits
	var out []event.Event
	for i, s := range k.slots {
		switch {
		case s.ev != nil:
			out = append(out, s.ev)
		case s.g != nil:
			rep.Streams++
			if out, err = s.g.render(out, opts); err != nil {
				return nil, rep, fmt.Errorf("assemble: compact: %w", err)
			}
		case i == lastState:
			out = append(out, &event.StateSnapshot{Snapshot: live.State()})
		}
	}
	rep.EventsOut = len(out)
	return out, rep, nil
}

type groupKind uint8

const (
	gText groupKind = iota + 1
	gReasoning
	gTool
	gActivity
)

type groupKey struct {
	kind groupKind
	id   string
}

// group is one stream's events between two barriers.
type group struct {
	kind    groupKind
	start   event.Event // the start event, or nil for a stream continued after a barrier
	meta    event.Object
	hasMeta bool
	deltas  []byte
	content event.Event // the first content/args event, for its ids
	end     event.Event
	msgIDs  []string // the message ids the stream builds on
	// unknownParent: a tool call continued whose message is not known; any
	// ACTIVITY_SNAPSHOT (which can replace a message, tool calls and all)
	// is then a barrier.
	unknownParent bool
	// activity: the ACTIVITY_SNAPSHOT that created the message and the
	// activity events after it, replayed to find the message they leave.
	activity []event.Event
}

type slot struct {
	ev event.Event
	g  *group
}

type compactor struct {
	slots    []slot
	open     map[groupKey]*group
	parents  map[string][]string // tool call id → the message ids its start named
	creating bool                // the event being added is an ACTIVITY_SNAPSHOT creating its message
	splits   int
}

func (g *group) fold(md event.Object) {
	if md != nil {
		g.meta = MergeMetadata(g.meta, md)
		g.hasMeta = true
	}
}

// seal closes every open group: later events of those streams start new
// groups after the barrier.
func (k *compactor) seal() {
	for key, g := range k.open {
		if g.end == nil {
			k.splits++
		}
		delete(k.open, key)
	}
}

// namedMessages returns the message ids an event names.
func namedMessages(ev event.Event) []string {
	switch e := ev.(type) {
	case *event.TextMessageStart:
		return []string{e.MessageID}
	case *event.TextMessageContent:
		return []string{e.MessageID}
	case *event.TextMessageEnd:
		return []string{e.MessageID}
	case *event.ReasoningMessageStart:
		return []string{e.MessageID}
	case *event.ReasoningMessageContent:
		return []string{e.MessageID}
	case *event.ReasoningMessageEnd:
		return []string{e.MessageID}
	case *event.ToolCallStart:
		if e.ParentMessageID != nil {
			return []string{*e.ParentMessageID, e.ToolCallID}
		}
		return []string{e.ToolCallID}
	case *event.ToolCallResult:
		return []string{e.MessageID}
	case *event.ActivitySnapshot:
		return []string{e.MessageID}
	case *event.ActivityDelta:
		return []string{e.MessageID}
	case *event.ReasoningEncryptedValue:
		return []string{e.EntityID}
	}
	return nil
}

// streamOf says which stream an event belongs to, and its role in it.
func streamOf(ev event.Event) (key groupKey, part int, ok bool) {
	const (
		start = iota + 1
		delta
		end
	)
	switch e := ev.(type) {
	case *event.TextMessageStart:
		return groupKey{gText, e.MessageID}, start, true
	case *event.TextMessageContent:
		return groupKey{gText, e.MessageID}, delta, true
	case *event.TextMessageEnd:
		return groupKey{gText, e.MessageID}, end, true
	case *event.ReasoningMessageStart:
		return groupKey{gReasoning, e.MessageID}, start, true
	case *event.ReasoningMessageContent:
		return groupKey{gReasoning, e.MessageID}, delta, true
	case *event.ReasoningMessageEnd:
		return groupKey{gReasoning, e.MessageID}, end, true
	case *event.ToolCallStart:
		return groupKey{gTool, e.ToolCallID}, start, true
	case *event.ToolCallArgs:
		return groupKey{gTool, e.ToolCallID}, delta, true
	case *event.ToolCallEnd:
		return groupKey{gTool, e.ToolCallID}, end, true
	}
	return groupKey{}, 0, false
}

func (k *compactor) add(ev event.Event) {
	switch ev.(type) {
	case *event.MessagesSnapshot, *event.RunStarted:
		k.seal()
		k.slots = append(k.slots, slot{ev: ev})
		return
	}
	if _, ok := ev.(*event.ActivitySnapshot); ok {
		// It can replace a message, tool calls and all: a barrier for a
		// tool call whose message is not known.
		for _, g := range k.open {
			if g.unknownParent {
				k.seal()
				break
			}
		}
	}
	if k.activity(ev) {
		return
	}
	key, part, isStream := streamOf(ev)
	// An event naming a message an open stream builds on, other than that
	// stream's own events, is a barrier.
	if isStream {
		k.barrierFor(ev, key)
	} else {
		k.barrierFor(ev, groupKey{})
	}
	if !isStream {
		k.slots = append(k.slots, slot{ev: ev})
		return
	}
	g := k.open[key]
	if part == 1 || g == nil { // a start always begins a new group
		if g != nil {
			if g.end == nil {
				k.splits++
			}
			delete(k.open, key)
		}
		g = &group{kind: key.kind}
		switch e := ev.(type) {
		case *event.ToolCallStart:
			g.msgIDs = namedMessages(e)
			k.parents[key.id] = g.msgIDs
		case *event.ToolCallArgs, *event.ToolCallEnd:
			// Continuing a call after a barrier: it lives in the message its
			// start named, or, for a call this stream did not start, in a
			// message whose id is not known here.
			if p, ok := k.parents[key.id]; ok {
				g.msgIDs = p
			} else {
				g.unknownParent = true
			}
		default:
			g.msgIDs = []string{key.id}
		}
		k.open[key] = g
		k.slots = append(k.slots, slot{g: g})
	}
	switch part {
	case 1:
		g.start = ev
	case 2:
		if g.content == nil {
			g.content = ev
		}
		switch e := ev.(type) {
		case *event.TextMessageContent:
			g.deltas = append(g.deltas, e.Delta...)
		case *event.ReasoningMessageContent:
			g.deltas = append(g.deltas, e.Delta...)
		case *event.ToolCallArgs:
			g.deltas = append(g.deltas, e.Delta...)
		}
	case 3:
		g.end = ev
		delete(k.open, key)
	}
	g.fold(ev.BaseEvent().Metadata)
}

// activity joins ACTIVITY_SNAPSHOT and ACTIVITY_DELTA events of one message
// into a group that starts with the snapshot creating it, and reports
// whether it took ev.
func (k *compactor) activity(ev event.Event) bool {
	var id string
	switch e := ev.(type) {
	case *event.ActivitySnapshot:
		id = e.MessageID
	case *event.ActivityDelta:
		id = e.MessageID
	default:
		return false
	}
	key := groupKey{gActivity, id}
	if g := k.open[key]; g != nil {
		k.barrierFor(ev, key)
		if g = k.open[key]; g != nil {
			g.activity = append(g.activity, ev)
			return true
		}
	}
	if !k.creating {
		return false
	}
	k.barrierFor(ev, key)
	g := &group{kind: gActivity, msgIDs: []string{id}, activity: []event.Event{ev}}
	k.open[key] = g
	k.slots = append(k.slots, slot{g: g})
	return true
}

// barrierFor seals every open group if ev names a message one of them
// (other than own) builds on.
func (k *compactor) barrierFor(ev event.Event, own groupKey) {
	for _, id := range namedMessages(ev) {
		for gk, g := range k.open {
			if gk == own {
				continue
			}
			for _, m := range g.msgIDs {
				if m == id {
					k.seal()
					return
				}
			}
		}
	}
}

// render appends the group's events: start (with all the metadata), joined
// content, end; for an activity group, one ACTIVITY_SNAPSHOT creating the
// message as its events leave it.
func (g *group) render(out []event.Event, opts Options) ([]event.Event, error) {
	if g.kind == gActivity {
		if len(g.activity) == 1 {
			return append(out, g.activity[0]), nil
		}
		// A replay of events the whole stream applied within its budgets
		// (this part cost no more there): the per-patch bound as it was,
		// the conversation's budgets not again.
		c, err := FromEvents(g.activity, Options{MaxPatchWork: opts.MaxPatchWork, WorkBudget: -1, CopyBudget: -1, MemoryBudget: -1})
		if err != nil {
			return nil, err
		}
		m := c.Messages()[0]
		return append(out, &event.ActivitySnapshot{Base: event.Base{Metadata: m.Metadata}, MessageID: m.ID,
			ActivityType: *m.ActivityType, Content: m.ActivityContent, SubagentRunID: m.SubagentRunID}), nil
	}
	meta := g.meta
	if !g.hasMeta {
		meta = nil
	}
	metaPlaced := false
	place := func(b event.Base) event.Base {
		if metaPlaced {
			return event.Base{}
		}
		metaPlaced = true
		return event.Base{Metadata: meta}
	}
	if g.start != nil {
		switch s := g.start.(type) {
		case *event.TextMessageStart:
			c := *s
			c.Base = place(c.Base)
			out = append(out, &c)
		case *event.ReasoningMessageStart:
			c := *s
			c.Base = place(c.Base)
			out = append(out, &c)
		case *event.ToolCallStart:
			c := *s
			c.Base = place(c.Base)
			out = append(out, &c)
		}
	}
	if g.content != nil {
		d := string(g.deltas)
		switch s := g.content.(type) {
		case *event.TextMessageContent:
			out = append(out, &event.TextMessageContent{Base: place(event.Base{}), MessageID: s.MessageID, Delta: d, SubagentRunID: s.SubagentRunID})
		case *event.ReasoningMessageContent:
			out = append(out, &event.ReasoningMessageContent{Base: place(event.Base{}), MessageID: s.MessageID, Delta: d, SubagentRunID: s.SubagentRunID})
		case *event.ToolCallArgs:
			out = append(out, &event.ToolCallArgs{Base: place(event.Base{}), ToolCallID: s.ToolCallID, Delta: d, SubagentRunID: s.SubagentRunID})
		}
	}
	if g.end != nil {
		switch s := g.end.(type) {
		case *event.TextMessageEnd:
			c := *s
			c.Base = place(c.Base)
			out = append(out, &c)
		case *event.ReasoningMessageEnd:
			c := *s
			c.Base = place(c.Base)
			out = append(out, &c)
		case *event.ToolCallEnd:
			c := *s
			c.Base = place(c.Base)
			out = append(out, &c)
		}
	}
	return out, nil
}
