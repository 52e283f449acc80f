package autograd_test

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/goaten/goaten/autograd"
	_ "github.com/goaten/goaten/functional"
	"github.com/goaten/goaten/internal/golden"
	"github.com/goaten/goaten/tensor"
)

// agdev is a device without views or in-place ops, as the device API
// allows: its raw data is a contiguous CPU tensor, its kernels are the CPU
// kernels of the functional core ops, and the Functionalize layer handles
// views and mutation. Gradients must flow on it as on the CPU.
var agdev tensor.Device

func init() {
	agdev = tensor.RegisterDevice("autogradtest", tensor.DeviceHooks{
		ToCPU:         func(t *tensor.Tensor) *tensor.Tensor { return agRaw(t) },
		FromCPU:       func(t *tensor.Tensor) *tensor.Tensor { return agTensor(t) },
		Functionalize: true,
	})
	for _, op := range tensor.Ops() {
		s := op.Schema
		if s.IsView() || s.IsInplace() || s.IsOut() || op.BackendKernel(tensor.CPU) == nil {
			continue
		}
		if op.Name == "aten::_to_copy" {
			op.ImplBackend(agdev, agToCopy)
			continue
		}
		op.ImplBackend(agdev, agDelegate)
	}
	tensor.SetBackendFallback(agdev, func(op *tensor.Op, args []any) any {
		tensor.Panicf("autogradtest: %s reached a backend without views or in-place ops", op.Name)
		return nil
	})
}

func agRaw(t *tensor.Tensor) *tensor.Tensor {
	r, ok := t.Raw().(*tensor.Tensor)
	if !ok {
		tensor.Panicf("autogradtest: tensor without device data (%T)", t.Raw())
	}
	return r
}

func agTensor(c *tensor.Tensor) *tensor.Tensor {
	raw := tensor.CallKw("aten::clone", []any{c}, map[string]any{"memory_format": tensor.ContiguousFormat}).(*tensor.Tensor)
	t := tensor.NewMeta(c.Sizes(), c.Strides(), c.StorageOffset(), c.DType(), agdev).WithRaw(raw)
	t.Keys = t.Keys.With(tensor.KeyFunctionalize)
	return t
}

func agArg(a any) any {
	switch x := a.(type) {
	case *tensor.Tensor:
		if x != nil && x.Device() == agdev {
			return agRaw(x)
		}
	case []*tensor.Tensor:
		l := make([]*tensor.Tensor, len(x))
		for i, t := range x {
			l[i] = t
			if t != nil && t.Device() == agdev {
				l[i] = agRaw(t)
			}
		}
		return l
	case tensor.Device:
		if x == agdev {
			return tensor.CPU
		}
	}
	return a
}

func agDelegate(op *tensor.Op, args []any) any {
	cargs := make([]any, len(args))
	for i, a := range args {
		cargs[i] = agArg(a)
	}
	switch r := op.RunBackend(tensor.CPU, cargs).(type) {
	case *tensor.Tensor:
		return agTensor(r)
	case []*tensor.Tensor:
		l := make([]*tensor.Tensor, len(r))
		for i, t := range r {
			if t != nil {
				l[i] = agTensor(t)
			}
		}
		return l
	default:
		return r
	}
}

func agToCopy(op *tensor.Op, args []any) any {
	target := agdev
	if d, ok := args[3].(tensor.Device); ok {
		target = d
	}
	cargs := make([]any, len(args))
	for i, a := range args {
		cargs[i] = agArg(a)
	}
	cargs[3] = tensor.CPU
	c := op.RunBackend(tensor.CPU, cargs).(*tensor.Tensor)
	if target == tensor.CPU {
		return c
	}
	return agTensor(c)
}

// TestGradOnFunctionalDevice replays the gradient goldens on agdev.
func TestGradOnFunctionalDevice(t *testing.T) {
	path := "../testdata/golden/grad.jsonl.gz"
	recs, err := golden.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	old := golden.ToDevice
	golden.ToDevice = func(x *tensor.Tensor, dev tensor.Device) *tensor.Tensor { return agTensor(x) }
	defer func() { golden.ToDevice = old }()
	skips := map[string]bool{}
	if b, err := os.ReadFile("../testdata/conformance_skip.txt"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, _, ok := strings.Cut(line, "\t"); ok && !strings.HasPrefix(line, "#") {
				skips[k] = true
			}
		}
	}
	var pass, fail, skip int
	byOp := map[string][]string{}
	for _, r := range recs {
		if skips[r.Source] {
			skip++
			continue
		}
		res := golden.ReplayGrad(r, agdev)
		switch res.Outcome {
		case golden.Pass:
			pass++
		case golden.Skip:
			skip++
		default:
			fail++
			byOp[r.Op] = append(byOp[r.Op], fmt.Sprintf("line %d (%s): %.300s", r.Line, r.Source, res.Detail))
		}
	}
	fmt.Printf("conformance %s grad: %d passed, %d failed, %d skipped\n", agdev, pass, fail, skip)
	if fail > 0 {
		var names []string
		for k := range byOp {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(os.Stderr, "%-45s %d  %s\n", n, len(byOp[n]), byOp[n][0])
		}
		t.Errorf("%d gradient records fail on %s", fail, agdev)
	}
}

// In-place writes into views (CopySlices) on a device without views: the
// gradients match the CPU's.
func TestInPlaceViewsOnFunctionalDevice(t *testing.T) {
	run := func(dev tensor.Device) []*tensor.Tensor {
		x := tensor.FromSlice([]float64{0.1, -0.2, 0.3, 0.4, 0.5, -0.6, 0.7, 0.8, -0.9}, 3, 3)
		w := tensor.FromSlice([]float64{1.5, -0.5, 2})
		if dev != tensor.CPU {
			x, w = agTensor(x), agTensor(w)
		}
		x.SetRequiresGrad(true)
		w.SetRequiresGrad(true)
		b := x.Clone()
		b.Select(0, 1).Mul_(w)
		b.Slice(tensor.WithDim(1), tensor.WithStart(0), tensor.WithEnd(2)).Sigmoid_()
		b.Diagonal().AddScalar_(1)
		out := tensor.FullOf(tensor.Float64, 0, 3, 3)
		if dev != tensor.CPU {
			out = agTensor(out)
		}
		out.Select(0, 2).Copy_(w)
		y := b.Exp().Add(out).Mul(b).SumAll()
		gs := autograd.Grad([]*tensor.Tensor{y}, []*tensor.Tensor{x, w}, nil)
		return []*tensor.Tensor{gs[0].CPUView(), gs[1].CPUView()}
	}
	cpu, dev := run(tensor.CPU), run(agdev)
	for i := range cpu {
		if !near(dev[i].Float64s(), cpu[i].Float64s(), 1e-12) {
			t.Errorf("grad %d: %v on %s, %v on the CPU", i, dev[i].Float64s(), agdev, cpu[i].Float64s())
		}
	}
}
