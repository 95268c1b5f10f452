package assemble

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/internal/jsonx"
)

// JSON Patch (RFC 6902), applied to the node tree of json.go.
//
// A patch is atomic: it applies every operation or, on the first failure,
// undoes what it did and leaves the document as it was (the TypeScript
// client applies a copy and keeps the original on failure; an undo log gives
// the same outcome without copying the state on every delta).
//
// Cost is bounded: every operation is charged for the work it does — one
// unit per path segment, per object member scanned, per array element
// shifted, per node copied or compared — and a patch whose charges exceed
// its budget (Options.MaxPatchWork, DefaultMaxPatchWork) stops with
// ErrPatchTooCostly and is undone; the work of all patches together is
// bounded by the conversation's work budget (Options.WorkBudget), and a patch
// that would go past it stops with ErrWorkBudget. What a patch spent is
// charged whether it applied or not.

// Errors of a failed patch. They arrive in a *PatchError that names the
// operation; test with errors.Is.
var (
	// ErrPatchInvalid: an operation that is not well formed (unknown op,
	// a path that is not a JSON Pointer, a missing value or from, a move
	// into its own child).
	ErrPatchInvalid = errors.New("invalid patch operation")
	// ErrPatchPath: the path (or from) does not name an existing location,
	// or an array index is out of range.
	ErrPatchPath = errors.New("path does not exist")
	// ErrPatchTest: a test operation found a different value.
	ErrPatchTest = errors.New("test failed")
	// ErrPatchTooCostly: the patch would do more work than its budget.
	ErrPatchTooCostly = errors.New("patch exceeds its work budget")
	// ErrCopyBudget: copy operations would create more nodes than the
	// conversation's copy budget (Options.CopyBudget) has left.
	ErrCopyBudget = errors.New("copy exceeds the conversation's copy budget")
)

// DefaultMaxPatchWork is the work budget of one patch when
// Options.MaxPatchWork is 0: about 16 million units (one unit is one path
// segment, object member scanned, array element shifted, or node copied or
// compared).
const DefaultMaxPatchWork = 1 << 24

// PatchError reports the operation of a JSON Patch that failed.
type PatchError struct {
	Index int    // the operation's position in the patch, from 0
	Op    string // its op
	Path  string // its path
	From  string // its from, for move and copy
	Err   error  // the reason: one of the ErrPatch* errors, wrapped with detail
}

func (e *PatchError) Error() string {
	s := fmt.Sprintf("patch operation %d (%s %q", e.Index, e.Op, e.Path)
	if e.From != "" {
		s += fmt.Sprintf(" from %q", e.From)
	}
	return s + "): " + e.Err.Error()
}

func (e *PatchError) Unwrap() error { return e.Err }

type work struct {
	left int
	err  error // returned when left goes below 0; ErrPatchTooCostly when nil
}

func (w *work) spend(n int) error {
	if w == nil {
		return nil
	}
	w.left -= n
	if w.left < 0 {
		if w.err != nil {
			return w.err
		}
		return ErrPatchTooCostly
	}
	return nil
}

// undo entries, replayed in reverse on failure.
type undo struct {
	op  uint8 // undoObjRestore, undoObjTruncate, undoObjInsert, undoArrRemove, undoArrInsert, undoArrSet, undoRoot
	n   *node
	i   int
	m   jsonx.Member
	old *node
}

const (
	undoObjRestore  uint8 = iota // n.Members[i].Value = old
	undoObjTruncate              // drop the last member (it was appended)
	undoObjInsert                // insert m at i
	undoArrRemove                // remove element i
	undoArrInsert                // insert old at i
	undoArrSet                   // n.Elems[i] = old
	undoRoot                     // *root = old
)

type patcher struct {
	root   *node
	w      work
	copies work // what copy operations may still create
	alloc  int64
	log    []undo
}

// limits are the budgets a patch runs under, and what it spent. The zero
// value bounds the work by DefaultMaxPatchWork and nothing else.
type limits struct {
	bounded bool  // copies and mem below are bounds
	work    int   // this patch's work budget; 0 means DefaultMaxPatchWork unless bounded
	workErr error // the error when it runs out; ErrPatchTooCostly when nil
	copies  int   // nodes copy operations may create
	mem     int64 // bytes the values the patch brings may occupy

	// Filled in by the patch, applied or not.
	spent  int   // work done
	copied int   // nodes copied (0 when the patch failed)
	added  int64 // memory of the values it brought (0 when it failed)
}

// applyPatch applies ops to *doc atomically. *doc may be nil (absent),
// which only an operation on the root path can change.
func applyPatch(doc **node, ops []event.PatchOp, lim *limits) error {
	return applyPatchTo(doc, ops, lim, nil)
}

// applyPatchTo is applyPatch with a check of the result: when check fails
// the patch is undone and check's error returned.
func applyPatchTo(doc **node, ops []event.PatchOp, lim *limits, check func(*node) error) error {
	budget := lim.work
	if budget <= 0 && !lim.bounded {
		budget = DefaultMaxPatchWork
	}
	p := patcher{root: *doc, w: work{left: budget, err: lim.workErr}, copies: work{left: 1<<62 - 1, err: ErrCopyBudget}}
	if lim.bounded {
		p.copies.left = lim.copies
	}
	defer func() { lim.spent = budget - max(p.w.left, 0) }()
	for i := range ops {
		op := &ops[i]
		if err := p.apply(op); err != nil {
			p.rollback()
			pe := &PatchError{Index: i, Op: op.Op, Path: op.Path, Err: err}
			if op.From != nil {
				pe.From = *op.From
			}
			return pe
		}
	}
	if lim.bounded && p.alloc > lim.mem {
		p.rollback()
		return fmt.Errorf("%w: the patch brings %d bytes of values", ErrMemoryBudget, p.alloc)
	}
	if check != nil {
		if err := check(p.root); err != nil {
			p.rollback()
			return err
		}
	}
	*doc = p.root
	lim.copied = lim.copies - p.copies.left
	if !lim.bounded {
		lim.copied = 0
	}
	lim.added = p.alloc
	return nil
}

func (p *patcher) rollback() {
	for i := len(p.log) - 1; i >= 0; i-- {
		u := p.log[i]
		switch u.op {
		case undoObjRestore:
			u.n.Members[u.i].Value = u.old
		case undoObjTruncate:
			u.n.Members = u.n.Members[:len(u.n.Members)-1]
		case undoObjInsert:
			u.n.Members = append(u.n.Members, jsonx.Member{})
			copy(u.n.Members[u.i+1:], u.n.Members[u.i:])
			u.n.Members[u.i] = u.m
		case undoArrRemove:
			u.n.Elems = append(u.n.Elems[:u.i], u.n.Elems[u.i+1:]...)
		case undoArrInsert:
			u.n.Elems = append(u.n.Elems, nil)
			copy(u.n.Elems[u.i+1:], u.n.Elems[u.i:])
			u.n.Elems[u.i] = u.old
		case undoArrSet:
			u.n.Elems[u.i] = u.old
		case undoRoot:
			p.root = u.old
		}
	}
	p.log = nil
}

// pointer splits a JSON Pointer into its unescaped reference tokens.
func pointer(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	if s[0] != '/' {
		return nil, fmt.Errorf("%w: pointer %q does not start with /", ErrPatchInvalid, s)
	}
	toks := strings.Split(s[1:], "/")
	for i, t := range toks {
		if !strings.Contains(t, "~") {
			continue
		}
		var b strings.Builder
		for j := 0; j < len(t); j++ {
			if t[j] != '~' {
				b.WriteByte(t[j])
				continue
			}
			if j+1 < len(t) && (t[j+1] == '0' || t[j+1] == '1') {
				b.WriteByte("~/"[t[j+1]-'0'])
				j++
				continue
			}
			return nil, fmt.Errorf("%w: pointer %q has a ~ not followed by 0 or 1", ErrPatchInvalid, s)
		}
		toks[i] = b.String()
	}
	return toks, nil
}

// arrayIndex parses an array index token: digits without leading zeros.
func arrayIndex(tok string) (int, bool) {
	if tok == "" || len(tok) > 9 || (len(tok) > 1 && tok[0] == '0') {
		return 0, false
	}
	n := 0
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// resolve walks toks from the root and returns the node they name.
func (p *patcher) resolve(toks []string, path string) (*node, error) {
	n := p.root
	if n == nil {
		return nil, fmt.Errorf("%w: %q (the document is absent)", ErrPatchPath, path)
	}
	for _, t := range toks {
		if err := p.w.spend(1); err != nil {
			return nil, err
		}
		switch n.Kind {
		case jsonx.Object:
			if err := p.w.spend(len(n.Members)); err != nil {
				return nil, err
			}
			i := n.Index(t)
			if i < 0 {
				return nil, fmt.Errorf("%w: %q (no member %q)", ErrPatchPath, path, t)
			}
			n = n.Members[i].Value
		case jsonx.Array:
			i, ok := arrayIndex(t)
			if !ok || i >= len(n.Elems) {
				return nil, fmt.Errorf("%w: %q (no element %q in an array of %d)", ErrPatchPath, path, t, len(n.Elems))
			}
			n = n.Elems[i]
		default:
			return nil, fmt.Errorf("%w: %q (%q is inside a scalar)", ErrPatchPath, path, t)
		}
	}
	return n, nil
}

func (p *patcher) value(op *event.PatchOp) (*node, error) {
	if op.Value == nil {
		return nil, fmt.Errorf("%w: %s needs a value", ErrPatchInvalid, op.Op)
	}
	v, err := parseValue(op.Value)
	if err != nil {
		return nil, fmt.Errorf("%w: value: %w", ErrPatchInvalid, err)
	}
	size, _ := v.Size()
	p.alloc += int64(size)
	return v, nil
}

func (p *patcher) from(op *event.PatchOp) ([]string, error) {
	if op.From == nil {
		return nil, fmt.Errorf("%w: %s needs a from", ErrPatchInvalid, op.Op)
	}
	return pointer(*op.From)
}

func (p *patcher) apply(op *event.PatchOp) error {
	toks, err := pointer(op.Path)
	if err != nil {
		return err
	}
	switch op.Op {
	case "add":
		v, err := p.value(op)
		if err != nil {
			return err
		}
		return p.add(toks, op.Path, v)
	case "remove":
		_, err := p.remove(toks, op.Path)
		return err
	case "replace":
		v, err := p.value(op)
		if err != nil {
			return err
		}
		return p.replace(toks, op.Path, v)
	case "move":
		ftoks, err := p.from(op)
		if err != nil {
			return err
		}
		if *op.From == op.Path {
			_, err := p.resolve(ftoks, *op.From)
			return err
		}
		if strings.HasPrefix(op.Path, *op.From+"/") {
			return fmt.Errorf("%w: cannot move %q into its own child %q", ErrPatchInvalid, *op.From, op.Path)
		}
		v, err := p.remove(ftoks, *op.From)
		if err != nil {
			return err
		}
		return p.add(toks, op.Path, v)
	case "copy":
		ftoks, err := p.from(op)
		if err != nil {
			return err
		}
		src, err := p.resolve(ftoks, *op.From)
		if err != nil {
			return err
		}
		v, err := clone(src, &p.w, &p.copies)
		if err != nil {
			return err
		}
		size, _ := v.Size()
		p.alloc += int64(size)
		return p.add(toks, op.Path, v)
	case "test":
		v, err := p.value(op)
		if err != nil {
			return err
		}
		got, err := p.resolve(toks, op.Path)
		if err != nil {
			return err
		}
		eq, err := equal(got, v, &p.w)
		if err != nil {
			return err
		}
		if !eq {
			return fmt.Errorf("%w: %q is %s, not %s", ErrPatchTest, op.Path, clip(got.AppendJSON(nil)), clip(op.Value))
		}
		return nil
	}
	return fmt.Errorf("%w: unknown op %q", ErrPatchInvalid, op.Op)
}

func clip(b []byte) string {
	if len(b) > 64 {
		return string(b[:61]) + "..."
	}
	return string(b)
}

// add places v at toks: the root, a member (replaced in place or appended),
// or an array position (inserted; "-" appends).
func (p *patcher) add(toks []string, path string, v *node) error {
	if len(toks) == 0 {
		p.log = append(p.log, undo{op: undoRoot, old: p.root})
		p.root = v
		return nil
	}
	parent, err := p.resolve(toks[:len(toks)-1], path)
	if err != nil {
		return err
	}
	last := toks[len(toks)-1]
	switch parent.Kind {
	case jsonx.Object:
		if err := p.w.spend(len(parent.Members)); err != nil {
			return err
		}
		if i := parent.Index(last); i >= 0 {
			p.log = append(p.log, undo{op: undoObjRestore, n: parent, i: i, old: parent.Members[i].Value})
			parent.Members[i].Value = v
			return nil
		}
		p.log = append(p.log, undo{op: undoObjTruncate, n: parent})
		parent.Members = append(parent.Members, jsonx.Member{Key: last, Value: v})
		return nil
	case jsonx.Array:
		i := len(parent.Elems)
		if last != "-" {
			var ok bool
			if i, ok = arrayIndex(last); !ok || i > len(parent.Elems) {
				return fmt.Errorf("%w: %q (cannot add at %q in an array of %d)", ErrPatchPath, path, last, len(parent.Elems))
			}
		}
		if err := p.w.spend(len(parent.Elems) - i); err != nil {
			return err
		}
		p.log = append(p.log, undo{op: undoArrRemove, n: parent, i: i})
		parent.Elems = append(parent.Elems, nil)
		copy(parent.Elems[i+1:], parent.Elems[i:])
		parent.Elems[i] = v
		return nil
	}
	return fmt.Errorf("%w: %q (the parent is not an object or array)", ErrPatchPath, path)
}

// remove deletes the value at toks and returns it.
func (p *patcher) remove(toks []string, path string) (*node, error) {
	if len(toks) == 0 {
		if p.root == nil {
			return nil, fmt.Errorf("%w: %q (the document is absent)", ErrPatchPath, path)
		}
		old := p.root
		p.log = append(p.log, undo{op: undoRoot, old: old})
		p.root = nil
		return old, nil
	}
	parent, err := p.resolve(toks[:len(toks)-1], path)
	if err != nil {
		return nil, err
	}
	last := toks[len(toks)-1]
	switch parent.Kind {
	case jsonx.Object:
		if err := p.w.spend(len(parent.Members)); err != nil {
			return nil, err
		}
		i := parent.Index(last)
		if i < 0 {
			return nil, fmt.Errorf("%w: %q (no member %q)", ErrPatchPath, path, last)
		}
		m := parent.Members[i]
		p.log = append(p.log, undo{op: undoObjInsert, n: parent, i: i, m: m})
		parent.Members = append(parent.Members[:i], parent.Members[i+1:]...)
		return m.Value, nil
	case jsonx.Array:
		i, ok := arrayIndex(last)
		if !ok || i >= len(parent.Elems) {
			return nil, fmt.Errorf("%w: %q (no element %q in an array of %d)", ErrPatchPath, path, last, len(parent.Elems))
		}
		if err := p.w.spend(len(parent.Elems) - i); err != nil {
			return nil, err
		}
		old := parent.Elems[i]
		p.log = append(p.log, undo{op: undoArrInsert, n: parent, i: i, old: old})
		parent.Elems = append(parent.Elems[:i], parent.Elems[i+1:]...)
		return old, nil
	}
	return nil, fmt.Errorf("%w: %q (the parent is not an object or array)", ErrPatchPath, path)
}

// replace puts v in place of the existing value at toks, keeping a member's
// position in its object.
func (p *patcher) replace(toks []string, path string, v *node) error {
	if len(toks) == 0 {
		if p.root == nil {
			return fmt.Errorf("%w: %q (the document is absent)", ErrPatchPath, path)
		}
		p.log = append(p.log, undo{op: undoRoot, old: p.root})
		p.root = v
		return nil
	}
	parent, err := p.resolve(toks[:len(toks)-1], path)
	if err != nil {
		return err
	}
	last := toks[len(toks)-1]
	switch parent.Kind {
	case jsonx.Object:
		if err := p.w.spend(len(parent.Members)); err != nil {
			return err
		}
		i := parent.Index(last)
		if i < 0 {
			return fmt.Errorf("%w: %q (no member %q)", ErrPatchPath, path, last)
		}
		p.log = append(p.log, undo{op: undoObjRestore, n: parent, i: i, old: parent.Members[i].Value})
		parent.Members[i].Value = v
		return nil
	case jsonx.Array:
		i, ok := arrayIndex(last)
		if !ok || i >= len(parent.Elems) {
			return fmt.Errorf("%w: %q (no element %q in an array of %d)", ErrPatchPath, path, last, len(parent.Elems))
		}
		p.log = append(p.log, undo{op: undoArrSet, n: parent, i: i, old: parent.Elems[i]})
		parent.Elems[i] = v
		return nil
	}
	return fmt.Errorf("%w: %q (the parent is not an object or array)", ErrPatchPath, path)
}
