package cpu

import (
	"sync"
	"sync/atomic"

	"github.com/goaten/goaten/tensor"
)

// An arena is the memory one call of a plan works in, kept from call to
// call: the slots of the graph's values, the registers of the tile
// programs (one set per worker) and the storages of dead intermediates.
//
// Intermediates the graph reads outside a group (a group's value read by a
// matrix product, a product's result read by a group) are recycled: a
// storage made during the call by a step of the plan (not an input's, not
// a constant's) is owned by the arena while some slot holds a value on it;
// when the last such slot dies it goes to the free list, and the next new
// tensor of that many bytes — a group output, or any kernel's result
// through tensor.WithAllocator — takes it instead of new memory. A value
// the call returns never dies, so its storage is never reused. Warm calls
// thus allocate new memory only for what they return.
//
// A graph output's storage is new memory, or one that an earlier call's
// caller handed back (donated, below): the saved activations of a training
// graph's forward, once its backward has run.
type arena struct {
	vals    []any
	workers []*worker
	frames  []frame
	free    map[int][]*tensor.Storage
	owned   map[*tensor.Storage]int
	hookOn  bool // the allocator serves an intermediate: free storages first
	fresh   bool // the allocator serves a graph output: donated storages first
	don     *donated
	adopted int // bytes of outputs adopted in this call
	scratch []*tensor.Storage
	tracked []*tensor.Storage
	headers []*tensor.Tensor   // headers kept from call to call: reused view steps' (viewStep.reuse) and group outputs' (progOut.header)
	lists   []any              // the lists kept from call to call: reused view steps' (viewStep.li), out steps' tuples (outStep.li)
	outs    [][]*tensor.Tensor // the out steps' results (outStep.idx), for their kernels
	block   []any              // the calls' argument lists, where no call keeps its own (plan.hooked false)
}

// Storage is the tensor.Allocator: a free storage of nbytes, if any.
func (a *arena) Storage(nbytes int, zero bool) *tensor.Storage {
	var s *tensor.Storage
	if !a.fresh && !a.hookOn {
		return nil
	}
	// A graph output takes a donated storage first (the one its
	// counterpart of the last call left), an intermediate a free one; then
	// either takes the other kind. (A free storage is dead: a graph output
	// taking it leaves the arena with it. Without that, the results of a
	// step that returns some of its values and passes the others on, as
	// convolution_backward does, would pile up on the free list call
	// after call.)
	if a.fresh {
		if s = a.don.take(nbytes); s == nil {
			s = a.takeFree(nbytes)
		}
	} else if s = a.takeFree(nbytes); s == nil {
		s = a.don.take(nbytes)
	}
	if s == nil {
		return nil
	}
	if zero {
		clear(s.Bytes())
	}
	return s
}

// takeFree returns a free storage of nbytes, or nil.
func (a *arena) takeFree(nbytes int) *tensor.Storage {
	l := a.free[nbytes]
	if len(l) == 0 {
		return nil
	}
	s := l[len(l)-1]
	a.free[nbytes] = l[:len(l)-1]
	return s
}

// adopt makes the donated pool the Recycler (under the goroutine's storage
// tag, if any: see tensor.WithStorageTag) of the storages a successful call
// made that its results hold: those still owned when it ends (a result's,
// or the base of a result that is a view), and s, a fresh group output's.
func (a *arena) adopt(s *tensor.Storage) {
	if s.NBytes() >= tensor.AllocatorMin && s.Adopt(a.don) {
		a.adopted += s.NBytes()
	}
}

// donated holds a plan's storages handed back by its callers for its graph
// outputs, at most the bytes of outputs one call made (the largest so far).
type donated struct {
	mu    sync.Mutex
	free  map[int][]*tensor.Storage
	bytes atomic.Int64 // held (written under mu; read without it to skip an empty pool)
	cap   int          // the most bytes of adopted outputs one call has made
}

// Recycle is the tensor.Recycler: it keeps s for a later call's output.
func (d *donated) Recycle(s *tensor.Storage) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if int(d.bytes.Load())+s.NBytes() > d.cap {
		return // the collector takes it
	}
	if d.free == nil {
		d.free = map[int][]*tensor.Storage{}
	}
	d.free[s.NBytes()] = append(d.free[s.NBytes()], s)
	d.bytes.Add(int64(s.NBytes()))
}

// take returns a donated storage of nbytes, or nil.
func (d *donated) take(nbytes int) *tensor.Storage {
	if d.bytes.Load() == 0 {
		return nil // most plans are never handed anything back
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	l := d.free[nbytes]
	if len(l) == 0 {
		return nil
	}
	s := l[len(l)-1]
	l[len(l)-1] = nil
	d.free[nbytes] = l[:len(l)-1]
	d.bytes.Add(-int64(nbytes))
	return s
}

// made raises the cap to a call's adopted bytes.
func (d *donated) made(n int) {
	d.mu.Lock()
	d.cap = max(d.cap, n)
	d.mu.Unlock()
}

// storagesOf lists the CPU storages a value holds (into a.scratch).
func (a *arena) storagesOf(v any) []*tensor.Storage {
	a.scratch = a.scratch[:0]
	switch x := v.(type) {
	case *tensor.Tensor:
		if x != nil {
			if s := x.Storage(); s != nil {
				a.scratch = append(a.scratch, s)
			}
		}
	case []*tensor.Tensor:
		for _, t := range x {
			if t != nil {
				if s := t.Storage(); s != nil {
					a.scratch = append(a.scratch, s)
				}
			}
		}
	}
	return a.scratch
}

// track records the storages of v, the new value of a step that read the
// slots reads: one more live slot on each storage the arena owns; new
// storages (none of what the step read holds them) become owned.
func (a *arena) track(v any, reads []int) {
	a.tracked = append(a.tracked[:0], a.storagesOf(v)...)
	for _, s := range a.tracked {
		if s.NBytes() < tensor.AllocatorMin {
			continue
		}
		if c, ok := a.owned[s]; ok {
			a.owned[s] = c + 1
			continue
		}
		if a.readsStorage(s, reads) {
			continue // a view of an input or a constant
		}
		a.owned[s] = 1
	}
}

func (a *arena) readsStorage(s *tensor.Storage, reads []int) bool {
	for _, r := range reads {
		for _, t := range a.storagesOf(a.vals[r]) {
			if t == s {
				return true
			}
		}
	}
	return false
}

// own records a storage the arena made for a step (a group's output).
func (a *arena) own(t *tensor.Tensor) {
	if s := t.Storage(); s != nil && s.NBytes() >= tensor.AllocatorMin {
		a.owned[s]++
	}
}

// release drops slot's value: a storage of it that the arena owns and no
// other slot holds goes to the free list.
func (a *arena) release(slot int) {
	v := a.vals[slot]
	a.vals[slot] = nil
	for _, s := range a.storagesOf(v) {
		c, ok := a.owned[s]
		if !ok {
			continue
		}
		if c > 1 {
			a.owned[s] = c - 1
			continue
		}
		delete(a.owned, s)
		a.free[s.NBytes()] = append(a.free[s.NBytes()], s)
	}
}

// workersFor returns n workers.
func (a *arena) workersFor(n int) []*worker {
	for len(a.workers) < n {
		a.workers = append(a.workers, &worker{})
	}
	return a.workers[:n]
}

// endCall forgets the call's values; storages still owned are held by the
// results (or by a failed call's values) and leave the arena.
func (a *arena) endCall() {
	clear(a.vals)
	for _, h := range a.headers {
		if h != nil {
			h.WithRaw(nil) // holds no storage between calls
		}
	}
	clear(a.owned)
	for _, o := range a.outs {
		clear(o) // a graph output's header is the caller's now
	}
	clear(a.block)
	a.hookOn, a.fresh = false, false
	if a.adopted > 0 {
		a.don.made(a.adopted)
		a.adopted = 0
	}
	for i := range a.frames {
		f := &a.frames[i]
		clear(f.in)
		clear(f.out)
		clear(f.in16)
		clear(f.out16)
		clear(f.in64)
		clear(f.out64)
		clear(f.in8)
	}
}

// arenaPool keeps a plan's arenas: one per concurrent call.
type arenaPool struct {
	mu   sync.Mutex
	idle []*arena
}

func (p *arenaPool) get(pl *plan) *arena {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		a := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return a
	}
	p.mu.Unlock()
	a := &arena{
		vals:    make([]any, pl.nslots),
		free:    map[int][]*tensor.Storage{},
		owned:   map[*tensor.Storage]int{},
		don:     &pl.donated,
		headers: make([]*tensor.Tensor, pl.nheaders),
		lists:   make([]any, pl.nlists),
		outs:    make([][]*tensor.Tensor, len(pl.outs)),
	}
	for i, n := range pl.outs {
		a.outs[i] = make([]*tensor.Tensor, n)
	}
	a.frames = make([]frame, len(pl.progs))
	for i, g := range pl.progs {
		a.frames[i] = frame{
			in:      make([][]float32, len(g.ins)),
			inOff:   make([]int, len(g.ins)),
			out:     make([][]float32, len(g.outs)),
			scalars: make([]float32, len(g.consts)),
			in16:    make([][]uint16, len(g.ins)),
			out16:   make([][]uint16, len(g.outs)),
			in64:    make([][]float64, len(g.ins)),
			out64:   make([][]float64, len(g.outs)),
			in8:     make([][]uint8, len(g.ins)),
			mid:     make([][]float64, len(g.mids)),
		}
		for j := range g.mids {
			a.frames[i].mid[j] = make([]float64, g.R)
		}
	}
	return a
}

func (p *arenaPool) put(a *arena) {
	p.mu.Lock()
	p.idle = append(p.idle, a)
	p.mu.Unlock()
}
