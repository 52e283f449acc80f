package tensor

import "unsafe"

// The registry's schemas and dispatch tables are kept where the garbage
// collector does not scan them (issue 25).
//
// Every collection marks the live heap, and a program's live heap is mostly
// the op registry: some 600 parsed schemas with 1,800 arguments, each with a
// name, a type, a default and its text, and each op's kernels and argument
// indices, every one a pointer word the collector loads and follows on
// every cycle. An eager loop of small ops allocates a collection's worth of
// results every few hundred calls, so each call paid for a share of
// marking the registry.
//
// A registered schema (with its arguments and returns) and an op's
// opTables are therefore placed in blocks allocated as []uint64:
// pointer-free memory, which the collector marks as one object and never
// scans. That is sound only because nothing they point to is kept alive by
// them alone:
//
//   - names, overloads and default texts are substrings of the schema's
//     text, and the text and the string it was parsed from are in
//     regArena.texts;
//   - types are interned (see types), and the intern table keeps every
//     type it has handed out, with the element types and aliases it points
//     to;
//   - default values are in regArena.defaults;
//   - kernels are in regArena.kernels (Impl, ImplComposite and ImplBackend
//     put them there before storing them);
//   - slices (Args, Returns, backends, tensorArgs, mutates) point into the
//     blocks, which regArena.blocks keeps.
//
// A registered schema is never modified after registration (ParseSchema
// returns an ordinary, collected Schema for every other use), and opTables
// is unexported and written only under regMu by the functions above.
// Writing a pointer to anything else into either would leave that thing
// unreachable to the collector.
type regArena struct {
	free     []uint64   // the unused words of the newest block
	blocks   [][]uint64 // every block
	texts    []string
	defaults []any
	kernels  []any
}

// arenaBlockWords is the size of a block: 32 KB, about a sixth of what the
// registry's schemas take.
const arenaBlockWords = 4 << 10

// words returns n zeroed, 8-byte aligned words of the arena.
func (a *regArena) words(n int) unsafe.Pointer {
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
func arenaSlice[T Argument | Return | Kernel | int](a *regArena, src []T) []T {
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
func (a *regArena) schema(s *Schema, text string) *Schema {
	a.texts = append(a.texts, text, s.text)
	for i := range s.Args {
		if d := s.Args[i].Default; d != nil {
			a.defaults = append(a.defaults, d)
		}
	}
	c := arenaNew[Schema](a)
	*c = *s
	c.Args = arenaSlice(a, s.Args)
	c.Returns = arenaSlice(a, s.Returns)
	return c
}

// arenaNew returns a new zero T in the arena.
func arenaNew[T Schema | opTables](a *regArena) *T {
	var z T
	return (*T)(a.words(int(unsafe.Sizeof(z)+7) / 8))
}

// keep makes kernel k reachable for as long as the registry (see regArena).
func (a *regArena) keep(k any) { a.kernels = append(a.kernels, k) }
