package transport

import (
	"bytes"
	"hash/maphash"
	"sync"

	"github.com/agwire/agwire/codec"
)

// Responses reading a run log write its events as they are stored, the
// codec's wire bytes: a binary response writes them as they are, an SSE
// response renders each as the codec's JSON. A response whose client stops
// reading holds what it is writing until its write deadline; were each
// response to render a large event for itself, every such client would hold
// a copy, and a hundred followers that never read the RUN_STARTED of an
// 8 MiB input would hold a hundred renderings of it. So the rendering of a
// large event is shared: the responses writing the same wire bytes with the
// same codec at the same time hold one rendering, made once (by the first
// of them, holding a CPU token, see heavy), reference-counted and let go
// when the last of them has written it. What N stalled readers of one
// event hold is then one rendering, not N; what stalled readers hold in
// all is at most one rendering per distinct large event being written,
// and at most one per reader (MaxReaders bounds them).

// shareFrom is the size of wire bytes from which an SSE rendering is
// shared: below it a response renders into its own buffer (at most
// jsonPerWireByte times this, and far less for any real event), which it
// keeps between events only up to keepBuf.
const shareFrom = 16 << 10

// rendering is the JSON of one event's wire bytes, shared.
type rendering struct {
	key  renderKey
	wire []byte        // what was rendered, to tell a hash collision from a match
	done chan struct{} // closed once json and err are set
	json []byte
	err  error
	refs int // the responses holding it; guarded by renderings.mu
}

// renderKey identifies a rendering: a hash of the wire bytes, their
// length, and the codec's options, which change the JSON.
type renderKey struct {
	hash uint64
	n    int
	opts renderOptions
}

// renderOptions are the options of a codec.Codec but Skipped, a function,
// which no key can compare: a codec with one renders alone (its callback
// is told of what its own decoding skips).
type renderOptions struct {
	profile         codec.Profile
	lossy           bool
	nonFiniteAsNull bool
	maxDepth        int
	dropUnknown     bool
	unsafeIntegers  bool
	memoryBudget    int
}

func optionsOf(c codec.Codec) renderOptions {
	return renderOptions{c.Profile, c.LossyNumbers, c.NonFiniteAsNull, c.MaxDepth, c.DropUnknownFields, c.UnsafeIntegers, c.MemoryBudget}
}

var renderings = struct {
	mu   sync.Mutex
	m    map[renderKey][]*rendering // more than one only on a hash collision
	seed maphash.Seed
}{m: map[renderKey][]*rendering{}, seed: maphash.MakeSeed()}

// sharedJSON returns the codec's JSON rendering of wire, shared with every
// other response rendering the same bytes with the same codec meanwhile,
// and the function that lets go of it, to be called once it is written.
// Its err is the codec's when the bytes do not render.
func sharedJSON(c codec.Codec, wire []byte) (*rendering, func()) {
	if c.Skipped != nil {
		r := &rendering{wire: wire, done: make(chan struct{})}
		r.render(c)
		return r, func() {}
	}
	key := renderKey{hash: maphash.Bytes(renderings.seed, wire), n: len(wire), opts: optionsOf(c)}
	renderings.mu.Lock()
	var r *rendering
	for _, have := range renderings.m[key] {
		if &have.wire[0] == &wire[0] || bytes.Equal(have.wire, wire) {
			r = have
			break
		}
	}
	first := r == nil
	if first {
		r = &rendering{key: key, wire: wire, done: make(chan struct{})}
		renderings.m[key] = append(renderings.m[key], r)
	}
	r.refs++
	renderings.mu.Unlock()

	if first {
		r.render(c)
	} else {
		<-r.done
	}
	return r, r.release
}

// render makes the rendering, holding a CPU token (decoding allocates
// several times the wire's size), and lets those waiting for it go, even
// should the codec panic.
func (r *rendering) render(c codec.Codec) {
	defer close(r.done)
	release := heavy(len(r.wire) * wireRenderCost)
	defer release()
	r.json, r.err = c.AppendJSONFromWire(nil, r.wire)
}

// release lets go of a response's hold on r; the last one forgets it.
func (r *rendering) release() {
	renderings.mu.Lock()
	defer renderings.mu.Unlock()
	if r.refs--; r.refs > 0 {
		return
	}
	list := renderings.m[r.key]
	for i, have := range list {
		if have == r {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(renderings.m, r.key)
	} else {
		renderings.m[r.key] = list
	}
}
