package compile

import (
	"math"
	"reflect"
	"slices"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// Replaying a segment's trace. Segment mode runs fn's Go code on every
// call, on traced tensors, and looks the graph it records up in the cache.
// Most calls record the graph of the call before, node for node: a tape of
// each segment's trace is kept, and the next call's trace of the same
// segment is compared with it as it goes, op by op (the op, its arguments'
// nodes and values, the guards of each input the segment takes), instead of
// building a graph, computing each op's metadata and keying the cache with
// the whole graph. An op that matches returns fresh fakes with the
// metadata the tape recorded (the same op on inputs with the same metadata
// gives the same metadata), and the segment's end, if the whole tape
// matched, runs the tape's compiled graph. At the first difference the
// trace leaves the tape: the graph so far is the tape's nodes up to there,
// copied, and tracing goes on as without a tape (PyTorch's lazy tensors key
// their graphs by a hash of the IR recorded so far, computed as it grows;
// this is the same with the last graph as the only candidate).

// tape is a segment's trace, kept to replay the next call's.
type tape struct {
	nodes  []*fx.Node   // the graph's nodes, the output last
	info   []*opInfo    // per node: what the op's call returned (nil for other nodes)
	guards []inputGuard // per placeholder, in order
	grad   bool         // the grad mode the segment starts in
	run    Runnable
}

// opInfo is what one call of an op returned in the trace.
type opInfo struct {
	raw     []any // the call's arguments as nodeArgs made them, before normalize
	kind    resultKind
	results []resultInfo // the tensor results (one for a tensor)
	val     any          // a result that is no tensor
}

type resultKind uint8

const (
	resultValue resultKind = iota
	resultTensor
	resultList // its elements come out through getitem nodes
)

// resultInfo is one tensor result: none, one of the call's arguments (an
// in-place op's self), or a fresh fake with fake's metadata.
type resultInfo struct {
	none      bool
	arg, elem int // arg >= 0: args[arg] (elem >= 0: element elem of a list argument)
	fake      *tensor.Tensor
}

// inputGuard is what a segment's graph assumes of one input, as
// runSegment's key: its dtype, device and layout, whether it requires
// grad, and the earlier input it is or whose data it shares.
type inputGuard struct {
	dtype          tensor.DType
	device         tensor.Device
	sizes          []int
	strides        []int
	offset         int
	requiresGrad   bool
	sameAs, dataAs int // -1: none
}

func (g *inputGuard) equal(h *inputGuard) bool {
	return g.dtype == h.dtype && g.device == h.device && g.offset == h.offset &&
		g.requiresGrad == h.requiresGrad && g.sameAs == h.sameAs && g.dataAs == h.dataAs &&
		slices.Equal(g.sizes, h.sizes) && slices.Equal(g.strides, h.strides)
}

// guardState gives the guards of a segment's inputs, in order.
type guardState struct {
	n    int
	same map[*tensor.Tensor]int
	data map[any]int
}

func (s *guardState) guard(x *tensor.Tensor) inputGuard {
	if s.same == nil {
		s.same, s.data = map[*tensor.Tensor]int{}, map[any]int{}
	}
	g := inputGuard{dtype: x.DType(), device: x.Device(), sizes: x.Sizes(), strides: x.Strides(),
		offset: x.StorageOffset(), requiresGrad: x.RequiresGrad(), sameAs: -1, dataAs: -1}
	if j, ok := s.same[x]; ok {
		g.sameAs = j
	} else {
		s.same[x] = s.n
	}
	if raw := x.Raw(); raw != nil && reflect.TypeOf(raw).Comparable() {
		if j, ok := s.data[raw]; ok {
			g.dataAs = j
		} else {
			s.data[raw] = s.n
		}
	}
	s.n++
	return g
}

// replay is a segment's trace following a tape.
type replay struct {
	t   *tape
	pos int // the next node of the tape
	nin int // placeholders matched
	g   guardState
}

// noteCall records what a traced call of op returned (res, after
// fakeResults), for the tape of its segment.
func (s *segmenter) noteCall(n *fx.Node, res any, args, nargs []any) {
	one := func(t *tensor.Tensor) resultInfo {
		if t == nil {
			return resultInfo{none: true}
		}
		for i, a := range args {
			switch x := a.(type) {
			case *tensor.Tensor:
				if x == t {
					return resultInfo{arg: i, elem: -1}
				}
			case []*tensor.Tensor:
				for j, y := range x {
					if y == t {
						return resultInfo{arg: i, elem: j}
					}
				}
			}
		}
		return resultInfo{arg: -1, fake: fakeOf(t, t.Device())}
	}
	info := &opInfo{raw: cloneRaw(nargs)}
	switch r := res.(type) {
	case *tensor.Tensor:
		info.kind = resultTensor
		info.results = []resultInfo{one(r)}
	case []*tensor.Tensor:
		info.kind = resultList
		info.results = make([]resultInfo, len(r))
		for i, t := range r {
			info.results[i] = one(t)
		}
	default:
		info.val = res
	}
	if s.info == nil {
		s.info = map[*fx.Node]*opInfo{}
	}
	s.info[n] = info
}

// makeTape keeps the trace of the segment that just ran with run, when
// every node of its graph can be replayed: placeholders, op calls with
// their getitems, grad-mode switches, the output.
func (s *segmenter) makeTape(tr *tracer, run Runnable) *tape {
	if len(tr.gm.AttrNames()) > 0 {
		return nil
	}
	nodes := tr.gm.Graph.Nodes()
	t := &tape{nodes: nodes, info: make([]*opInfo, len(nodes)), grad: tr.gradStart, run: run}
	for i, n := range nodes {
		switch n.Op {
		case fx.OpPlaceholder, fx.OpOutput:
		case fx.OpCallFunction:
			switch n.Target {
			case SetGradEnabled:
			case fx.GetItem:
				src, _ := n.Args()[0].(*fx.Node)
				if in := s.info[src]; in == nil || in.kind != resultList {
					return nil
				}
			default:
				if t.info[i] = s.info[n]; t.info[i] == nil {
					return nil
				}
			}
		default:
			return nil
		}
	}
	var gs guardState
	for _, x := range s.inputs {
		t.guards = append(t.guards, gs.guard(x))
	}
	return t
}

// refake gives the nodes of a segment's graph example values of their own:
// the traced tensors they held become the real values of the segment's
// run (materialize), and a graph kept in the cache or as a tape would keep
// a call's data alive. Values that were one tensor, or shared data, still
// do.
func refake(gm *fx.GraphModule) {
	same := map[*tensor.Tensor]*tensor.Tensor{}
	raws := map[any]any{}
	one := func(t *tensor.Tensor) *tensor.Tensor {
		if t == nil {
			return nil
		}
		if c, ok := same[t]; ok {
			return c
		}
		c := fakeOf(t, t.Device())
		if raw := t.Raw(); raw != nil && reflect.TypeOf(raw).Comparable() {
			if r, ok := raws[raw]; ok {
				c.WithRaw(r)
			} else {
				raws[raw] = c.Raw()
			}
		}
		same[t] = c
		return c
	}
	for _, n := range gm.Graph.Nodes() {
		switch v := n.Meta[fx.MetaVal].(type) {
		case *tensor.Tensor:
			n.Meta[fx.MetaVal] = one(v)
		case []*tensor.Tensor:
			l := make([]*tensor.Tensor, len(v))
			for j, x := range v {
				l[j] = one(x)
			}
			n.Meta[fx.MetaVal] = l
		}
	}
}

// beginReplay starts the current segment on the tape the same segment of
// the last call left, if there is one for this grad mode.
func (s *segmenter) beginReplay(tr *tracer) {
	s.rep = nil
	s.c.mu.Lock()
	var t *tape
	if s.k < len(s.c.tapes) {
		t = s.c.tapes[s.k]
	}
	s.c.mu.Unlock()
	if t != nil && t.grad == tr.gradStart {
		s.rep = &replay{t: t}
	}
}

// keepTape stores t (nil: none) as the tape of the current segment; a
// call keeps at most maxSegments tapes, as the segment cache.
func (s *segmenter) keepTape(t *tape) {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	if s.k >= maxSegments || t == nil && s.k >= len(s.c.tapes) {
		return
	}
	for len(s.c.tapes) <= s.k {
		s.c.tapes = append(s.c.tapes, nil)
	}
	s.c.tapes[s.k] = t
}

// placeholder matches the tape's node at *pos against an input of the
// segment whose real value is x.
func (r *replay) placeholder(pos *int, nin int, x *tensor.Tensor) (*fx.Node, bool) {
	if *pos >= len(r.t.nodes) || nin >= len(r.t.guards) {
		return nil, false
	}
	n := r.t.nodes[*pos]
	if n.Op != fx.OpPlaceholder {
		return nil, false
	}
	if g := r.g.guard(x); !g.equal(&r.t.guards[nin]) {
		return nil, false
	}
	*pos++
	return n, true
}

// replayCall replays a traced call of op: it returns the call's result and
// true when the tape's next nodes are this call, and changes nothing
// otherwise.
func (s *segmenter) replayCall(tr *tracer, op *tensor.Op, args []any) (any, bool) {
	rep := s.rep
	t := rep.t
	pos := rep.pos
	if len(tr.symNodes) > 0 {
		return nil, false
	}
	type pending struct {
		t, real *tensor.Tensor
		n       *fx.Node
		lift    bool
	}
	var pend []pending
	ok := true
	one := func(x *tensor.Tensor) any {
		if x == nil || !ok {
			return nil
		}
		if n, found := tr.nodeOf(x); found {
			return n
		}
		for _, p := range pend {
			if p.t == x {
				return p.n
			}
		}
		if r, found := s.real[x]; found {
			n, matched := rep.placeholder(&pos, rep.nin+len(pend), r)
			if !matched {
				ok = false
				return nil
			}
			pend = append(pend, pending{t: x, real: r, n: n})
			return n
		}
		if _, fake := x.Raw().(*fakeStorage); x.IsWrappedNumber() && !fake {
			return wrappedValue(x)
		}
		if n, found := tr.consts[x]; found {
			return n
		}
		n, matched := rep.placeholder(&pos, rep.nin+len(pend), x)
		if !matched {
			ok = false
			return nil
		}
		pend = append(pend, pending{t: x, real: x, n: n, lift: true})
		return n
	}
	nargs := make([]any, len(args))
	for i, a := range args {
		switch x := a.(type) {
		case *tensor.Tensor:
			nargs[i] = one(x)
		case []*tensor.Tensor:
			l := make([]any, len(x))
			for j, y := range x {
				l[j] = one(y)
			}
			nargs[i] = l
		case tensor.ScriptObject:
			return nil, false
		default:
			nargs[i] = a
		}
		if !ok {
			return nil, false
		}
	}
	on := autograd.IsGradEnabled()
	switchGrad := tr.recordGrad && on != tr.gradMode
	if switchGrad {
		if !isGradSwitch(t, pos, on) {
			return nil, false
		}
		pos++
	}
	if pos >= len(t.nodes) {
		return nil, false
	}
	n := t.nodes[pos]
	info := t.info[pos]
	if n.Op != fx.OpCallFunction || info == nil || n.Target != any(op) {
		return nil, false
	}
	// The node's arguments are the normalized ones (normalize): the same
	// call arguments give the same node.
	if len(nargs) != len(info.raw) {
		return nil, false
	}
	for i, a := range nargs {
		if !rawEqual(a, info.raw[i]) {
			return nil, false
		}
	}
	pos++
	result := func(ri resultInfo) (*tensor.Tensor, bool) {
		switch {
		case ri.none:
			return nil, true
		case ri.arg < 0:
			return fakeOf(ri.fake, ri.fake.Device()), true
		case ri.arg >= len(args):
			return nil, false
		case ri.elem < 0:
			a, isT := args[ri.arg].(*tensor.Tensor)
			return a, isT
		}
		l, isL := args[ri.arg].([]*tensor.Tensor)
		if !isL || ri.elem >= len(l) {
			return nil, false
		}
		return l[ri.elem], true
	}
	var res any
	var getitems []*fx.Node
	switch info.kind {
	case resultValue:
		res = info.val
	case resultTensor:
		r, good := result(info.results[0])
		if !good {
			return nil, false
		}
		res = r
	case resultList:
		l := make([]*tensor.Tensor, len(info.results))
		for i, ri := range info.results {
			r, good := result(ri)
			if !good {
				return nil, false
			}
			l[i] = r
			if r == nil {
				continue
			}
			if pos >= len(t.nodes) {
				return nil, false
			}
			g := t.nodes[pos]
			if g.Op != fx.OpCallFunction || g.Target != fx.GetItem || len(g.Args()) != 2 || g.Args()[0] != any(n) || g.Args()[1] != any(i) {
				return nil, false
			}
			getitems = append(getitems, g)
			pos++
		}
		res = l
	}
	// The call matches: it happens.
	for _, p := range pend {
		s.inputs = append(s.inputs, p.real)
		if p.lift {
			tr.consts[p.t] = p.n
		} else {
			tr.setNode(p.t, p.n)
		}
	}
	rep.nin += len(pend)
	if switchGrad {
		tr.gradMode = on
	}
	rep.pos = pos
	switch r := res.(type) {
	case *tensor.Tensor:
		if r == nil {
			return r, true
		}
		out := tr.mark(r, args)
		tr.setNode(out, n)
		return out, true
	case []*tensor.Tensor:
		out := make([]*tensor.Tensor, len(r))
		k := 0
		for i, x := range r {
			if x == nil {
				continue
			}
			o := tr.mark(x, args)
			tr.setNode(o, getitems[k])
			k++
			out[i] = o
		}
		return out, true
	}
	return res, true
}

// isGradSwitch reports whether the tape's node at pos switches grad mode
// to on.
func isGradSwitch(t *tape, pos int, on bool) bool {
	if pos >= len(t.nodes) {
		return false
	}
	n := t.nodes[pos]
	return n.Op == fx.OpCallFunction && n.Target == SetGradEnabled && len(n.Args()) == 1 && n.Args()[0] == any(on)
}

// replayEnd ends a replayed segment: when the tape's last nodes are the
// end of this trace (a switch back to the starting grad mode, the output
// of the tensors it made), it returns the tape's compiled graph.
func (s *segmenter) replayEnd(tr *tracer, outs []any) (Runnable, bool) {
	rep := s.rep
	t := rep.t
	pos := rep.pos
	back := tr.recordGrad && tr.gradMode != tr.gradStart
	if back {
		if !isGradSwitch(t, pos, tr.gradStart) {
			return nil, false
		}
		pos++
	}
	if pos != len(t.nodes)-1 || rep.nin != len(t.guards) {
		return nil, false
	}
	n := t.nodes[pos]
	if n.Op != fx.OpOutput || len(n.Args()) != 1 || !argEqual(outs, n.Args()[0]) {
		return nil, false
	}
	if back {
		tr.gradMode = tr.gradStart
	}
	return t.run, true
}

// leaveReplay goes on tracing the current segment without its tape: the
// graph so far is the tape's nodes matched so far, copied.
func (s *segmenter) leaveReplay(tr *tracer) {
	rep := s.rep
	if rep == nil {
		return
	}
	s.rep = nil
	if tr.gm.Graph.Len() != 0 {
		tensor.Panicf("compile: internal error: a replayed segment's graph has nodes of its own")
	}
	g := fx.New()
	m := make(map[*fx.Node]*fx.Node, rep.pos)
	remap := func(x *fx.Node) *fx.Node { return m[x] }
	for i, n := range rep.t.nodes[:rep.pos] {
		c := g.CopyNode(n, remap)
		m[n] = c
		if in := rep.t.info[i]; in != nil {
			if s.info == nil {
				s.info = map[*fx.Node]*opInfo{}
			}
			cp := *in
			cp.raw = fx.MapArg(in.raw, func(x *fx.Node) any { return m[x] }).([]any)
			s.info[c] = &cp
		}
	}
	tr.gm = fx.NewGraphModule(g)
	for k, n := range tr.proxies {
		if c, ok := m[n]; ok {
			tr.proxies[k] = c
		}
	}
	for k, n := range tr.aliases {
		if c, ok := m[n]; ok {
			tr.aliases[k] = c
		}
	}
	for k, n := range tr.consts {
		if c, ok := m[n]; ok {
			tr.consts[k] = c
		}
	}
}

// rawEqual compares two calls' arguments as nodeArgs made them: nodes by
// identity, floats by their bits, lists element by element, other values
// by Go equality when their type has one; a kind it does not know is
// unequal.
func rawEqual(a, b any) bool {
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !rawEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case []int:
		y, ok := b.([]int)
		return ok && slices.Equal(x, y)
	case []bool:
		y, ok := b.([]bool)
		return ok && slices.Equal(x, y)
	case []float64:
		y, ok := b.([]float64)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				return false
			}
		}
		return true
	case *fx.Node, nil, float64, tensor.Scalar, fx.Tuple, bool, int, int64, string,
		tensor.DType, tensor.Device, tensor.MemoryFormat, tensor.Layout:
		return argEqual(a, b)
	}
	if a == nil || b == nil || reflect.TypeOf(a) != reflect.TypeOf(b) || !reflect.ValueOf(a).Comparable() || !reflect.ValueOf(b).Comparable() {
		return false
	}
	return a == b
}

// cloneRaw copies the slices among a call's arguments, which the Go code
// may change after the call (a buffer of sizes it reuses), so that the
// tape keeps the values the call had.
func cloneRaw(nargs []any) []any {
	out := make([]any, len(nargs))
	for i, a := range nargs {
		switch x := a.(type) {
		case []any:
			out[i] = cloneRaw(x)
		case []int:
			out[i] = slices.Clone(x)
		case []bool:
			out[i] = slices.Clone(x)
		case []float64:
			out[i] = slices.Clone(x)
		default:
			if v := reflect.ValueOf(a); v.Kind() == reflect.Slice {
				c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
				reflect.Copy(c, v)
				out[i] = c.Interface()
			} else {
				out[i] = a
			}
		}
	}
	return out
}

// argsEqual compares a call's normalized arguments with a node's.
func argsEqual(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !argEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// argEqual compares an argument of a call (a) with a node's (b, as the
// graph normalized it: lists as []any): nodes by identity, floats by their
// bits, other values by Go equality; a kind it does not know is unequal.
func argEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case *fx.Node:
		if x == nil {
			return b == nil
		}
		y, ok := b.(*fx.Node)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case tensor.Scalar:
		y, ok := b.(tensor.Scalar)
		if !ok || x.IsBool() != y.IsBool() || x.IsFloat() != y.IsFloat() {
			return false
		}
		switch {
		case x.IsBool():
			return x.Bool() == y.Bool()
		case x.IsFloat():
			return math.Float64bits(x.Float64()) == math.Float64bits(y.Float64())
		}
		return x.Int64() == y.Int64()
	case []any:
		y, ok := b.([]any)
		return ok && argsEqual(x, y)
	case fx.Tuple:
		y, ok := b.(fx.Tuple)
		return ok && argsEqual(x, y)
	case []int:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i, v := range x {
			if w, ok := y[i].(int); !ok || w != v {
				return false
			}
		}
		return true
	case bool, int, int64, string, tensor.DType, tensor.Device, tensor.MemoryFormat, tensor.Layout:
		return a == b
	}
	// Other typed lists ([]bool, []float64, ...), as the graph keeps them.
	if v := reflect.ValueOf(a); v.Kind() == reflect.Slice {
		y, ok := b.([]any)
		if !ok || v.Len() != len(y) {
			return false
		}
		for i := range y {
			if !argEqual(v.Index(i).Interface(), y[i]) {
				return false
			}
		}
		return true
	}
	return false
}
