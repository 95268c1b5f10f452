package codec

import (
	"hash/maphash"
	"slices"
)

// Duplicate keys are refused in every JSON object that becomes a Struct.
// A level of fewer than linearKeys keys is searched in order; from its
// linearKeys-th key on it has an open-addressing hash table of its keys
// (slots hold the key's index in the level, plus one; 0 is empty), kept at
// load factor ≤ 1/2. The tables of all open levels live in one slab that
// the pooled encoder reuses, so the check allocates nothing in steady
// state and costs a bounded amount per key from the first key to the
// ten-thousandth.
//
// A level only inserts a key after the values of its earlier keys, nested
// objects included, are finished, so its table is always the last one in
// the slab when it grows: growing is a rehash into a larger table at the
// same offset.

var keySeed = maphash.MakeSeed()

// linearKeys is how many keys a level holds before it is indexed: below
// it, comparing with every key costs less than hashing one.
const linearKeys = 8

// keyTable is one open level's table: slots[off : off+size] of the slab;
// its keys are keyEnds[first:] in the key arena.
type keyTable struct {
	off, size, first int
}

// openKeys starts the table of a new object level.
func (e *encoder) openKeys() {
	e.tables = append(e.tables, keyTable{off: len(e.slots), first: len(e.keyEnds)})
}

// closeKeys drops the innermost level's keys and table.
func (e *encoder) closeKeys() {
	t := e.tables[len(e.tables)-1]
	e.tables = e.tables[:len(e.tables)-1]
	e.slots = e.slots[:t.off]
	start := 0
	if t.first > 0 {
		start = e.keyEnds[t.first-1]
	}
	e.keys = e.keys[:start]
	e.keyEnds = e.keyEnds[:t.first]
}

// key returns key i of the arena.
func (e *encoder) key(i int) string {
	start := 0
	if i > 0 {
		start = e.keyEnds[i-1]
	}
	return string(e.keys[start:e.keyEnds[i]]) // compared only: no allocation
}

// duplicate reports whether the innermost level already has key, and
// records it if not.
func (e *encoder) duplicate(key string) bool {
	t := &e.tables[len(e.tables)-1]
	n := len(e.keyEnds) - t.first
	if t.size == 0 && n < linearKeys {
		// A small level is searched in order; its table is built when
		// it reaches linearKeys keys.
		start := 0
		if t.first > 0 {
			start = e.keyEnds[t.first-1]
		}
		for _, end := range e.keyEnds[t.first:] {
			if string(e.keys[start:end]) == key {
				return true
			}
			start = end
		}
		e.keys = append(e.keys, key...)
		e.keyEnds = append(e.keyEnds, len(e.keys))
		return false
	}
	if 2*(n+1) > t.size {
		e.growKeys(t, n)
	}
	mask := t.size - 1
	slots := e.slots[t.off : t.off+t.size]
	for i := int(maphash.String(keySeed, key)) & mask; ; i = (i + 1) & mask {
		s := slots[i]
		if s == 0 {
			slots[i] = uint32(n + 1)
			e.keys = append(e.keys, key...)
			e.keyEnds = append(e.keyEnds, len(e.keys))
			return false
		}
		if e.key(t.first+int(s)-1) == key {
			return true
		}
	}
}

// growKeys gives t (the last table in the slab) room for more than n keys
// and re-inserts its n keys.
func (e *encoder) growKeys(t *keyTable, n int) {
	size := max(8, t.size)
	for 2*(n+1) > size {
		size *= 2
	}
	e.slots = slices.Grow(e.slots[:t.off], size)[:t.off+size]
	slots := e.slots[t.off:]
	clear(slots)
	t.size = size
	mask := size - 1
	for k := range n {
		i := int(maphash.String(keySeed, e.key(t.first+k))) & mask
		for slots[i] != 0 {
			i = (i + 1) & mask
		}
		slots[i] = uint32(k + 1)
	}
}

// growEntryIndex gives the decoder's entry index at d.slots[top:] (the
// slab's last table, of size slots) room for more than len(level) keys,
// re-inserts level's keys and returns the new size.
func (d *decoder) growEntryIndex(top, size int, level []entry) int {
	size = max(8, size)
	for 2*(len(level)+1) > size {
		size *= 2
	}
	d.slots = slices.Grow(d.slots[:top], size)[:top+size]
	slots := d.slots[top:]
	clear(slots)
	mask := size - 1
	for k := range level {
		i := int(maphash.String(keySeed, level[k].key)) & mask
		for slots[i] != 0 {
			i = (i + 1) & mask
		}
		slots[i] = uint32(k + 1)
	}
	return size
}
