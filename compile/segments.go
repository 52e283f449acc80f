package compile

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// Segments instead of graph breaks. A Go function that reads tensor data
// (if loss.Item() > x {...}) cannot be one graph: the value decides which
// Go code runs next. PyTorch's Dynamo breaks the graph and resumes the
// bytecode; Go has no bytecode to resume, but the function itself can be
// re-run on lazy tensors. In segment mode each call runs fn on fake traced
// tensors; at a data-dependent read the graph recorded so far (a segment)
// is compiled — or found in the cache under its own guards — and run on the
// real values, its results become the real values of the traced tensors,
// the read gets its real value, and tracing goes on in a new segment whose
// inputs are the real values it uses. The function's results are the real
// values of its traced results. Fullgraph refuses all this.
//
// A function with effects on Go objects (a Backward, an optimizer step:
// effects.go) runs in segments too, its Go code on every call: the
// backward is traced into the segment, and each tensor a segment computes
// becomes real when the segment runs (materialize), so that the .grad and
// the optimizer state it stored hold real tensors. Each segment's graph
// records the grad-mode switches of its Go code and starts in the mode the
// Go code was in when the segment began.

// maxSegments bounds the segment cache of one compiled function.
const maxSegments = 256

// segmenter is the state of one call in segment mode.
type segmenter struct {
	c       *Compiled
	real    map[*tensor.Tensor]*tensor.Tensor // traced tensor -> real value, once its segment ran
	inputs  []*tensor.Tensor                  // real values of the current segment's placeholders
	made    []*tensor.Tensor                  // traced tensors the current segment computes
	writes  gradWrites                        // the real leaves whose .grad the call wrote
	proxyOf map[*tensor.Tensor]*tensor.Tensor // an input's traced tensor -> the input, until a segment made it

	k    int                  // the current segment's number in the call
	rep  *replay              // the tape the current segment follows (replay.go)
	info map[*fx.Node]*opInfo // what the current segment's op calls returned, for its tape

	stepped     bool // the current segment traced an optimizer step
	passthrough bool // the rest of the call runs eagerly (after an optimizer step, see stepMissLimit)
}

// stepMissLimit is how many calls in a row may compile a new graph for a
// segment with an optimizer step before the function's optimizer steps run
// eagerly, the segment ending at the step: an optimizer whose Go numbers
// change every step (Adam's bias corrections, burned into the graph)
// would otherwise compile a graph on every call. Eager steps give the same
// values (the same ops on the same tensors); an SGD step's graph is the
// same from the second call on and stays in the graph.
const stepMissLimit = 3

// eagerSteps reports whether c's optimizer steps run eagerly.
func (c *Compiled) eagerSteps() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stepMisses >= stepMissLimit
}

// noteStep counts the calls in a row whose segment with an optimizer step
// compiled a new graph.
func (s *segmenter) noteStep(miss bool) {
	if !s.stepped {
		return
	}
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	switch {
	case !miss:
		s.c.stepMisses = 0
	case s.c.stepMisses < stepMissLimit:
		s.c.stepMisses++
	}
}

// eager runs a call of op for real, in the part of a call that runs
// eagerly: the traced tensors among its arguments are their real values.
func (s *segmenter) eager(op *tensor.Op, args []any) any {
	realArgs := make([]any, len(args))
	for i, a := range args {
		switch x := a.(type) {
		case *tensor.Tensor:
			realArgs[i] = s.realOf(x)
		case []*tensor.Tensor:
			l := make([]*tensor.Tensor, len(x))
			for j, t := range x {
				l[j] = s.realOf(t)
			}
			realArgs[i] = l
		default:
			realArgs[i] = a
		}
	}
	defer tensor.ExcludeKey(tensor.KeyTrace)()
	return op.Redispatch(op.Dispatch(realArgs), tensor.KeyTrace, realArgs)
}

// input makes a placeholder of the current segment for t, a traced tensor
// an earlier segment computed (nothing when s is nil or t is not one).
func (s *segmenter) input(tr *tracer, t *tensor.Tensor) (*fx.Node, bool) {
	if s == nil {
		return nil, false
	}
	r, ok := s.real[t]
	if !ok {
		return nil, false
	}
	n := tr.gm.Graph.Placeholder(fmt.Sprintf("arg%d_1", len(s.inputs)))
	n.Meta[fx.MetaVal] = tr.exampleValue(t)
	tr.setNode(t, n)
	s.inputs = append(s.inputs, r)
	return n, true
}

// lift makes a placeholder of the current segment for t, a real tensor fn
// closes over (a parameter, a buffer, an optimizer's state, a .grad):
// the segment's graph takes the tensors it reads as inputs, as Dynamo
// lifts parameters and buffers, so that it serves the next call, whose Go
// code may hand it other tensor objects (a new .grad, a mask made afresh),
// and writes into the tensors of that call.
func (s *segmenter) lift(tr *tracer, t *tensor.Tensor) *fx.Node {
	n := tr.gm.Graph.Placeholder(fmt.Sprintf("arg%d_1", len(s.inputs)))
	n.Meta[fx.MetaVal] = tr.exampleValue(t)
	tr.consts[t] = n
	s.inputs = append(s.inputs, t)
	return n
}

// run ends the current segment: its graph returns every tensor it made, is
// compiled (or found) and run, and a new segment begins. A segment that
// replayed its tape to the end runs the tape's graph.
func (s *segmenter) run(tr *tracer) error {
	var outs []any
	var made []*tensor.Tensor
	index := make(map[*fx.Node]int, len(s.made))
	for _, t := range s.made {
		n := tr.proxies[t]
		if _, ok := index[n]; !ok {
			index[n] = len(outs)
			outs = append(outs, n)
		}
		made = append(made, t)
	}
	if s.rep != nil {
		if run, ok := s.replayEnd(tr, outs); ok {
			s.c.mu.Lock()
			s.c.stats.SegmentHits++
			s.c.stats.SegmentReplays++
			s.c.mu.Unlock()
			s.noteStep(false)
			res, err := runIn(run, s.inputs, tr.gradStart)
			if err != nil {
				return err
			}
			s.materialize(res, made, index, tr)
			s.next(tr)
			return nil
		}
		s.leaveReplay(tr)
		outs, index = rebuildOuts(tr, made) // the output's nodes are the copies

	}
	var kept *tape
	if len(outs) > 0 || switchesGrad(tr.gm) {
		tr.endGradMode()
		tr.gm.Graph.Output(outs)
		refake(tr.gm)
		res, run, miss, err := s.c.runSegment(tr.gm, s.inputs, tr.gradStart)
		if err != nil {
			return err
		}
		s.noteStep(miss)
		kept = s.makeTape(tr, run)
		s.materialize(res, made, index, tr)
	}
	s.keepTape(kept)
	s.next(tr)
	return nil
}

// rebuildOuts is the output list and node index of the tensors a segment
// made, from the tracer's nodes.
func rebuildOuts(tr *tracer, made []*tensor.Tensor) ([]any, map[*fx.Node]int) {
	var outs []any
	index := map[*fx.Node]int{}
	for _, t := range made {
		n := tr.proxies[t]
		if _, ok := index[n]; !ok {
			index[n] = len(outs)
			outs = append(outs, n)
		}
	}
	return outs, index
}

// materialize gives the tensors the segment made their real values, the
// results of its graph's run.
func (s *segmenter) materialize(res any, made []*tensor.Tensor, index map[*fx.Node]int, tr *tracer) {
	vals, _ := res.([]any)
	for _, t := range made {
		r, _ := vals[index[tr.proxies[t]]].(*tensor.Tensor)
		s.real[t] = r
	}
	// The traced tensors become their real values, wherever the Go
	// code has put them.
	for _, t := range made {
		if x, ok := s.proxyOf[t]; ok {
			// An input's traced tensor an in-place op made (an update
			// of a parameter passed in): the .grad the trace gave it (a
			// backward into it) goes to the input before the traced
			// tensor takes the result's autograd state, and the call's
			// end leaves the input's .grad alone.
			if g := t.Grad(); g != x.Grad() && t.RequiresGrad() {
				autograd.SetGrad(x, g)
			}
			delete(s.proxyOf, t)
		}
		materialize(t, s.real[t])
	}
}

// next begins a new segment.
func (s *segmenter) next(tr *tracer) {
	tr.gm = fx.NewGraphModule(fx.New())
	tr.gradStart = autograd.IsGradEnabled()
	tr.gradMode = tr.gradStart
	clear(tr.proxies)
	clear(tr.aliases)
	clear(tr.consts)
	// Unbacked symbols are the graph's: the new one numbers its own from
	// u0 (one call may run more loops with int carries than there are
	// symbols), and no hint stands for a node of the graph that ran.
	tr.unbacked = 0
	clear(tr.symNodes)
	s.inputs, s.made, s.info = nil, nil, nil
	s.stepped = false
	s.k++
	s.beginReplay(tr)
}

// breakAt is a data-dependent call in segment mode: the segment so far
// runs, then the call runs on the real values.
func (s *segmenter) breakAt(tr *tracer, op *tensor.Op, d tensor.Dispatch, args []any) any {
	if err := s.run(tr); err != nil {
		panic(asTensorError(err))
	}
	return s.eager(op, args)
}

func (s *segmenter) realOf(t *tensor.Tensor) *tensor.Tensor {
	if r, ok := s.real[t]; ok {
		return r
	}
	return t
}

func asTensorError(err error) *tensor.Error {
	if te, ok := tensor.AsError(err); ok {
		return te
	}
	return &tensor.Error{Kind: tensor.RuntimeError, Msg: err.Error()}
}

// callSegments runs fn in segment mode on the real inputs.
func (c *Compiled) callSegments(inputs []*tensor.Tensor) (res any, err error) {
	// The maps a call fills are made as large as the last call's.
	c.mu.Lock()
	hint := c.segHint
	c.mu.Unlock()
	s := &segmenter{c: c, real: make(map[*tensor.Tensor]*tensor.Tensor, hint), proxyOf: make(map[*tensor.Tensor]*tensor.Tensor, len(inputs))}
	tr := newTracer(Fake, c.opts.Decompositions)
	tr.proxies = make(map[*tensor.Tensor]*fx.Node, hint)
	tr.aliases = make(map[aliasKey]*fx.Node, hint)
	defer func() {
		c.mu.Lock()
		c.segHint = len(s.real)
		c.mu.Unlock()
	}()
	tr.seg = s
	tr.recordGrad = true
	tr.gradStart = autograd.IsGradEnabled()
	tr.gradMode = tr.gradStart
	s.beginReplay(tr)
	in := make([]reflect.Value, len(inputs))
	proxies := make([]*tensor.Tensor, len(inputs))
	for i, x := range inputs {
		p := tr.proxyInput(x)
		if g := x.Grad(); g != nil && p.RequiresGrad() {
			autograd.SetGrad(p, g) // a backward accumulates into the input's .grad
		}
		s.real[p] = x
		s.proxyOf[p] = x
		in[i] = reflect.ValueOf(p)
		proxies[i] = p
	}
	defer func() {
		if err != nil {
			// No trace-time tensor stays in a .grad.
			s.writes.undo(false)
		}
	}()
	err = tensor.Try(func() {
		defer tensor.IncludeKey(tensor.KeyTrace)()
		defer tensor.SetModeValue(tracerKey, tr)()
		defer autograd.SetEffectHooks(segmentHooks(s, tr))()
		out := reflect.ValueOf(c.fn).Call(in)
		if err := s.run(tr); err != nil {
			panic(asTensorError(err))
		}
		// An input's .grad the function changed (a backward into it).
		for i, p := range proxies {
			if _, ok := s.proxyOf[p]; !ok {
				continue // a segment made it: materialize gave its .grad over
			}
			if g := p.Grad(); g != inputs[i].Grad() && p.RequiresGrad() {
				autograd.SetGrad(inputs[i], g)
			}
		}
		vals := make([]reflect.Value, len(out))
		for i, v := range out {
			switch x := v.Interface().(type) {
			case *tensor.Tensor:
				vals[i] = reflect.ValueOf(s.realOf(x))
			case []*tensor.Tensor:
				l := make([]*tensor.Tensor, len(x))
				for j, t := range x {
					l[j] = s.realOf(t)
				}
				vals[i] = reflect.ValueOf(l)
			default:
				vals[i] = v
			}
		}
		res = results(vals)
	})
	return res, err
}

// runSegment runs a segment's graph on its inputs, compiling it on the
// first call with these guards: the graph's text, its inputs' dtypes,
// devices, sizes, strides and requires-grad, which inputs are one tensor or
// share data (a write into one shows in the other), the grad mode it
// starts in, and the constants it reads.
func (c *Compiled) runSegment(gm *fx.GraphModule, inputs []*tensor.Tensor, grad bool) (res any, run Runnable, miss bool, err error) {
	var key strings.Builder
	key.WriteString(graphKey(gm))
	same := map[*tensor.Tensor]int{}
	data := map[any]int{}
	for i, x := range inputs {
		fmt.Fprintf(&key, "|%s %s %v %v %d %v", x.DType(), x.Device(), x.Sizes(), x.Strides(), x.StorageOffset(), x.RequiresGrad())
		if j, ok := same[x]; ok {
			fmt.Fprintf(&key, " =%d", j)
		} else {
			same[x] = i
		}
		if k, ok := keyOf(x); ok {
			if j, ok := data[k.raw]; ok {
				fmt.Fprintf(&key, " ~%d", j)
			} else {
				data[k.raw] = i
			}
		}
	}
	for _, name := range gm.AttrNames() {
		v, _ := gm.Attr(name)
		fmt.Fprintf(&key, "|%s=%p", name, v)
	}
	fmt.Fprintf(&key, "|grad=%v", grad)
	k := key.String()
	c.mu.Lock()
	run, ok := c.segments[k]
	if !ok {
		miss = true
		c.unlockOnPanic(func() { run, err = c.opts.Backend(gm, inputs) })
		if err != nil {
			c.mu.Unlock()
			return nil, nil, miss, err
		}
		if c.segments == nil || len(c.segments) >= maxSegments {
			// A function whose graphs differ on every call (numbers of
			// its Go code baked in: Adam's bias corrections) makes new
			// keys every call: start over rather than grow.
			c.segments = map[string]Runnable{}
		}
		c.segments[k] = run
		c.stats.Segments++
	} else {
		c.stats.SegmentHits++
	}
	c.mu.Unlock()
	res, err = runIn(run, inputs, grad)
	return res, run, miss, err
}

// runIn runs a segment's compiled graph on its inputs, starting in grad
// mode grad.
func runIn(run Runnable, inputs []*tensor.Tensor, grad bool) (any, error) {
	// The segment runs for real, not into the trace of the next one.
	defer tensor.ExcludeKey(tensor.KeyTrace)()
	// In the grad mode the segment began in, which the Go code may have
	// left since (a segment run when fn returns from inside NoGrad code).
	defer autograd.SetGradEnabled(grad)()
	return run(inputs)
}

// graphKey identifies a segment's graph for the segment cache: two graphs
// with the same key have the same code (each node's opcode, name, target
// and arguments, a float by its bits). It is what gm.Code() would give for
// the key, without formatting Python: segment mode looks its graph up on
// every call. A graph with an argument of another kind is keyed by its
// code.
func graphKey(gm *fx.GraphModule) string {
	b := make([]byte, 0, 64*len(gm.Graph.Nodes()))
	for _, n := range gm.Graph.Nodes() {
		b = append(b, byte('0'+n.Op))
		b = append(b, n.Name...)
		b = append(b, ' ')
		switch t := n.Target.(type) {
		case *tensor.Op:
			b = append(b, t.Name...)
		case fx.Target:
			b = append(b, t.QualifiedName()...)
		case string:
			b = append(b, t...)
		default:
			return gm.Code()
		}
		b = append(b, '(')
		var ok bool
		for _, a := range n.Args() {
			if b, ok = appendArgKey(b, a); !ok {
				return gm.Code()
			}
		}
		for _, kw := range n.Kwargs() {
			b = append(b, kw.Name...)
			b = append(b, '=')
			if b, ok = appendArgKey(b, kw.Value); !ok {
				return gm.Code()
			}
		}
		b = append(b, ')', '\n')
	}
	return string(b)
}

// appendArgKey appends a node argument's key (false: a kind graphKey does
// not know).
func appendArgKey(b []byte, a any) ([]byte, bool) {
	ok := true
	switch v := a.(type) {
	case nil:
		b = append(b, 'N')
	case *fx.Node:
		if v == nil {
			b = append(b, 'N')
			break
		}
		b = append(b, '%')
		b = append(b, v.Name...)
	case bool:
		b = append(b, 'b')
		b = strconv.AppendBool(b, v)
	case int:
		b = append(b, 'i')
		b = strconv.AppendInt(b, int64(v), 10)
	case int64:
		b = append(b, 'l')
		b = strconv.AppendInt(b, v, 10)
	case float64:
		b = append(b, 'f')
		b = strconv.AppendUint(b, math.Float64bits(v), 16)
	case tensor.Scalar:
		switch {
		case v.IsBool():
			b = append(b, 'B')
			b = strconv.AppendBool(b, v.Bool())
		case v.IsFloat():
			b = append(b, 'F')
			b = strconv.AppendUint(b, math.Float64bits(v.Float64()), 16)
		default:
			b = append(b, 'I')
			b = strconv.AppendInt(b, v.Int64(), 10)
		}
	case string:
		b = append(b, 's')
		b = strconv.AppendQuote(b, v)
	case tensor.DType:
		b = append(b, 'd')
		b = append(b, v.String()...)
	case tensor.Device:
		b = append(b, 'D')
		b = append(b, v.String()...)
	case tensor.MemoryFormat:
		b = append(b, 'm')
		b = append(b, v.String()...)
	case tensor.Layout:
		b = append(b, 'L')
		b = append(b, v.String()...)
	case fx.Tuple:
		b = append(b, 'T')
		b, ok = appendListKey(b, v)
	case []any:
		b, ok = appendListKey(b, v)
	case []int:
		b = append(b, '[')
		for _, x := range v {
			b = strconv.AppendInt(b, int64(x), 10)
			b = append(b, ',')
		}
		b = append(b, ']')
	default:
		return b, false
	}
	b = append(b, ',')
	return b, ok
}

func appendListKey(b []byte, l []any) ([]byte, bool) {
	b = append(b, '[')
	for _, x := range l {
		var ok bool
		if b, ok = appendArgKey(b, x); !ok {
			return b, false
		}
	}
	return append(b, ']'), true
}
