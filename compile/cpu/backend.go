package cpu

import (
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// Options configure the backend.
type Options struct {
	// TileElems is how many elements a tile of every group holds
	// (rounded down to whole rows, at least one row); 0 chooses per
	// group: one 4 KiB page of float32 for the groups that compute more
	// than they move, DefaultTileElems for the others (tilesize.go).
	TileElems int
	// NoFusion runs every node through the dispatcher (with the memory
	// plan): for comparisons and debugging.
	NoFusion bool
}

// DefaultTileElems is the tile of the groups that mostly move bytes: the
// power of two of float32 elements such that four registers of it fill the
// core's L2 cache (the L1 data cache where the CPU reports no L2), between
// 4K and 64K elements: 64K on a core with 1 MiB of L2. (On issue 24's
// chains, 32K- and 64K-element tiles ran 5-20% faster than 8K ones;
// bench/README.md.)
var DefaultTileElems = defaultTile()

func defaultTile() int {
	l1, l2, _ := asm.CacheSizes()
	budget := l2
	if l2 <= 0 {
		budget = l1
	}
	if budget <= 0 {
		budget = 256 << 10
	}
	n := budget / 4 / 4
	n = 1 << (bits.Len(uint(n)) - 1)
	return min(max(n, 4096), 65536)
}

// maxPlans bounds the plans a compiled graph keeps, one per layout of its
// inputs (a graph with dynamic dims sees several); past it, calls run the
// Eager backend's program.
const maxPlans = 8

// Backend compiles a graph for the CPU device with the default Options:
// pointwise chains and their reductions fused into tile programs, the
// other nodes run through the dispatcher, intermediates recycled. It is
// compile.Compile's default for graphs of CPU tensors (compile.DefaultBackend);
// pass it as compile.Options.Backend to ask for it explicitly.
func Backend(gm *fx.GraphModule, inputs []*tensor.Tensor) (compile.Runnable, error) {
	return New(Options{})(gm, inputs)
}

// Backend is compile.Compile's default for CPU tensors.
func init() { compile.RegisterCPUBackend(Backend) }

// New returns the backend with opts.
func New(opts Options) compile.Backend {
	return func(gm *fx.GraphModule, inputs []*tensor.Tensor) (compile.Runnable, error) {
		eager, err := compile.Eager(gm, inputs)
		if err != nil {
			return nil, err
		}
		c := &compiled{gm: gm, opts: opts, eager: eager}
		for _, name := range gm.AttrNames() {
			if t, ok := gm.Attr(name); ok {
				if t, ok := t.(*tensor.Tensor); ok && t.RequiresGrad() {
					c.attrGrad = true
				}
			}
		}
		if inputs != nil {
			c.planFor(inputs) // compile now; calls find it
		}
		return c.run, nil
	}
}

// Describe returns the plan the backend makes of gm for inputs: its
// dispatcher calls and the tile programs of its fusion groups.
func Describe(gm *fx.GraphModule, inputs []*tensor.Tensor, opts ...Options) (string, error) {
	o := Options{}
	if len(opts) > 0 {
		o = opts[0]
	}
	pl, err := makePlan(gm, inputs, o)
	if err != nil {
		return "", err
	}
	return pl.String(), nil
}

type compiled struct {
	gm       *fx.GraphModule
	opts     Options
	eager    compile.Runnable
	attrGrad bool
	mu       sync.Mutex
	plans    atomic.Pointer[[]sigPlan]
}

type sigPlan struct {
	sig  []inSig
	plan *plan // nil: the Eager backend's program
}

type inSig struct {
	dtype          tensor.DType
	sizes, strides []int
}

func signature(inputs []*tensor.Tensor) []inSig {
	s := make([]inSig, len(inputs))
	for i, x := range inputs {
		s[i] = inSig{x.DType(), slices.Clone(x.Sizes()), slices.Clone(x.Strides())}
	}
	return s
}

func (s *sigPlan) matches(inputs []*tensor.Tensor) bool {
	if len(inputs) != len(s.sig) {
		return false
	}
	for i, x := range inputs {
		q := &s.sig[i]
		if x.DType() != q.dtype || !slices.Equal(x.Sizes(), q.sizes) || !slices.Equal(x.Strides(), q.strides) {
			return false
		}
	}
	return true
}

// planFor returns the plan for inputs' layout, making it on first sight
// (nil when the graph is better left to the Eager backend).
func (c *compiled) planFor(inputs []*tensor.Tensor) *plan {
	if l := c.plans.Load(); l != nil {
		for i := range *l {
			if (*l)[i].matches(inputs) {
				return (*l)[i].plan
			}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var cur []sigPlan
	if l := c.plans.Load(); l != nil {
		cur = *l
		for i := range cur {
			if cur[i].matches(inputs) {
				return cur[i].plan
			}
		}
	}
	if len(cur) >= maxPlans {
		return nil
	}
	pl, err := makePlan(c.gm, inputs, c.opts)
	if err != nil {
		pl = nil
	}
	next := append(slices.Clone(cur), sigPlan{signature(inputs), pl})
	c.plans.Store(&next)
	return pl
}

// run is the Runnable.
func (c *compiled) run(inputs []*tensor.Tensor) (any, error) {
	for _, x := range inputs {
		if x == nil || x.Device() != tensor.CPU {
			return c.eager(inputs)
		}
	}
	if autograd.IsGradEnabled() {
		// Autograd records the dispatcher's calls: a graph computing
		// with tensors that require grad runs them.
		if c.attrGrad {
			return c.eager(inputs)
		}
		for _, x := range inputs {
			if x.RequiresGrad() {
				return c.eager(inputs)
			}
		}
	}
	pl := c.planFor(inputs)
	if pl == nil {
		return c.eager(inputs)
	}
	a := pl.pool.get(pl)
	defer pl.pool.put(a)
	return pl.run(inputs, a)
}

// makePlan builds a plan for inputs: each node's value layout is the one
// the trace recorded when the inputs are laid out as the trace's were,
// else the inputs' layouts are propagated through the graph on the meta
// device.
func makePlan(gm *fx.GraphModule, inputs []*tensor.Tensor, opts Options) (*plan, error) {
	vals, ok := traced(gm, inputs)
	if !ok {
		var err error
		if vals, err = propagate(gm, inputs); err != nil {
			return nil, err
		}
	}
	pp := &planner{gm: gm, vals: vals, tileElems: opts.TileElems, noFusion: opts.NoFusion}
	return pp.build()
}

// propagator is shape propagation into a map (the graph's own Meta is left
// as the trace made it).
type propagator struct {
	*fx.Interpreter
	vals map[*fx.Node]any
}

func (p *propagator) RunNode(n *fx.Node) (any, error) {
	v, err := p.Interpreter.RunNode(n)
	if err == nil {
		v = fx.ToMeta(v) // a factory op's result is made on the CPU
		p.vals[n] = v
	}
	return v, err
}

// traced returns the values the trace recorded in the nodes' Meta when
// every placeholder's matches its input's layout.
func traced(gm *fx.GraphModule, inputs []*tensor.Tensor) (map[*fx.Node]any, bool) {
	ph := gm.Graph.Placeholders()
	if len(ph) != len(inputs) {
		return nil, false
	}
	for i, p := range ph {
		t, ok := p.Meta[fx.MetaVal].(*tensor.Tensor)
		x := inputs[i]
		if !ok || t == nil || t.DType() != x.DType() || !slices.Equal(t.Sizes(), x.Sizes()) ||
			(x.Numel() > 1 && !slices.Equal(t.Strides(), x.Strides())) {
			return nil, false
		}
	}
	vals := map[*fx.Node]any{}
	for _, n := range gm.Graph.Nodes() {
		if v, ok := n.Meta[fx.MetaVal]; ok {
			vals[n] = v
		}
	}
	return vals, true
}

func (p *propagator) Placeholder(n *fx.Node, target string, args []any) (any, error) {
	v, err := p.Interpreter.Placeholder(n, target, args)
	return fx.ToMeta(v), err
}

func (p *propagator) GetAttr(n *fx.Node, target string) (any, error) {
	v, err := p.Interpreter.GetAttr(n, target)
	return fx.ToMeta(v), err
}

func propagate(gm *fx.GraphModule, inputs []*tensor.Tensor) (map[*fx.Node]any, error) {
	p := &propagator{fx.NewInterpreter(gm), map[*fx.Node]any{}}
	in := make([]any, len(inputs))
	for i, x := range inputs {
		in[i] = x
	}
	if _, err := fx.Run(p, in...); err != nil {
		return nil, err
	}
	return p.vals, nil
}
