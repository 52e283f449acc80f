package tensor

import "unsafe"

// The registry's schemas are kept where the garbage collector does not
// scan them (issue 25).
//
// Every collection marks the live heap, and a program's live heap is mostly
// the op registry: some 600 parsed schemas with 1,800 arguments, each with a
// name, a type, a default and its text, every one a pointer word the
// collector loads and follows on every cycle. An eager loop of small ops
// allocates a collection's worth of results every few hundred calls, so each
// call paid for a share of marking the registry.
//
// A registered schema, its arguments and its returns are therefore copied
// into blocks allocated as []uint64: pointer-free memory, which the collector
// marks as one object and never scans. That is sound only because nothing a
// registered schema points to is kept alive by the schema alone:
//
//   - names, overloads and default texts are substrings of the schema's
//     text, and the text and the string it was parsed from are in
//     schemaArena.texts;
//   - types are interned (see types), and the intern table keeps every
//     type it has handed out, with the element types and aliases it points
//     to;
//   - default values are in schemaArena.defaults;
//   - Args and Returns point into the blocks, which schemaArena.blocks
//     keeps.
//
// A registered schema is never modified after registration (ParseSchema
// returns an ordinary, collected Schema for every other use). Writing a
// pointer to anything else into one would leave that thing unreachable to
// the collector.
type schemaArena struct {
	free     []uint64   // the unused words of the newest block
	blocks   [][]uint64 // every block
	texts    []string
	defaults []any
}

// arenaBlockWords is the size of a block: 32 KB, about a sixth of what the
// registry's schemas take.
const arenaBlockWords = 4 << 10

// words returns n zeroed, 8-byte aligned words of the arena.
func (a *schemaArena) words(n int) unsafe.Pointer {
	if n > len(a.free) {
		b := make([]uint64, max(n, arenaBlockWords))
		a.blocks = append(a.blocks, b)
		a.free = b
	}
	p := unsafe.Pointer(unsafe.SliceData(a.free))
	a.free = a.free[n:]
	return p
}

// arenaSlice copies src into the arena; nil when src is empty.
func arenaSlice[T Argument | Return](a *schemaArena, src []T) []T {
	if len(src) == 0 {
		return nil
	}
	var z T
	n := (len(src)*int(unsafe.Sizeof(z)) + 7) / 8
	dst := unsafe.Slice((*T)(a.words(n)), len(src))
	copy(dst, src)
	return dst
}

// schema returns a copy of s, parsed from text, in the arena, and keeps
// what it points to (see schemaArena).
func (a *schemaArena) schema(s *Schema, text string) *Schema {
	a.texts = append(a.texts, text, s.text)
	for i := range s.Args {
		if d := s.Args[i].Default; d != nil {
			a.defaults = append(a.defaults, d)
		}
	}
	c := (*Schema)(a.words(int(unsafe.Sizeof(Schema{})+7) / 8))
	*c = *s
	c.Args = arenaSlice(a, s.Args)
	c.Returns = arenaSlice(a, s.Returns)
	return c
}
