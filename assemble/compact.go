package assemble

import (
	"fmt"
	"slices"

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
// It is never longer than its input, as a whole or for any stream: a stream
// that came as one or two chunk events is written as chunk events again
// (where the events after it close the chunk stream as the client's
// expansion would), and in the rare stream where that cannot be done the
// input is returned unchanged. With opts.MaxEventSize, a joined text that
// would make a content event larger than that (as a binary frame's payload)
// is split into several content events, on character boundaries, so that
// the output always fits frames of that size; ErrEventTooLarge when an event
// without text cannot be made to fit.
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
	k, live, err := analyse(events, opts)
	if err != nil {
		return nil, rep, err
	}
	rep.Splits, rep.StateEvents = k.splits, k.stateEvents
	items, err := k.items(live, opts)
	if err != nil {
		return nil, rep, err
	}
	for _, it := range items {
		if it.g != nil {
			rep.Streams++
		}
	}
	// A stream whose start, content and end would be more events than the
	// input gave it (it came as one or two chunks) is written as chunk
	// events again where that replays the same (see scan). Where a chunk
	// stream, open longer than the stream was, would be split by a later
	// compaction (an event naming another stream's message can be a barrier
	// while it is open), the chunk streams are kept clear of every event
	// naming a message, and failing that written in full, so compacting the
	// output again gives as many events.
	out := decide(items, false, false)
	for _, strict := range []bool{true, false} {
		if !anyChunked(items) {
			break // the long forms alone: compacting again gives as many events
		}
		again, err := compactOnce(out, opts)
		if err != nil {
			return nil, rep, err
		}
		if len(again) == len(out) {
			break
		}
		out = decide(items, strict, !strict)
	}
	if (len(out) > len(events) || longerStream(items)) && fits(events, opts.MaxEventSize) {
		// Rare (about 1 generated run in 100): a stream that came as chunks
		// must be written in full because the event that closed it moved
		// into the stream it belonged to. The input is never longer than
		// itself.
		out = append([]event.Event(nil), events...)
		rep.Streams, rep.Splits, rep.StateEvents = 0, 0, 0
	}
	rep.EventsOut = len(out)
	return out, rep, nil
}

// items renders the slots.
func (k *compactor) items(live *Conversation, opts Options) ([]item, error) {
	items := make([]item, 0, len(k.slots))
	for i, s := range k.slots {
		switch {
		case s.ev != nil:
			items = append(items, item{long: []event.Event{s.ev}})
		case s.g != nil:
			evs, chunks, err := s.g.render(opts)
			if err != nil {
				return nil, fmt.Errorf("assemble: compact: %w", err)
			}
			items = append(items, item{long: evs, chunks: chunks, g: s.g})
		case i == k.lastState:
			items = append(items, item{long: []event.Event{&event.StateSnapshot{Snapshot: live.State()}}})
		}
	}
	return items, nil
}

// item is one slot's events: in their long form (start, content, end) and,
// for a stream that has a start, as chunk events.
type item struct {
	long, chunks []event.Event
	g            *group
	chunked      bool // written as chunks
	pos          int  // where its events start in decide's reversed output
	dropped      bool // a part that the chunk form of the part before stands for
}

// decide writes the items, each stream as chunks where that is shorter than
// the input gave it and the events after it close the chunk stream
// (closedBy). It goes from the last item back, so each decision sees the form
// the next items take.
func decide(items []item, strict, none bool) []event.Event {
	var rev []event.Event // the output from the end back; nil where a part was dropped
	at := map[*group]int{}
	for i := range items {
		items[i].chunked, items[i].dropped = false, false
		if items[i].g != nil {
			at[items[i].g] = i
		}
	}
	for i := len(items) - 1; i >= 0; i-- {
		it := &items[i]
		it.pos = len(rev)
		evs := it.long
		if it.chunks != nil && !none && len(it.long) >= it.g.inputs {
			if it.g.end != nil || it.g.next == nil {
				it.chunked = len(it.long) > it.g.inputs && len(it.chunks) < len(it.long) && it.g.closedBy(rev, it.g.end != nil, strict)
			} else if j, ok := at[it.g.next]; ok && j > i {
				// Sealed open at a barrier, its end after it: written as
				// chunks left open across the barrier, as the input had them,
				// when the part after is only the end the expansion made.
				q := &items[j]
				if q.g.inputs == 0 && q.g.content == nil && !q.g.hasMeta && q.g.end != nil && len(q.long) == 1 &&
					it.g.quietBetween(rev[q.pos+1:], strict) && it.g.closedBy(rev[:q.pos], true, strict) {
					it.chunked, q.dropped = true, true
					rev[q.pos] = nil
				}
			}
		}
		if it.chunked {
			evs = it.chunks
		}
		for j := len(evs) - 1; j >= 0; j-- {
			rev = append(rev, evs[j])
		}
	}
	out := make([]event.Event, 0, len(rev))
	for i := len(rev) - 1; i >= 0; i-- {
		if rev[i] != nil {
			out = append(out, rev[i])
		}
	}
	return out
}

// compactOnce compacts events with the chunk streams chosen freely, as
// Compact does first (the events applied once already: no budgets again).
func compactOnce(events []event.Event, opts Options) ([]event.Event, error) {
	k, live, err := analyse(events, Options{Messages: opts.Messages, State: opts.State, MaxPatchWork: opts.MaxPatchWork,
		MaxEventSize: opts.MaxEventSize, WorkBudget: -1, CopyBudget: -1, MemoryBudget: -1})
	if err != nil {
		return nil, err
	}
	items, err := k.items(live, opts)
	if err != nil {
		return nil, err
	}
	return decide(items, false, false), nil
}

// analyse applies the events (they must apply without error), expands the
// chunks and groups the streams' events between barriers.
func analyse(events []event.Event, opts Options) (*compactor, *Conversation, error) {
	live, err := New(opts)
	if err != nil {
		return nil, nil, err
	}
	var expanded []event.Event
	var l lanes
	creates := map[int]bool{} // positions in expanded of ACTIVITY_SNAPSHOTs that create their message
	var given []bool          // by position in expanded: the event stands for an input event
	for i, ev := range events {
		if a, ok := ev.(*event.ActivitySnapshot); ok && live.find(a.MessageID) == nil {
			creates[len(expanded)] = true // activity events are never expanded
		}
		if err := live.Apply(ev); err != nil {
			return nil, nil, fmt.Errorf("assemble: compact: %w", err)
		}
		if !known(ev) {
			expanded, given = append(expanded, ev), append(given, false)
			continue
		}
		x, err := l.expand(ev)
		if err != nil {
			return nil, nil, fmt.Errorf("assemble: compact: event %d: %w", i, err)
		}
		// The event counts once, for the stream it belongs to: a chunk's
		// first event that is not a synthetic end, any other event itself.
		own := len(x) - 1
		if isChunk(ev) {
			for own = 0; own < len(x)-1 && isEnd(x[own]); own++ {
			}
		}
		for j := range x {
			given = append(given, j == own)
		}
		expanded = append(expanded, x...)
	}

	k := &compactor{open: map[groupKey]*group{}, parents: map[string][]string{}, lastState: -1}
	for i, ev := range expanded {
		k.creating = creates[i]
		k.given = given[i]
		switch ev.(type) {
		case *event.StateSnapshot, *event.StateDelta:
			k.stateEvents++
			k.lastState = len(k.slots)
			k.slots = append(k.slots, slot{}) // filled by Compact
			continue
		}
		k.add(ev)
	}
	return k, live, nil
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
	// inputs counts the input events the group stands for.
	inputs int
	// next is the stream's part after the barrier this group was sealed
	// open at.
	next *group
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
	given    bool                // the event being added stands for an input event

	stateEvents, lastState int                 // the state events, and the slot of the last one
	sealed                 map[groupKey]*group // streams sealed open, until they continue
	splits                 int
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
			if k.sealed == nil {
				k.sealed = map[groupKey]*group{}
			}
			k.sealed[key] = g
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
		if part != 1 {
			// The part after a barrier of a stream sealed open there.
			if prev := k.sealed[key]; prev != nil {
				prev.next = g
			}
		}
		delete(k.sealed, key)
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
	if k.given {
		g.inputs++
	}
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

// closeLookahead bounds how far the compactor looks for the event that
// closes a chunk stream, so deciding stays linear.
const closeLookahead = 64

// What the events after a chunk stream do to it (scan).
const (
	scanCloses  = iota // an event closes it as its end did
	scanBlocked        // an event continues it, names its messages, or is not decided here
	scanOpen           // nothing closes it: it stays open to the end of rev
)

// scan looks at the events after the group written as chunk events (rev
// holds them from the last back; nil entries are dropped events) for the one
// that closes the chunk stream before anything can tell the difference: so
// the synthetic end the expansion makes stands for the group's end (which
// carries no metadata then: all of it is on the first chunk). Events of other
// agents, and activity, raw and encrypted-value events, that do not name the
// group's messages may come first.
func (g *group) scan(rev []event.Event, strict, namesOK bool) int {
	lane := keyOf(subagentOf(g.start))
	id := g.streamID()
	names := func(ev event.Event) bool {
		for _, n := range namedMessages(ev) {
			if n == id || slices.Contains(g.msgIDs, n) {
				return true
			}
		}
		return false
	}
	// chunk: a chunk event of kind with that id and subagentRunId closes the
	// stream (true, true), continues it or is not decided here (false, true),
	// or belongs to another agent (false, false).
	chunk := func(kind groupKind, cid, tag *string) (closes, decided bool) {
		if cid == nil || (kind == g.kind && *cid == id) {
			return false, true
		}
		if keyOf(tag) == lane {
			return true, true
		}
		return false, false
	}
	seen := 0
	for k := len(rev) - 1; k >= 0; k-- {
		ev := rev[k]
		if ev == nil {
			continue
		}
		if seen++; seen > closeLookahead {
			return scanBlocked
		}
		var closes, decided bool
		switch e := ev.(type) {
		case *event.RunStarted, *event.RunFinished, *event.RunError, *event.MessagesSnapshot:
			return scanCloses
		case *event.Raw, *event.ActivitySnapshot, *event.ActivityDelta, *event.ReasoningEncryptedValue, *event.SubagentStarted:
		case *event.TextMessageChunk:
			closes, decided = chunk(gText, e.MessageID, e.SubagentRunID)
		case *event.ToolCallChunk:
			closes, decided = chunk(gTool, e.ToolCallID, e.SubagentRunID)
		case *event.ReasoningMessageChunk:
			closes, decided = chunk(gReasoning, e.MessageID, e.SubagentRunID)
		default:
			if !known(ev) {
				continue // skipped without effect
			}
			closes = keyOf(subagentOf(ev)) == lane
			decided = closes
		}
		switch {
		case closes:
			return scanCloses
		case decided || (!namesOK && names(ev)) || (strict && len(namedMessages(ev)) > 0):
			return scanBlocked
		}
	}
	return scanOpen
}

// closedBy reports whether the group may be written as chunk events before
// rev: something closes the chunk stream as the group's end did, or nothing
// does and it stays open to the end of the stream, which builds the same
// message. A group without an end (ended false) may be written as chunks
// only at the end of the stream.
func (g *group) closedBy(rev []event.Event, ended, strict bool) bool {
	if !ended {
		for _, ev := range rev {
			if ev != nil {
				return false
			}
		}
		return true
	}
	r := g.scan(rev, strict, false)
	return r == scanCloses || r == scanOpen
}

// quietBetween reports whether between (reversed) is short and holds
// nothing that closes the group's chunk stream. The stream was open across
// these events in the input, sealed at a barrier among them: events naming
// its messages may be there (unless strict).
func (g *group) quietBetween(between []event.Event, strict bool) bool {
	return len(between) <= closeLookahead && g.scan(between, strict, !strict) == scanOpen
}

// chunkID is the id of the group's stream.
func (g *group) chunkID() string { return g.streamID() }

// streamID is the message or tool call id of the group's stream.
func (g *group) streamID() string {
	for _, ev := range []event.Event{g.start, g.content, g.end} {
		if key, _, ok := streamOf(ev); ok {
			return key.id
		}
	}
	return ""
}

// render returns the group's events: start (with all the metadata), the
// joined content (in several events when one would be larger than
// opts.MaxEventSize), end; for an activity group, one ACTIVITY_SNAPSHOT
// creating the message as its events leave it. For a stream with a start it
// also returns the same as chunk events: one per content piece (the first
// with all the metadata and the start's fields), or one without a delta.
func (g *group) render(opts Options) (evs, chunks []event.Event, err error) {
	if g.kind == gActivity {
		if len(g.activity) == 1 {
			return g.activity, nil, nil
		}
		// A replay of events the whole stream applied within its budgets
		// (this part cost no more there): the per-patch bound as it was,
		// the conversation's budgets not again.
		c, err := fromEvents(g.activity, Options{MaxPatchWork: opts.MaxPatchWork, WorkBudget: -1, CopyBudget: -1, MemoryBudget: -1})
		if err != nil {
			return nil, nil, err
		}
		m := c.Messages()[0]
		return []event.Event{&event.ActivitySnapshot{Base: event.Base{Metadata: m.Metadata}, MessageID: m.ID,
			ActivityType: *m.ActivityType, Content: m.ActivityContent, SubagentRunID: m.SubagentRunID}}, nil, nil
	}
	meta := g.meta
	if !g.hasMeta {
		meta = nil
	}
	metaPlaced := false
	place := func() event.Base {
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
			c.Base = place()
			evs = append(evs, &c)
		case *event.ReasoningMessageStart:
			c := *s
			c.Base = place()
			evs = append(evs, &c)
		case *event.ToolCallStart:
			c := *s
			c.Base = place()
			evs = append(evs, &c)
		}
	}
	var pieces []string
	if g.content != nil {
		content := func(b event.Base, d string) event.Event {
			switch s := g.content.(type) {
			case *event.TextMessageContent:
				return &event.TextMessageContent{Base: b, MessageID: s.MessageID, Delta: d, SubagentRunID: s.SubagentRunID}
			case *event.ReasoningMessageContent:
				return &event.ReasoningMessageContent{Base: b, MessageID: s.MessageID, Delta: d, SubagentRunID: s.SubagentRunID}
			}
			s := g.content.(*event.ToolCallArgs)
			return &event.ToolCallArgs{Base: b, ToolCallID: s.ToolCallID, Delta: d, SubagentRunID: s.SubagentRunID}
		}
		first := place()
		overhead := 0
		if opts.MaxEventSize > 0 {
			// The largest event a piece goes into, without the piece: the
			// first content event, or the first chunk.
			overhead, err = eventSize(content(first, ""))
			if err == nil && g.start != nil {
				var cs []event.Event
				if _, cs, err = (&group{kind: g.kind, start: g.start, meta: meta, hasMeta: g.hasMeta, content: g.content}).render(Options{}); err == nil {
					var n int
					n, err = eventSize(cs[0])
					overhead = max(overhead, n)
				}
			}
			if err != nil {
				return nil, nil, err
			}
		}
		if pieces, err = splitDelta(string(g.deltas), opts.MaxEventSize, overhead); err != nil {
			return nil, nil, err
		}
		for i, p := range pieces {
			b := event.Base{}
			if i == 0 {
				b = first
			}
			evs = append(evs, content(b, p))
		}
	}
	if g.end != nil {
		switch s := g.end.(type) {
		case *event.TextMessageEnd:
			c := *s
			c.Base = place()
			evs = append(evs, &c)
		case *event.ReasoningMessageEnd:
			c := *s
			c.Base = place()
			evs = append(evs, &c)
		case *event.ToolCallEnd:
			c := *s
			c.Base = place()
			evs = append(evs, &c)
		}
	}
	if g.start == nil {
		return evs, nil, nil
	}
	if len(pieces) == 0 {
		pieces = []string{""}
	}
	for i := range pieces {
		var d *string
		if g.content != nil {
			d = &pieces[i]
		}
		b := event.Base{}
		if i == 0 {
			b.Metadata = meta
		}
		switch s := g.start.(type) {
		case *event.TextMessageStart:
			c := &event.TextMessageChunk{Base: b, MessageID: &s.MessageID, Delta: d, SubagentRunID: s.SubagentRunID}
			if i == 0 {
				c.Role, c.Name = s.Role, s.Name
			}
			chunks = append(chunks, c)
		case *event.ReasoningMessageStart:
			chunks = append(chunks, &event.ReasoningMessageChunk{Base: b, MessageID: &s.MessageID, Delta: d, SubagentRunID: s.SubagentRunID})
		case *event.ToolCallStart:
			c := &event.ToolCallChunk{Base: b, ToolCallID: &s.ToolCallID, Delta: d, SubagentRunID: s.SubagentRunID}
			if i == 0 {
				c.ToolCallName, c.ParentMessageID = &s.ToolCallName, s.ParentMessageID
			}
			chunks = append(chunks, c)
		}
	}
	return evs, chunks, nil
}

func isEnd(ev event.Event) bool {
	switch ev.(type) {
	case *event.TextMessageEnd, *event.ToolCallEnd, *event.ReasoningMessageEnd:
		return true
	}
	return false
}

// fits reports whether every event is within limit (0: no limit) as a
// binary frame's payload.
func fits(events []event.Event, limit int) bool {
	if limit <= 0 {
		return true
	}
	for _, ev := range events {
		if n, err := eventSize(ev); err != nil || n > limit {
			return false
		}
	}
	return true
}

// longerStream reports whether the items as decide wrote them give a
// stream more events than the input gave it.
func longerStream(items []item) bool {
	type count struct{ in, out int }
	n := map[groupKey]*count{}
	for _, it := range items {
		if it.g == nil || it.g.kind == gActivity {
			continue
		}
		key := groupKey{it.g.kind, it.g.streamID()}
		c := n[key]
		if c == nil {
			c = &count{}
			n[key] = c
		}
		c.in += it.g.inputs
		switch {
		case it.dropped:
		case it.chunked:
			c.out += len(it.chunks)
		default:
			c.out += len(it.long)
		}
	}
	for _, c := range n {
		if c.out > c.in {
			return true
		}
	}
	return false
}

func anyChunked(items []item) bool {
	for _, it := range items {
		if it.chunked {
			return true
		}
	}
	return false
}
