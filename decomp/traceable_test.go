package decomp_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/device"
	"github.com/goaten/goaten/internal/golden"
	"github.com/goaten/goaten/tensor"
)

// The compiler traces decompositions on proxy tensors backed by meta
// tensors, so a decomposition must be built from op calls alone and never
// read a value: no Item(), no copy to the CPU, no branch on what a tensor
// holds. TestDecompositionsReadNoData runs every decomposition on sample
// arguments (the golden records') moved to trapDevice, a device like the
// meta device (metadata from the core meta functions, no data) on which
// every way of reading data panics. A device of its own, not meta, so that
// a decomposition cannot hide its data reads behind a test for the meta
// device (as the elu/hardtanh/hardswish backward decompositions did).

// errDataRead is what trapDevice panics with when data is read.
var errDataRead = &tensor.Error{Op: "trap", Msg: "a decomposition read tensor data"}

// isDataRead reports whether a panic is a data read: errDataRead, or a
// CPU-only accessor (At, Storage) failing on trapDevice's tensor.
func isDataRead(p any) bool {
	e, ok := p.(*tensor.Error)
	return p == errDataRead || ok && strings.Contains(e.Msg, "has no CPU storage")
}

// trapStorage is a trapDevice tensor's raw value: a size, no data.
type trapStorage struct{ nbytes int }

// NBytes is the size of the storage in bytes.
func (s *trapStorage) NBytes() int { return s.nbytes }

func newTrapStorage(t *tensor.Tensor) *trapStorage {
	if t == nil {
		return nil
	}
	return &trapStorage{tensor.StorageExtent(t.Sizes(), t.Strides(), t.StorageOffset()) * t.DType().ItemSize()}
}

var trapDevice = func() tensor.Device {
	noData := func(c *device.Call) any {
		r := c.Op.Schema.Returns
		if len(c.Out) == 1 && !(len(r) > 1 || len(r) == 1 && r[0].Type.Kind == tensor.TList) {
			return newTrapStorage(c.Out[0])
		}
		raws := make([]any, len(c.Out))
		for i, t := range c.Out {
			if t != nil {
				raws[i] = newTrapStorage(t)
			}
		}
		return raws
	}
	read := func(*device.Call) any { panic(errDataRead) }
	lowerings := map[string]device.Lowering{}
	for _, name := range core.Names {
		op := core.Op(name)
		if op.Schema.IsView() || op.Meta == nil {
			continue
		}
		lowerings[name] = noData
	}
	for _, name := range core.InplaceNames {
		lowerings[name] = func(*device.Call) any { return nil }
	}
	resize := func(c *device.Call) any {
		need := newTrapStorage(c.Out[0]).nbytes
		if st, ok := c.Out[0].Raw().(*trapStorage); ok {
			st.nbytes = max(st.nbytes, need)
			return nil
		}
		return &trapStorage{need}
	}
	lowerings["aten::resize_.default"] = resize
	lowerings["aten::atan2.out"] = resize
	// The ops that return data: their output's shape or value is the data.
	lowerings["aten::_local_scalar_dense.default"] = read
	lowerings["aten::nonzero.default"] = read
	return device.Register(device.Backend{
		Name: "datatrap",
		FromCPU: func(t *tensor.Tensor) any {
			if st := t.Storage(); st != nil {
				return &trapStorage{st.NBytes()}
			}
			return newTrapStorage(t)
		},
		ToCPU:       func(any, *tensor.Tensor) *tensor.Tensor { panic(errDataRead) },
		Lowerings:   lowerings,
		NativeViews: true,
		Inplace:     true,
	})
}()

// dataDependent lists the decompositions that read data because PyTorch's
// op does too (the output's shape, or an error, follows from the values),
// each with the reason. Their records still run, to show that they read.
var dataDependent = map[string]string{
	"aten::masked_select":                 "the output's length is the number of true elements of the mask",
	"aten::one_hot":                       "num_classes=-1 takes the number of classes from the largest value, and 1.13 checks the values against 0 and num_classes (on every device but meta)",
	"aten::repeat_interleave.Tensor":      "the output's length is the sum of the repeats, which 1.13 checks to be non-negative",
	"aten::repeat_interleave.self_Tensor": "the output's length is the sum of the repeats, which 1.13 checks to be non-negative",
	"aten::multinomial":                   "1.13 checks the probabilities (no inf, NaN or negative entry, a positive sum) before sampling, as its CPU kernel does",
	"aten::nll_loss_forward":              nllTargets,
	"aten::nll_loss2d_forward":            nllTargets,
	"aten::nll_loss_backward":             nllTargets,
	"aten::nll_loss":                      "calls nll_loss_forward: " + nllTargets,
	"aten::nll_loss2d":                    "calls nll_loss2d_forward: " + nllTargets,
	"aten::nll_loss_nd":                   "calls nll_loss or nll_loss2d: " + nllTargets,
	"aten::cross_entropy_loss":            "calls nll_loss_nd (class-index targets): " + nllTargets,
}

const nllTargets = "1.13's nll kernels check every target but ignore_index against the number of classes (\"Target 10 is out of bounds.\"); not on the meta device or in a fake trace"

// extraSamples are arguments for the decompositions that no golden record
// calls successfully (nor one of the functional op, for an in-place op); a
// trailing map holds keyword arguments.
var extraSamples = map[string]func() []any{
	"aten::deg2rad_": func() []any { return []any{trapEmpty(3)} }, // deg2rad's records are of int64, which deg2rad_ cannot hold
	"aten::conv3d.padding": func() []any {
		return []any{trapEmpty(1, 2, 4, 4, 4), trapEmpty(3, 2, 2, 2, 2), trapEmpty(3), []int{1, 1, 1}, "same"}
	},
	"aten::conv_transpose3d.input": func() []any {
		return []any{trapEmpty(1, 2, 3, 3, 3), trapEmpty(2, 3, 2, 2, 2), trapEmpty(3), []int{2, 1, 1}, []int{1, 0, 0}, []int{1, 0, 0}}
	},
	"aten::scaled_dot_product_attention": func() []any {
		return []any{trapEmpty(2, 3, 4), trapEmpty(2, 5, 4), trapEmpty(2, 5, 6), trapEmpty(3, 5), 0.0, false}
	},
	"aten::unfold": func() []any { return []any{trapEmpty(5, 4), 0, 2, 1} },
	"aten::fmax":   func() []any { return []any{trapEmpty(2, 3), trapEmpty(3)} },
	// The random ops: no golden record calls them (their values are
	// PyTorch's streams, replayed by rng_test.go on the CPU).
	"aten::uniform_":          func() []any { return []any{trapEmpty(4), -1.0, 2.0} },
	"aten::normal_":           func() []any { return []any{trapEmpty(4), 1.0, 2.0} },
	"aten::bernoulli_.float":  func() []any { return []any{trapEmpty(4), 0.25} },
	"aten::bernoulli_.Tensor": func() []any { return []any{trapEmpty(4), trapEmpty(4)} },
	"aten::bernoulli":         func() []any { return []any{trapEmpty(4)} },
	"aten::bernoulli.p":       func() []any { return []any{trapEmpty(4), 0.5} },
	"aten::exponential_":      func() []any { return []any{trapEmpty(4), 3.0} },
	"aten::random_.from":      func() []any { return []any{trapEmpty(4), -4, 9} },
	"aten::random_.to":        func() []any { return []any{trapEmpty(4), 5} },
	"aten::random_":           func() []any { return []any{trapEmpty(4)} },
	"aten::rand_like":         func() []any { return []any{trapEmpty(4)} },
	"aten::randn_like":        func() []any { return []any{trapEmpty(4)} },
	"aten::multinomial":       func() []any { return []any{trapEmpty(2, 5), 3, true} },
	"aten::randint":           func() []any { return []any{7, []int{4}, map[string]any{"device": trapDevice}} },
	"aten::randint.low":       func() []any { return []any{-3, 7, []int{4}, map[string]any{"device": trapDevice}} },
	"aten::fmin":              func() []any { return []any{trapEmpty(2, 3), trapEmpty(3)} },
	// functionalization's view copies and scatters (viewcopy.go)
	"aten::view_copy":             func() []any { return []any{trapEmpty(2, 3), []int{-1}} },
	"aten::_reshape_alias_copy":   func() []any { return []any{trapEmpty(2, 3), []int{3, 2}, []int{2, 1}} },
	"aten::alias_copy":            func() []any { return []any{trapEmpty(2, 3)} },
	"aten::detach_copy":           func() []any { return []any{trapEmpty(2, 3)} },
	"aten::permute_copy":          func() []any { return []any{trapEmpty(2, 3), []int{1, 0}} },
	"aten::t_copy":                func() []any { return []any{trapEmpty(2, 3)} },
	"aten::transpose_copy.int":    func() []any { return []any{trapEmpty(2, 3), 0, 1} },
	"aten::expand_copy":           func() []any { return []any{trapEmpty(1, 3), []int{2, 3}} },
	"aten::slice_copy.Tensor":     func() []any { return []any{trapEmpty(4, 3), 0, 1, 3, 1} },
	"aten::select_copy.int":       func() []any { return []any{trapEmpty(2, 3), 1, -1} },
	"aten::diagonal_copy":         func() []any { return []any{trapEmpty(3, 3), 1} },
	"aten::as_strided_copy":       func() []any { return []any{trapEmpty(3, 3), []int{2, 2}, []int{3, 1}, 1} },
	"aten::squeeze_copy":          func() []any { return []any{trapEmpty(1, 3, 1)} },
	"aten::squeeze_copy.dim":      func() []any { return []any{trapEmpty(1, 3), 0} },
	"aten::squeeze_copy.dims":     func() []any { return []any{trapEmpty(1, 3, 1), []int{0, 2}} },
	"aten::unsqueeze_copy":        func() []any { return []any{trapEmpty(2, 3), 1} },
	"aten::split_copy.Tensor":     func() []any { return []any{trapEmpty(5, 3), 2} },
	"aten::split_with_sizes_copy": func() []any { return []any{trapEmpty(5, 3), []int{2, 3}} },
	"aten::unbind_copy.int":       func() []any { return []any{trapEmpty(2, 3), 1} },
	"aten::unfold_copy":           func() []any { return []any{trapEmpty(5, 4), 0, 2, 1} },
	"aten::diagonal_scatter":      func() []any { return []any{trapEmpty(3, 4), trapEmpty(3), 1} },
	"aten::as_strided_scatter":    func() []any { return []any{trapEmpty(3, 3), trapEmpty(2, 2), []int{2, 2}, []int{3, 1}, 1} },
}

// trapEmpty is a float32 tensor of the given sizes on trapDevice.
func trapEmpty(sizes ...int) *tensor.Tensor {
	return tensor.Empty(tensor.Float32, sizes...).ToDevice(trapDevice)
}

// TestDecompositionsReadNoData runs each op's decomposition (its
// CompositeImplicit kernel, called directly so that no device kernel stands
// in for it) on trapDevice, with the arguments of every golden record of the
// op (the golden forward and gradient records and decomp's extra records;
// for an in-place op without one, those of its functional op; else
// extraSamples), and fails for each op whose decomposition reads data,
// unless dataDependent lists it, and for each op none of whose samples runs
// through.
func TestDecompositionsReadNoData(t *testing.T) {
	var names []string
	for _, op := range tensor.Ops() {
		if op.HasKernel(tensor.KeyCompositeImplicit) {
			names = append(names, op.Name)
		}
	}
	sort.Strings(names)
	for name := range dataDependent {
		if !slices.Contains(names, name) {
			t.Errorf("dataDependent lists %s, which has no decomposition", name)
		}
	}
	records := map[string][]*golden.Record{}
	for _, file := range []string{"../testdata/golden/core", "../testdata/golden/noncore", "../testdata/golden/grad", "testdata/extra"} {
		recs, err := golden.Load(filepath.FromSlash(file + ".jsonl.gz"))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if op, ok := tensor.LookupOp(r.Op); ok {
				records[op.Name] = append(records[op.Name], r)
			}
		}
	}
	ran := 0
	for _, name := range names {
		op, _ := tensor.LookupOp(name)
		var samples []func() ([]any, map[string]any, error)
		recs := records[name]
		if f, _, ok := op.Functional(); ok && op.Schema.IsInplace() && len(recs) == 0 {
			recs = records[f.Name]
		}
		for _, r := range recs {
			samples = append(samples, func() ([]any, map[string]any, error) {
				args, kw, err := golden.Args(op, r, trapDevice)
				if err != nil {
					err = fmt.Errorf("%s line %d (%s): %w", r.Op, r.Line, r.Source, err)
				}
				return args, kw, err
			})
		}
		if f := extraSamples[name]; f != nil {
			samples = append(samples, func() ([]any, map[string]any, error) {
				a := f()
				if kw, ok := a[len(a)-1].(map[string]any); ok {
					return a[:len(a)-1], kw, nil
				}
				return a, nil, nil
			})
		}
		if len(samples) == 0 {
			t.Errorf("%s: no sample arguments (add a golden record or an entry in extraSamples)", name)
			continue
		}
		var runs, reads int
		var other string
		for i, sample := range samples {
			read, err := runDecomposition(op, sample)
			switch {
			case read:
				reads++
			case err != nil && other == "":
				other = fmt.Sprintf("sample %d: %v", i, err)
			case err == nil:
				runs++
			}
		}
		_, exempt := dataDependent[name]
		switch {
		case reads > 0 && !exempt:
			t.Errorf("%s: the decomposition reads tensor data (on %d of %d samples)", name, reads, len(samples))
		case reads == 0 && exempt:
			t.Errorf("%s: dataDependent lists it, but its decomposition read no data on %d samples", name, len(samples))
		case runs == 0 && reads == 0:
			t.Errorf("%s: no sample runs through the decomposition on the trap device; %s", name, other)
		default:
			ran++
		}
	}
	t.Logf("%d decompositions ran without reading data or read it as dataDependent allows (%d listed)", ran, len(dataDependent))
}

// runDecomposition calls op's decomposition on trapDevice with the
// arguments sample gives; read reports a data read, err any other failure.
func runDecomposition(op *tensor.Op, sample func() ([]any, map[string]any, error)) (read bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			if isDataRead(p) {
				read, err = true, nil
				return
			}
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	args, kw, err := sample()
	if err != nil {
		return false, err
	}
	op.Composite()(op, op.Bind(args, kw))
	return false, nil
}

// TestTrapDevice checks the trap: each way of reading a tensor's data
// panics as a data read (isDataRead), and work on metadata alone runs.
func TestTrapDevice(t *testing.T) {
	reads := map[string]func(x *tensor.Tensor){
		"Item":                func(x *tensor.Tensor) { x.Sum(nil).Item() },
		"Float64s":            func(x *tensor.Tensor) { x.Float64s() },
		"At":                  func(x *tensor.Tensor) { x.At(0, 0) },
		"ToDevice(CPU)":       func(x *tensor.Tensor) { x.ToDevice(tensor.CPU) },
		"_local_scalar_dense": func(x *tensor.Tensor) { tensor.Call("aten::_local_scalar_dense", x.Select(0, 0).Select(0, 0)) },
		"nonzero":             func(x *tensor.Tensor) { x.Nonzero() },
		"masked_select":       func(x *tensor.Tensor) { x.MaskedSelect(x.GtScalar(0)) },
	}
	for name, read := range reads {
		if !runReads(t, read) {
			t.Errorf("%s: no data read trapped", name)
		}
	}
	if runReads(t, func(x *tensor.Tensor) {
		x.Exp().Softmax(1).T().Contiguous().Add(x.T()).Sum([]int{0}, tensor.WithKeepdim(true))
	}) {
		t.Errorf("ops on metadata alone read data")
	}
}

// runReads runs f on a trapDevice tensor and reports whether it read data.
func runReads(t *testing.T, f func(x *tensor.Tensor)) (read bool) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			if !isDataRead(p) {
				t.Errorf("panicked with %v, not a data read", p)
			}
			read = true
		}
	}()
	f(trapEmpty(2, 3))
	return false
}
