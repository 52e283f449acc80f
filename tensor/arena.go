package tensor

import (
	"hash/maphash"
	"unsafe"
)

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
//     text, which is copied into the arena before it is parsed (text);
//   - types are interned (see types), and the intern table keeps every
//     type it has handed out, with the element types and aliases it points
//     to;
//   - default values are in regArena.defaults, one of each (the
//     arguments share them; a Bind copies a list default);
//   - kernels are in regArena.kernels and keyKernels (Impl, ImplComposite
//     and ImplBackend put them there before storing them);
//   - slices (Args, Returns, backends, tensorArgs, mutates) point into the
//     blocks, which regArena.blocks keeps.
//
// A registered schema is never modified after registration (ParseSchema
// returns an ordinary, collected Schema for every other use), and opTables
// is unexported and written only under regMu by the functions above.
// Writing a pointer to anything else into either would leave that thing
// unreachable to the collector.
type regArena struct {
	free       []uint64       // the unused words of the newest block
	blocks     [][]uint64     // every block
	defaults   map[string]any // by type and text
	kernels    []Kernel
	keyKernels []KeyKernel
}

// arenaBlockWords is the size of a block: 32 KB, about a tenth of what
// the registry takes.
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

// text returns a copy of s in the arena.
func (a *regArena) text(s string) string {
	if s == "" {
		return ""
	}
	b := unsafe.Slice((*byte)(a.words((len(s)+7)/8)), len(s))
	copy(b, s)
	return unsafe.String(&b[0], len(b))
}

// schema returns a copy of s, parsed from text (a text in the arena), in
// the arena, and keeps what it points to (see regArena).
func (a *regArena) schema(s *Schema, text string) *Schema {
	if s.text != text {
		s.text = a.text(s.text) // "aten::" was added to a text without a namespace
	}
	for i := range s.Args {
		arg := &s.Args[i]
		if arg.Default == nil {
			continue
		}
		// Defaults repeat (dim=-1, alpha=1, ...): one value of each is kept.
		key := arg.Type.String() + "=" + arg.DefaultStr
		if d, ok := a.defaults[key]; ok {
			arg.Default = d
			continue
		}
		if a.defaults == nil {
			a.defaults = map[string]any{}
		}
		a.defaults[key] = arg.Default
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
func (a *regArena) keep(k Kernel) { a.kernels = append(a.kernels, k) }

// keepKey is keep for the kernel of a dispatch key.
func (a *regArena) keepKey(k KeyKernel) { a.keyKernels = append(a.keyKernels, k) }

// opIndex finds the registered ops by name without a map of strings: its
// tables hold no pointers but list's, one per op, so that the collector
// has next to nothing to scan in them (see regArena).
type opIndex struct {
	list    []*Op            // in the order registered
	byHash  map[uint64]int32 // a name's hash -> 1 + its first entry
	entries []opEntry
}

// opEntry is one name of an op: its qualified name, or for a default
// overload also the name without ".default" (alias).
type opEntry struct {
	op    int32 // index in list
	next  int32 // 1 + the next entry of the same hash, or 0
	alias bool
}

var opSeed = maphash.MakeSeed()

func (e opEntry) name(x *opIndex) string {
	n := x.list[e.op].Name
	if e.alias {
		n = n[:len(n)-len(".default")]
	}
	return n
}

// find returns the entry of name, or -1.
func (x *opIndex) find(name string) int {
	for i := x.byHash[maphash.String(opSeed, name)]; i != 0; i = x.entries[i-1].next {
		if x.entries[i-1].name(x) == name {
			return int(i - 1)
		}
	}
	return -1
}

// lookup returns the op of name, or nil.
func (x *opIndex) lookup(name string) *Op {
	if i := x.find(name); i >= 0 {
		return x.list[x.entries[i].op]
	}
	return nil
}

// add names op by its name, or by the alias of its default overload. A
// name already given (an alias, since RegisterOp refuses a second op of
// one name) now names op.
func (x *opIndex) add(op *Op, alias bool) {
	if len(x.list) == 0 || x.list[len(x.list)-1] != op {
		x.list = append(x.list, op)
	}
	e := opEntry{op: int32(len(x.list) - 1), alias: alias}
	name := e.name(x)
	if i := x.find(name); i >= 0 {
		x.entries[i].op, x.entries[i].alias = e.op, e.alias
		return
	}
	if x.byHash == nil {
		x.byHash = map[uint64]int32{}
	}
	h := maphash.String(opSeed, name)
	e.next = x.byHash[h]
	x.entries = append(x.entries, e)
	x.byHash[h] = int32(len(x.entries))
}
