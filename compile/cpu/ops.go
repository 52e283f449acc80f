package cpu

import (
	"math"
	"slices"

	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// The ops a tile program runs, and how each node of them is read. A node
// fuses only when its result is what the CPU device's own kernel computes
// with the same package asm kernel (device/cpu): float32 operands and
// result, the kernel device/cpu calls for float32, scalars converted as it
// converts them. Anything else runs through the dispatcher.

// nodeKind is what a fusable node does.
type nodeKind uint8

const (
	kUnary   nodeKind = iota // dst = f1(a), a package asm kernel
	kUnaryGo                 // dst = float32(fgo(float64(a))), device/cpu's float64 loop
	kBinary                  // dst = a op b, each a tensor or a scalar
	kAxpy                    // dst = alpha·b + a rounded once (add/sub with alpha ≠ ±1)
	kReduce                  // one value per row of the trailing dims
	kRowOp                   // softmax, log_softmax, layer_norm: rows to rows
	kItem                    // getitem of a fused native_layer_norm
	kClamp                   // dst = min(max(a, lo), hi)
	kLoad                    // dst = a converted from float16, bfloat16 or float64 (a read in place)
	kStore                   // dst (an output of dtype to) = a converted
	kWhere                   // dst = cond ? a : b (cond a bool input; masked_fill is where(mask, value, self))
	kGrad                    // dst = f2(grad, x): threshold_backward, sigmoid_backward, tanh_backward
	kMidSum                  // sum over outer and trailing dims (NCHW over 0, 2, 3): one value per kept element
)

type binOp uint8

const (
	bAdd binOp = iota
	bSub
	bMul
	bDiv
	bMax
	bMin
)

var binNames = [...]string{"add", "sub", "mul", "div", "maximum", "minimum"}

// Binary kernels: slice by slice, slice by scalar, scalar by slice (the
// commuting ops reuse slice by scalar).
var (
	binVV = [...]func(d, x, y []float32){asm.AddF32, asm.SubF32, asm.MulF32, asm.DivF32, asm.MaximumF32, asm.MinimumF32}
	binVS = [...]func(d, x []float32, s float32){asm.AddScalarF32, asm.SubScalarF32, asm.MulScalarF32, asm.DivScalarF32,
		asm.MaximumScalarF32, asm.MinimumScalarF32}
	binSV = [...]func(d, y []float32, s float32){
		asm.AddScalarF32,
		func(d, y []float32, s float32) { asm.ScalarSubF32(d, s, y) },
		asm.MulScalarF32,
		func(d, y []float32, s float32) { asm.ScalarDivF32(d, s, y) },
		func(d, y []float32, s float32) { asm.ScalarMaximumF32(d, s, y) },
		func(d, y []float32, s float32) { asm.ScalarMinimumF32(d, s, y) },
	}
)

type redOp uint8

const (
	rSum redOp = iota
	rMean
	rAmax
	rAmin
)

var redNames = [...]string{"sum", "mean", "amax", "amin"}

type rowOp uint8

const (
	oSoftmax rowOp = iota
	oLogSoftmax
	oLayerNorm
)

var rowNames = [...]string{"softmax", "log_softmax", "layer_norm"}

// unaryKernels are the ops device/cpu runs on float32 with a package asm
// kernel (gelu's two forms are read from its argument).
var unaryKernels = map[string]func(d, x []float32){
	"aten::exp":        asm.ExpF32,
	"aten::sigmoid":    asm.SigmoidF32,
	"aten::tanh":       asm.TanhF32,
	"aten::erf":        asm.ErfF32,
	"aten::log":        asm.LogF32,
	"aten::sqrt":       asm.SqrtF32,
	"aten::rsqrt":      asm.RsqrtF32,
	"aten::reciprocal": asm.ReciprocalF32,
	"aten::sin":        asm.SinF32,
	"aten::cos":        asm.CosF32,
	"aten::abs":        asm.AbsF32,
	"aten::neg":        asm.NegF32,
	"aten::relu":       asm.ReluF32,
	// clone into a contiguous result (classify fuses only contiguous
	// results): a copy, so a strided input's gather is the whole op —
	// the attention heads' transposes before a bmm.
	"aten::clone": func(d, x []float32) { copy(d, x) },
}

// unaryGo are the float unary ops device/cpu computes element by element
// in float64 for float32 (no SIMD kernel): the same function here, the
// same bits.
var unaryGo = map[string]func(float64) float64{
	"aten::acos":  math.Acos,
	"aten::acosh": math.Acosh,
	"aten::asin":  math.Asin,
	"aten::asinh": math.Asinh,
	"aten::atan":  math.Atan,
	"aten::atanh": math.Atanh,
	"aten::cosh":  math.Cosh,
	"aten::expm1": math.Expm1,
	"aten::log10": math.Log10,
	"aten::log1p": math.Log1p,
	"aten::log2":  math.Log2,
	"aten::sinh":  math.Sinh,
	"aten::tan":   math.Tan,
	"aten::sign": func(x float64) float64 { // (0 < x) - (x < 0): NaN and ±0 give +0
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return 0
	},
}

// operand is an input of a fusable node: a node's value, or a constant.
type operand struct {
	node *fx.Node // nil: the constant c
	c    float32
}

// spec is a fusable node, read.
type spec struct {
	kind  nodeKind
	name  string // for plans' descriptions
	f1    func(d, x []float32)
	f2    func(d, g, x []float32) // kGrad
	fgo   func(float64) float64
	bin   binOp
	alpha float32 // kAxpy
	red   redOp
	row   rowOp
	eps   float32 // layer_norm
	lo    float32 // kClamp
	hi    float32
	dtype tensor.DType // kLoad: the input's; kStore: the result's
	cond  *fx.Node     // kWhere
	ins   []operand    // a, b; reductions and row ops: the input; layer_norm: input, weight, bias (nil nodes: none)
	k     int          // reductions and row ops: trailing dims reduced
	item  int          // kItem
	outer int          // kMidSum: the outer blocks
	c     int          // kMidSum: the kept elements
}

// vinfo is a value's layout (from shape propagation).
type vinfo struct {
	sizes, strides []int
	dtype          tensor.DType
}

func (v vinfo) numel() int { return tensor.Numel(v.sizes) }

func (v vinfo) contiguous() bool {
	st := 1
	for i := len(v.sizes) - 1; i >= 0; i-- {
		if v.sizes[i] != 1 && v.strides[i] != st {
			return false
		}
		st *= v.sizes[i]
	}
	return true
}

// classify reads n as a fusable node; ok is false for anything a tile
// program does not run. info gives each node's value layout (ok false: not
// a tensor).
func classify(n *fx.Node, c *compile.BoundCall, nodes []*fx.Node, info func(*fx.Node) (vinfo, bool)) (sp spec, ok bool) {
	op := c.Op()
	if op == nil {
		return sp, false // getitem: decided by the partition
	}
	out, isT := info(n)
	if !isT || !out.contiguous() || out.numel() == 0 {
		return sp, false
	}
	if op.Name == "aten::_to_copy" {
		return castSpec(c, nodes, info, out)
	}
	if out.dtype != tensor.Float32 {
		return sp, false
	}
	args := c.Args()
	at := map[int]*fx.Node{}
	for _, s := range c.ArgSlots() {
		if s.Elem >= 0 {
			return sp, false // a tensor list
		}
		at[s.Arg] = nodes[s.Slot]
	}
	// tensorArg reads argument i as a float32 tensor node, or a float32
	// or float64 one-element node (a scalar read at run time), or a
	// wrapped number.
	tensorArg := func(i int) (operand, bool) {
		if nd := at[i]; nd != nil {
			v, isT := info(nd)
			if !isT {
				return operand{}, false
			}
			if v.dtype == tensor.Float32 || (v.dtype == tensor.Float64 && len(v.sizes) == 0) {
				return operand{node: nd}, true
			}
			return operand{}, false
		}
		if i >= len(args) {
			return operand{}, false
		}
		switch v := args[i].(type) {
		case *tensor.Tensor:
			if v != nil && v.IsWrappedNumber() {
				return operand{c: float32(v.Item().Float64())}, true
			}
		case tensor.Scalar:
			return operand{c: float32(v.Float64())}, true
		}
		return operand{}, false
	}
	name := op.Name
	if f, ok := unaryKernels[name]; ok {
		a, ok := tensorArg(0)
		if !ok || a.node == nil {
			return sp, false
		}
		return spec{kind: kUnary, name: op.Schema.Name, f1: f, ins: []operand{a}}, true
	}
	if f, ok := unaryGo[name]; ok {
		a, ok := tensorArg(0)
		if !ok || a.node == nil {
			return sp, false
		}
		return spec{kind: kUnaryGo, name: op.Schema.Name, fgo: f, ins: []operand{a}}, true
	}
	switch name {
	case "aten::gelu":
		a, ok := tensorArg(0)
		if !ok || a.node == nil || len(args) < 2 {
			return sp, false
		}
		switch args[1] {
		case "none":
			return spec{kind: kUnary, name: "gelu", f1: asm.GeluF32, ins: []operand{a}}, true
		case "tanh":
			return spec{kind: kUnary, name: "gelu_tanh", f1: asm.GeluTanhF32, ins: []operand{a}}, true
		}
		return sp, false
	case "aten::add.Tensor", "aten::add.Scalar", "aten::sub.Tensor", "aten::sub.Scalar":
		a, ok1 := tensorArg(0)
		b, ok2 := tensorArg(1)
		al, ok3 := args[2].(tensor.Scalar)
		if !ok1 || !ok2 || !ok3 || (a.node == nil && b.node == nil) {
			return sp, false
		}
		// device/cpu: alpha rounded to float32; ±1 select add or sub,
		// anything else the fused axpy (alpha·b + a, rounded once).
		alpha := float32(al.Float64())
		if op.Schema.Name == "sub" {
			alpha = -alpha
		}
		switch alpha {
		case 1:
			return binSpec(bAdd, a, b), true
		case -1:
			return binSpec(bSub, a, b), true
		}
		if a.node == nil || b.node == nil {
			return sp, false
		}
		return spec{kind: kAxpy, name: "axpy", alpha: alpha, ins: []operand{a, b}}, true
	case "aten::rsub.Tensor", "aten::rsub.Scalar":
		// Decomposed by the dispatcher into sub.Tensor(other, self, alpha).
		a, ok1 := tensorArg(1)
		b, ok2 := tensorArg(0)
		al, ok3 := args[2].(tensor.Scalar)
		if !ok1 || !ok2 || !ok3 || b.node == nil {
			return sp, false
		}
		switch alpha := -float32(al.Float64()); {
		case alpha == -1:
			return binSpec(bSub, a, b), true
		case alpha == 1:
			return binSpec(bAdd, a, b), true
		case a.node != nil:
			return spec{kind: kAxpy, name: "axpy", alpha: alpha, ins: []operand{a, b}}, true
		}
		return sp, false
	case "aten::clamp", "aten::hardtanh":
		// device/cpu's float32 path: torch.maximum/minimum against the
		// limits rounded to float32 (not for NaN limits).
		a, ok := tensorArg(0)
		if !ok || a.node == nil {
			return sp, false
		}
		var lim [2]*float32
		for i := range lim {
			if args[i+1] == nil {
				continue
			}
			v, ok := args[i+1].(tensor.Scalar)
			if !ok || v.IsNaN() {
				return sp, false
			}
			f := float32(v.Float64())
			lim[i] = &f
		}
		switch {
		case lim[0] != nil && lim[1] != nil:
			return spec{kind: kClamp, name: "clamp", ins: []operand{a}, lo: *lim[0], hi: *lim[1]}, true
		case lim[0] != nil:
			return binSpec(bMax, a, operand{c: *lim[0]}), true
		case lim[1] != nil:
			return binSpec(bMin, a, operand{c: *lim[1]}), true
		}
		return sp, false
	case "aten::pow.Tensor_Scalar":
		a, ok := tensorArg(0)
		e, ok2 := args[1].(tensor.Scalar)
		if !ok || !ok2 || a.node == nil || e.IsBool() || core.PowScalarExponentKind(e) >= 0 {
			return sp, false
		}
		ef := float32(e.Float64())
		u := spec{kind: kUnary, name: "pow", ins: []operand{a}}
		switch ef {
		case 2:
			u.f1 = func(d, x []float32) { asm.MulF32(d, x, x) }
		case 3:
			u.f1 = func(d, x []float32) {
				for i, v := range x {
					d[i] = v * v * v
				}
			}
		case 0.5:
			u.f1 = asm.SqrtF32
		case -0.5:
			u.f1 = asm.RsqrtF32
		case -1:
			u.f1 = asm.ReciprocalF32
		case -2:
			return sp, false // float32 arithmetic in device/cpu's loop
		default:
			e64 := float64(ef)
			u.kind, u.fgo = kUnaryGo, func(v float64) float64 { return math.Pow(v, e64) }
		}
		return u, true
	case "aten::where.self", "aten::masked_fill.Scalar":
		// device/cpu selects raw bits (asm.Select32): a masked_fill's
		// value becomes a float32 scalar first (decomp's scalarLike).
		ci, ai, bi := 0, 1, 2
		if op.Name == "aten::masked_fill.Scalar" {
			ci, ai, bi = 1, 2, 0
		}
		c := at[ci]
		if c == nil {
			return sp, false
		}
		if cv, ok := info(c); !ok || cv.dtype != tensor.Bool {
			return sp, false
		}
		a, ok1 := tensorArg(ai)
		b, ok2 := tensorArg(bi)
		if !ok1 || !ok2 {
			return sp, false
		}
		if v, ok := args[2].(tensor.Scalar); ok && op.Name == "aten::masked_fill.Scalar" {
			if tensor.Try(func() { core.CheckScalarFits(v, tensor.Float32) }) != nil {
				return sp, false // the dispatcher raises PyTorch's overflow error
			}
		}
		return spec{kind: kWhere, name: "where", cond: c, ins: []operand{a, b}}, true
	case "aten::mul.Tensor", "aten::mul.Scalar", "aten::div.Tensor", "aten::div.Scalar",
		"aten::maximum", "aten::minimum":
		a, ok1 := tensorArg(0)
		b, ok2 := tensorArg(1)
		if !ok1 || !ok2 || (a.node == nil && b.node == nil) {
			return sp, false
		}
		bo := map[string]binOp{"mul": bMul, "div": bDiv, "maximum": bMax, "minimum": bMin}[op.Schema.Name]
		return binSpec(bo, a, b), true
	case "aten::threshold_backward", "aten::sigmoid_backward", "aten::tanh_backward":
		// device/cpu's fusedRun: one package asm kernel over a float32
		// gradient and input (or output) of the result's shape, both
		// contiguous (others decompose).
		g, x := at[0], at[1]
		if g == nil || x == nil {
			return sp, false
		}
		for _, nd := range []*fx.Node{g, x} {
			v, isT := info(nd)
			if !isT || v.dtype != tensor.Float32 || !v.contiguous() || !slices.Equal(v.sizes, out.sizes) {
				return sp, false
			}
		}
		var f func(d, g, x []float32)
		switch name {
		case "aten::threshold_backward":
			v, ok := args[2].(tensor.Scalar)
			if !ok {
				return sp, false
			}
			th := float32(v.Float64())
			f = func(d, g, x []float32) { asm.ThresholdBackwardF32(d, g, x, th) }
		case "aten::sigmoid_backward":
			f = asm.SigmoidBackwardF32
		default:
			f = asm.TanhBackwardF32
		}
		return spec{kind: kGrad, name: op.Schema.Name, f2: f, ins: []operand{{node: g}, {node: x}}}, true
	case "aten::sum.dim_IntList", "aten::mean.dim", "aten::amax", "aten::amin":
		x := at[0]
		if x == nil || len(args) < 3 {
			return sp, false
		}
		if len(args) > 3 && args[3] != nil {
			if d, ok := args[3].(tensor.DType); !ok || d != tensor.Float32 {
				return sp, false
			}
		}
		dims, _ := args[1].([]int)
		if args[1] != nil && dims == nil {
			return sp, false
		}
		xi, _ := info(x)
		if xi.dtype != tensor.Float32 {
			return sp, false
		}
		k, ok := trailing(dims, len(xi.sizes))
		if !ok {
			if outer, c, k, ok := midDims(dims, xi.sizes); ok && op.Schema.Name == "sum" {
				return spec{kind: kMidSum, name: "sum", k: k, outer: outer, c: c, ins: []operand{{node: x}}}, true
			}
			return sp, false
		}
		r := map[string]redOp{"sum": rSum, "mean": rMean, "amax": rAmax, "amin": rAmin}[op.Schema.Name]
		return spec{kind: kReduce, name: redNames[r], red: r, k: k, ins: []operand{{node: x}}}, true
	case "aten::_softmax", "aten::_log_softmax":
		x := at[0]
		dim, ok := args[1].(int)
		if x == nil || !ok || args[2] != false {
			return sp, false
		}
		xi, _ := info(x)
		r := len(xi.sizes)
		if r == 0 || (dim != -1 && dim != r-1) || xi.dtype != tensor.Float32 {
			return sp, false
		}
		o := oSoftmax
		if op.Schema.Name == "_log_softmax" {
			o = oLogSoftmax
		}
		return spec{kind: kRowOp, name: rowNames[o], row: o, k: 1, ins: []operand{{node: x}}}, true
	}
	return sp, false
}

// layerNormSpec reads native_layer_norm (its three results come out of
// getitem nodes, which the partition checks).
func layerNormSpec(n *fx.Node, c *compile.BoundCall, nodes []*fx.Node, info func(*fx.Node) (vinfo, bool)) (sp spec, ok bool) {
	op := c.Op()
	if op == nil || op.Name != "aten::native_layer_norm" {
		return sp, false
	}
	args := c.Args()
	at := map[int]*fx.Node{}
	for _, s := range c.ArgSlots() {
		if s.Elem >= 0 {
			return sp, false
		}
		at[s.Arg] = nodes[s.Slot]
	}
	x := at[0]
	shape, ok1 := args[1].([]int)
	eps, ok2 := args[4].(float64)
	if x == nil || !ok1 || !ok2 || len(shape) == 0 {
		return sp, false
	}
	xi, _ := info(x)
	r := len(xi.sizes)
	if xi.dtype != tensor.Float32 || len(shape) > r || !slices.Equal(xi.sizes[r-len(shape):], shape) || xi.numel() == 0 {
		return sp, false
	}
	ins := []operand{{node: x}, {}, {}}
	for i := 2; i <= 3; i++ {
		if args[i] != nil || at[i] != nil {
			w := at[i]
			if w == nil {
				return sp, false
			}
			wi, _ := info(w)
			if wi.dtype != tensor.Float32 || !wi.contiguous() || !slices.Equal(wi.sizes, shape) {
				return sp, false
			}
			ins[i-1] = operand{node: w}
		}
	}
	for _, u := range n.Users() {
		if u.Target != fx.GetItem {
			return sp, false
		}
		if i, ok := u.Args()[1].(int); !ok || i < 0 || i > 2 {
			return sp, false
		}
		if ui, ok := info(u); !ok || ui.dtype != tensor.Float32 || !ui.contiguous() {
			return sp, false
		}
	}
	return spec{kind: kRowOp, name: "layer_norm", row: oLayerNorm, k: len(shape), eps: float32(eps), ins: ins}, true
}

func binSpec(o binOp, a, b operand) spec {
	return spec{kind: kBinary, name: binNames[o], bin: o, ins: []operand{a, b}}
}

// trailing returns k when dims are the last k dims of a rank-r tensor
// (each once, negative ones wrapped); an empty or nil dims means all dims,
// as for sum, mean, amax and amin.
func trailing(dims []int, r int) (int, bool) {
	if r == 0 {
		return 0, false
	}
	if len(dims) == 0 {
		return r, true
	}
	seen := make([]bool, r)
	for _, d := range dims {
		if d < 0 {
			d += r
		}
		if d < 0 || d >= r || seen[d] {
			return 0, false
		}
		seen[d] = true
	}
	k := len(dims)
	for d := r - k; d < r; d++ {
		if !seen[d] {
			return 0, false
		}
	}
	return k, true
}

// midDims reads a sum over dims of a tensor of the given sizes as
// device/cpu's middle reduction (core.MidSplit: a sum of NCHW over (0, 2,
// 3), which device/cpu computes as each row's asm.SumF32 added in float64,
// block after block). k is the number of trailing dims the rows span.
func midDims(dims []int, sizes []int) (outer, c, k int, ok bool) {
	r := len(sizes)
	if r == 0 || len(dims) == 0 {
		return 0, 0, 0, false
	}
	mask := make([]bool, r)
	for _, d := range dims {
		if d < 0 {
			d += r
		}
		if d < 0 || d >= r || mask[d] {
			return 0, 0, 0, false
		}
		mask[d] = true
	}
	outer, c, _, ok = core.MidSplit(sizes, mask)
	if !ok {
		return 0, 0, 0, false
	}
	for i := r - 1; i >= 0 && (mask[i] || sizes[i] == 1); i-- {
		k++
	}
	return outer, c, k, true
}

// castDTypes are the dtypes a tile program converts from (an input read
// in place) and to (a result), as device/cpu's copy does: float16 and
// bfloat16 by package asm's conversions (to nearest even, NaN kept),
// float64 by Go's conversion (to nearest even).
var castDTypes = map[tensor.DType]bool{tensor.Float16: true, tensor.BFloat16: true, tensor.Float64: true}

// castSpec reads _to_copy(x, dtype=...) on the CPU, contiguous, as a
// conversion to float32 from a castDTypes input or from float32 to a
// castDTypes result.
func castSpec(c *compile.BoundCall, nodes []*fx.Node, info func(*fx.Node) (vinfo, bool), out vinfo) (sp spec, ok bool) {
	args := c.Args()
	var x *fx.Node
	for _, s := range c.ArgSlots() {
		if s.Arg == 0 && s.Elem < 0 {
			x = nodes[s.Slot]
		}
	}
	if x == nil || len(args) < 7 {
		return sp, false
	}
	if args[2] != nil || (args[3] != nil && args[3] != tensor.CPU) || (args[4] != nil && args[4] != false) || args[5] != false {
		return sp, false // a layout, another device, pinned memory
	}
	if mf, ok := args[6].(tensor.MemoryFormat); args[6] != nil && (!ok || (mf != tensor.PreserveFormat && mf != tensor.ContiguousFormat)) {
		return sp, false
	}
	xi, ok := info(x)
	if !ok || !xi.contiguous() || !flatSame(xi.sizes, out.sizes) {
		return sp, false
	}
	switch {
	case out.dtype == tensor.Float32 && castDTypes[xi.dtype]:
		return spec{kind: kLoad, name: "from_" + xi.dtype.String(), dtype: xi.dtype, ins: []operand{{node: x}}}, true
	case xi.dtype == tensor.Float32 && castDTypes[out.dtype]:
		return spec{kind: kStore, name: "to_" + out.dtype.String(), dtype: out.dtype, ins: []operand{{node: x}}}, true
	}
	return sp, false
}
