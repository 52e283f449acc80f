package golden

import (
	"fmt"
	"math"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/goaten/goaten/tensor"
)

// Outcome of replaying a record.
type Outcome int

// Outcomes. The replays here return Pass or Fail; Skip is for a test that
// leaves a record out on purpose, by a rule or list that gives the reason.
const (
	Pass Outcome = iota
	Fail
	Skip
)

// Args decodes a record's positional and keyword arguments for op on dev.
func Args(op *tensor.Op, r *Record, dev tensor.Device) ([]any, map[string]any, error) {
	isStr := func(i int) bool {
		return i >= 0 && i < len(op.Schema.Args) && op.Schema.Args[i].Type.Base().Kind == tensor.TStr
	}
	args := make([]any, len(r.Args))
	for i, a := range r.Args {
		v, err := Value(a, dev, isStr(i))
		if err != nil {
			return nil, nil, fmt.Errorf("arg %d: %w", i, err)
		}
		args[i] = v
	}
	kw := map[string]any{}
	for k, a := range r.Kwargs {
		v, err := Value(a, dev, isStr(op.Schema.ArgIndex(k)))
		if err != nil {
			return nil, nil, fmt.Errorf("kwarg %s: %w", k, err)
		}
		kw[k] = v
	}
	return args, kw, nil
}

// Result of one replay.
type Result struct {
	Outcome Outcome
	Detail  string
}

// prepare looks up r's op and decodes its arguments on dev; bad is the
// record's result when either fails (Fail for an op goaten lacks: a test
// that means to leave a record out lists it, with a reason, and never
// replays it).
func prepare(r *Record, dev tensor.Device) (op *tensor.Op, args []any, kw map[string]any, bad *Result) {
	op, ok := tensor.LookupOp(r.Op)
	if !ok {
		return nil, nil, nil, &Result{Fail, "op not registered: " + r.Op}
	}
	args, kw, err := Args(op, r, dev)
	if err != nil {
		return nil, nil, nil, &Result{Fail, "decoding: " + err.Error()}
	}
	return op, args, kw, nil
}

// failOnPanic, deferred by a replay, turns a panic into a failed result: a
// *tensor.Error by its message, anything else with its stack.
func failOnPanic(res *Result) {
	if p := recover(); p != nil {
		if s, ok := p.(Skipped); ok {
			*res = Result{Skip, s.Reason}
			return
		}
		if e := tensor.Caught(p); e != nil {
			*res = Result{Fail, "error: " + e.Error()}
			return
		}
		*res = Result{Fail, fmt.Sprintf("panic: %v\n%s", p, trimStack(debug.Stack()))}
	}
}

// Skipped, panicked by Invoke, makes the replay skip its record (the
// compiled replay cannot trace a data-dependent call in fake mode).
type Skipped struct{ Reason string }

// Invoke runs an op on its bound arguments for the replays: op.Invoke, or
// (for the compiled conformance, GOLDEN_COMPILE=1) the call traced as a
// one-op graph, compiled and run.
var Invoke = func(op *tensor.Op, args []any) any { return op.Invoke(args) }

// Replay runs a forward record on dev and compares the result with it.
// Panics other than *tensor.Error are reported as failures with a stack.
func Replay(r *Record, dev tensor.Device, valuesToo bool) (res Result) {
	op, args, kw, bad := prepare(r, dev)
	if bad != nil {
		return *bad
	}
	defer failOnPanic(&res)
	return replay(r, op, args, kw, dev, valuesToo, op.Schema.IsView())
}

// Layout is another layout of a tensor's values, for the relaid replays.
type Layout int

// The layouts: Reversed puts dim 0 innermost in memory with a gap after
// every element; PaddedRows keeps row-major order with unit inner stride and
// a gap after every innermost row (a slice x[..., :n] of a wider tensor).
// Both start at a storage offset.
const (
	Reversed Layout = iota
	PaddedRows
)

// Layouts lists the relaid layouts.
var Layouts = []Layout{Reversed, PaddedRows}

func (l Layout) String() string { return [...]string{"reversed", "padded rows"}[l] }

// ReplayRelaid replays a forward record with each tensor argument of two or
// more elements copied into layout l with the same values, so a kernel that
// reads an input in memory order where it means logical order, or assumes a
// dense or row-major input, gives other values. The result's values are
// compared, not its strides. View ops are the caller's to leave out (a view
// of such an input can be impossible).
func ReplayRelaid(r *Record, dev tensor.Device, l Layout) (res Result) {
	op, args, kw, bad := prepare(r, dev)
	if bad != nil {
		return *bad
	}
	defer failOnPanic(&res)
	for i, a := range args {
		args[i] = l.relaid(a)
	}
	for k, a := range kw {
		kw[k] = l.relaid(a)
	}
	return replay(r, op, args, kw, dev, true, false)
}

// relaid returns v with its tensors (also inside lists) copied into layout l.
func (l Layout) relaid(v any) any {
	switch x := v.(type) {
	case *tensor.Tensor:
		if x == nil || x.Numel() < 2 {
			return x
		}
		n := x.Dim()
		strides := make([]int, n)
		step := 1
		if l == Reversed {
			step = 2 // one unused element after each
			for d := 0; d < n; d++ {
				strides[d] = step
				step *= max(x.Size(d), 1)
			}
		} else {
			for d := n - 1; d >= 0; d-- {
				strides[d] = step
				step *= max(x.Size(d), 1)
				if d == n-1 {
					step++ // one unused element after each row
				}
			}
		}
		const offset = 3
		base := x.NewEmpty([]int{offset + step})
		y := base.AsStrided(x.Sizes(), strides, tensor.WithStorageOffset(offset))
		y.Copy_(x)
		return y
	case []*tensor.Tensor:
		out := make([]*tensor.Tensor, len(x))
		for i, t := range x {
			out[i], _ = l.relaid(t).(*tensor.Tensor)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = l.relaid(e)
		}
		return out
	}
	return v
}

func replay(r *Record, op *tensor.Op, args []any, kw map[string]any, dev tensor.Device, valuesToo, view bool) Result {
	bound := op.Bind(args, kw)
	got := Invoke(op, bound)
	c := &comparer{rec: r, op: op, values: valuesToo, view: view}
	if err := c.value("out", got, r.Out); err != nil {
		return Result{Fail, err.Error()}
	}
	if r.Nondeterministic && valuesToo {
		if err := Sanity(op, bound, got); err != nil {
			return Result{Fail, err.Error()}
		}
	}
	if r.HasFlag("ties") && valuesToo {
		if err := checkTies(op, bound, got, r.Out, dev); err != nil {
			return Result{Fail, err.Error()}
		}
	}
	// Mutated arguments.
	keys := make([]string, 0, len(r.Mutated))
	for k := range r.Mutated {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, err := argAt(bound, k)
		if err != nil {
			return Result{Fail, err.Error()}
		}
		c.view = false
		if err := c.value("mutated["+k+"]", v, r.Mutated[k]); err != nil {
			return Result{Fail, err.Error()}
		}
	}
	return Result{Pass, ""}
}

func argAt(args []any, path string) (any, error) {
	var cur any = args
	for _, p := range strings.Split(path, ".") {
		i, err := strconv.Atoi(p)
		if err != nil {
			return nil, err
		}
		switch l := cur.(type) {
		case []any:
			if i >= len(l) {
				return nil, fmt.Errorf("mutated path %s out of range", path)
			}
			cur = l[i]
		case []*tensor.Tensor:
			if i >= len(l) {
				return nil, fmt.Errorf("mutated path %s out of range", path)
			}
			cur = l[i]
		default:
			return nil, fmt.Errorf("mutated path %s does not name a list element", path)
		}
	}
	return cur, nil
}

func trimStack(b []byte) string {
	lines := strings.Split(string(b), "\n")
	if len(lines) > 24 {
		lines = lines[:24]
	}
	return strings.Join(lines, "\n")
}

type comparer struct {
	rec    *Record
	op     *tensor.Op
	values bool // compare values (false on the meta device)
	view   bool // compare strides and offset
}

func (c *comparer) value(path string, got, want any) error {
	switch w := want.(type) {
	case nil:
		if t, ok := got.(*tensor.Tensor); ok && t != nil {
			return fmt.Errorf("%s: want None, got a tensor", path)
		}
		return nil
	case []any:
		var gl []any
		switch g := got.(type) {
		case []*tensor.Tensor:
			for _, t := range g {
				gl = append(gl, t)
			}
		case []any:
			gl = g
		default:
			return fmt.Errorf("%s: want a list of %d, got %T", path, len(w), got)
		}
		if len(gl) != len(w) {
			return fmt.Errorf("%s: want %d results, got %d", path, len(w), len(gl))
		}
		for i := range w {
			if err := c.value(fmt.Sprintf("%s[%d]", path, i), gl[i], w[i]); err != nil {
				return err
			}
		}
		return nil
	case map[string]any:
		t, ok := got.(*tensor.Tensor)
		if !ok || t == nil {
			return fmt.Errorf("%s: want a tensor, got %T", path, got)
		}
		return c.tensor(path, t, w)
	default:
		return c.scalar(path, got, want)
	}
}

func (c *comparer) scalar(path string, got, want any) error {
	wf, wi, err := Elem(want)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var gf float64
	var gi int64
	isInt := false
	switch g := got.(type) {
	case tensor.Scalar:
		gf, gi, isInt = g.Float64(), g.Int64(), !g.IsFloat()
	case int:
		gf, gi, isInt = float64(g), int64(g), true
	case bool:
		if g {
			gf, gi = 1, 1
		}
		isInt = true
	case float64:
		gf = g
	default:
		return fmt.Errorf("%s: want a scalar, got %T", path, got)
	}
	if !c.values {
		return nil
	}
	if isInt {
		if gi != wi {
			return fmt.Errorf("%s: want %v, got %v", path, wi, gi)
		}
		return nil
	}
	if !closeF(gf, wf, 1e-6, 1e-6) {
		return fmt.Errorf("%s: want %v, got %v", path, wf, gf)
	}
	return nil
}

func closeF(g, w, rtol, atol float64) bool {
	if math.IsNaN(g) || math.IsNaN(w) {
		return math.IsNaN(g) && math.IsNaN(w)
	}
	if g == w {
		return true
	}
	if math.IsInf(g, 0) || math.IsInf(w, 0) {
		return false
	}
	return math.Abs(g-w) <= atol+rtol*math.Abs(w)
}

// Tolerance returns (rtol, atol) for a float dtype and op, following FORMAT.md:
// the suggested values, loosened for long reductions, matmul/conv and backward ops.
func Tolerance(op string, d tensor.DType) (float64, float64) {
	loose := IsAccumulating(op)
	switch d {
	case tensor.Float64:
		if loose {
			return 1e-7, 1e-7
		}
		return 1e-7, 1e-7
	case tensor.Float16:
		if loose {
			return 2e-3, 1e-3
		}
		return 1e-3, 1e-5
	case tensor.BFloat16:
		if loose {
			return 1.6e-2, 1e-2
		}
		return 1.6e-2, 1e-5
	}
	if loose {
		return 1e-5, 1e-5
	}
	return 1.3e-6, 1e-5
}

// accumulating ops sum many terms, so their float results depend on summation order.
var accumulating = []string{
	"sum", "mean", "prod", "var", "std", "cumsum", "cumprod", "mm", "bmm", "addmm", "matmul", "linear",
	"convolution", "_cdist", "_pdist", "_backward", "softmax", "norm", "pool", "upsample", "grid_sampler",
	"col2im", "embedding_bag", "logsumexp", "dot", "einsum", "baddbmm", "addbmm", "outer", "loss", "index_put",
	"scatter_add", "scatter_reduce", "_fft", "addcdiv", "addcmul", "mv",
}

// IsAccumulating reports whether op is a reduction-like op with looser float tolerances.
func IsAccumulating(op string) bool {
	for _, a := range accumulating {
		if strings.Contains(op, a) {
			return true
		}
	}
	return false
}

func (c *comparer) tensor(path string, t *tensor.Tensor, w map[string]any) error {
	spec, err := ParseSpec(w)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if t.DType() != spec.DType {
		return fmt.Errorf("%s: dtype: want %s, got %s", path, spec.DType, t.DType())
	}
	if !slices.Equal(t.Sizes(), spec.Shape) {
		return fmt.Errorf("%s: shape: want %v, got %v", path, spec.Shape, t.Sizes())
	}
	if c.view && tensor.Numel(spec.Shape) > 0 {
		if !slices.Equal(t.Strides(), spec.Strides) {
			return fmt.Errorf("%s: strides: want %v, got %v", path, spec.Strides, t.Strides())
		}
		if t.StorageOffset() != spec.Offset {
			return fmt.Errorf("%s: storage offset: want %d, got %d", path, spec.Offset, t.StorageOffset())
		}
	}
	if !c.values || c.rec.Nondeterministic || !spec.HasData {
		return nil
	}
	if len(spec.Data) != t.Numel() {
		return fmt.Errorf("%s: %d recorded values for %d elements", path, len(spec.Data), t.Numel())
	}
	if t.DType().IsFloat() {
		got := t.Float64s()
		rtol, atol := Tolerance(c.rec.Op, t.DType())
		bad, first := 0, -1
		for i, v := range spec.Data {
			wf, _, err := Elem(v)
			if err != nil {
				return err
			}
			if !closeF(got[i], wf, rtol, atol) {
				if c.rec.HasFlag("duplicate_indices") && c.collisionOK(got[i]) {
					continue
				}
				bad++
				if first < 0 {
					first = i
				}
			}
		}
		if bad > 0 {
			wf, _, _ := Elem(spec.Data[first])
			return fmt.Errorf("%s: %d of %d values differ (rtol %g atol %g); first at flat index %d: want %v, got %v",
				path, bad, len(got), rtol, atol, first, wf, got[first])
		}
		return nil
	}
	got := t.Int64s()
	for i, v := range spec.Data {
		_, wi, err := Elem(v)
		if err != nil {
			return err
		}
		if got[i] != wi {
			if c.rec.HasFlag("ties") && c.indexOutput(path) {
				continue // checked by ties()
			}
			if c.rec.HasFlag("duplicate_indices") && c.collisionOK(float64(got[i])) {
				continue
			}
			return fmt.Errorf("%s: value at flat index %d: want %d, got %d", path, i, wi, got[i])
		}
	}
	return nil
}

// indexOutput reports whether path names an index output of an op with ties.
func (c *comparer) indexOutput(path string) bool {
	return strings.HasSuffix(path, "[1]") || c.op.Schema.Name == "argmax" || c.op.Schema.Name == "argmin"
}

// collisionOK accepts, for a scatter with colliding indices, a value that
// one of the colliding sources could have written: any value present in a
// tensor argument other than the destination.
func (c *comparer) collisionOK(v float64) bool {
	for i, a := range c.rec.Args {
		if i == 0 {
			continue
		}
		for _, t := range flattenTensors(a) {
			spec, err := ParseSpec(t)
			if err != nil || !spec.HasData {
				continue
			}
			for _, e := range spec.Data {
				f, _, _ := Elem(e)
				if f == v || (math.IsNaN(f) && math.IsNaN(v)) {
					return true
				}
			}
		}
	}
	for _, a := range c.rec.Args[1:] {
		if n, ok := a.(interface{ String() string }); ok {
			if f, err := strconv.ParseFloat(n.String(), 64); err == nil && f == v {
				return true
			}
		}
	}
	return false
}

func flattenTensors(v any) []map[string]any {
	switch x := v.(type) {
	case map[string]any:
		if IsTensor(x) {
			return []map[string]any{x}
		}
	case []any:
		var out []map[string]any
		for _, e := range x {
			out = append(out, flattenTensors(e)...)
		}
		return out
	}
	return nil
}

// ReplayError runs an error record: it passes when the call raises a
// *tensor.Error (or the arguments do not fit the schema, which also raises
// one), and fails when it returns a result or panics otherwise. matched says
// whether the message contains the key words of PyTorch's message.
func ReplayError(r *Record, dev tensor.Device) (res Result, matched bool) {
	op, args, kw, bad := prepare(r, dev)
	if bad != nil {
		return *bad, false
	}
	defer func() {
		if p := recover(); p != nil {
			if e := tensor.Caught(p); e != nil {
				res, matched = Result{Pass, e.Error()}, MessageMatches(e.Msg, r.ErrorMessage)
				return
			}
			if s, ok := p.(Skipped); ok {
				res = Result{Skip, s.Reason}
				return
			}
			res = Result{Fail, fmt.Sprintf("panic: %v\n%s", p, trimStack(debug.Stack()))}
		}
	}()
	got := Invoke(op, op.Bind(args, kw))
	return Result{Fail, fmt.Sprintf("returned a result (%T) where PyTorch raised: %s", got, r.ErrorMessage)}, false
}

// MessageMatches reports whether got contains the key words of PyTorch's
// message want: every number and every identifier-like word of three or more
// letters that is not a common English word.
func MessageMatches(got, want string) bool {
	for _, w := range keyWords(want) {
		if !strings.Contains(got, w) {
			return false
		}
	}
	return true
}

var commonWords = map[string]bool{"the": true, "and": true, "but": true, "got": true, "for": true, "with": true,
	"must": true, "not": true, "are": true, "was": true, "expected": true, "Expected": true, "tensor": true,
	"have": true, "has": true, "should": true, "be": true, "of": true, "to": true, "in": true, "is": true}

func keyWords(msg string) []string {
	var out []string
	f := strings.FieldsFunc(msg, func(r rune) bool {
		return !(r == '_' || r == '.' || r == '-' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'))
	})
	for _, w := range f {
		w = strings.Trim(w, ".-")
		if w == "" || commonWords[w] {
			continue
		}
		isNum := strings.Trim(w, "0123456789") == ""
		if isNum || len(w) >= 3 {
			out = append(out, w)
		}
	}
	return out
}
