package functional_test

import (
	"sync/atomic"

	_ "github.com/goaten/goaten/aten/core"
	_ "github.com/goaten/goaten/decomp"
	_ "github.com/goaten/goaten/device/cpu"
	"github.com/goaten/goaten/functional"
	"github.com/goaten/goaten/tensor"
)

// functest is a device without views or in-place ops: its raw data is a
// contiguous CPU tensor holding the values, its kernels delegate to the CPU
// backend's kernels for functional ops only, and anything else (a view, an
// in-place op, an out= op) that reaches it is refused. Programs that run on
// it therefore prove that the Functionalize layer removed every view and
// mutation.
var fdev tensor.Device

// refused counts ops that reached the functest backend without a kernel.
var refused atomic.Int64

// backendCalls counts ops the functest backend ran.
var backendCalls atomic.Int64

func init() {
	fdev = tensor.RegisterDevice("functest", tensor.DeviceHooks{
		ToCPU:         func(t *tensor.Tensor) *tensor.Tensor { return rawOf(t) },
		FromCPU:       func(t *tensor.Tensor) *tensor.Tensor { return devTensor(t) },
		Functionalize: true,
	})
	for _, op := range tensor.Ops() {
		s := op.Schema
		if s.IsView() || s.IsInplace() || s.IsOut() {
			continue
		}
		if op.BackendKernel(tensor.CPU) == nil {
			continue
		}
		if op.Name == "aten::_to_copy" {
			op.ImplBackend(fdev, toCopy)
			continue
		}
		op.ImplBackend(fdev, delegate)
	}
	tensor.SetBackendFallback(fdev, func(op *tensor.Op, args []any) any {
		refused.Add(1)
		tensor.Panicf("functest: %s reached a backend without views or in-place ops", op.Name)
		return nil
	})
}

// rawOf is the CPU tensor holding a functest tensor's values.
func rawOf(t *tensor.Tensor) *tensor.Tensor {
	if functional.IsFunctional(t) {
		if _, ok := t.Raw().(*tensor.Tensor); !ok {
			tensor.Panicf("functest: the backend was handed a functional wrapper")
		}
	}
	r, ok := t.Raw().(*tensor.Tensor)
	if !ok {
		tensor.Panicf("functest: tensor without functest data (%T)", t.Raw())
	}
	return r
}

// devTensor makes a functest tensor holding the values of the CPU tensor c,
// as the framework would: it carries KeyFunctionalize.
func devTensor(c *tensor.Tensor) *tensor.Tensor {
	raw := tensor.CallKw("aten::clone", []any{c}, map[string]any{"memory_format": tensor.ContiguousFormat}).(*tensor.Tensor)
	t := tensor.NewMeta(c.Sizes(), c.Strides(), c.StorageOffset(), c.DType(), fdev).WithRaw(raw)
	t.Keys = t.Keys.With(tensor.KeyFunctionalize)
	return t
}

func cpuArg(a any) any {
	switch x := a.(type) {
	case *tensor.Tensor:
		if x != nil && x.Device() == fdev {
			return rawOf(x)
		}
	case []*tensor.Tensor:
		l := make([]*tensor.Tensor, len(x))
		for i, t := range x {
			l[i] = t
			if t != nil && t.Device() == fdev {
				l[i] = rawOf(t)
			}
		}
		return l
	case tensor.Device:
		if x == fdev {
			return tensor.CPU
		}
	}
	return a
}

func devResult(r any) any {
	switch x := r.(type) {
	case *tensor.Tensor:
		return devTensor(x)
	case []*tensor.Tensor:
		l := make([]*tensor.Tensor, len(x))
		for i, t := range x {
			l[i] = devTensor(t)
		}
		return l
	}
	return r
}

func delegate(op *tensor.Op, args []any) any {
	backendCalls.Add(1)
	cargs := make([]any, len(args))
	for i, a := range args {
		cargs[i] = cpuArg(a)
	}
	return devResult(op.RunBackend(tensor.CPU, cargs))
}

// toCopy moves data between functest and the CPU (the CPU kernel of
// _to_copy hands a CPU copy to the target device's kernel).
func toCopy(op *tensor.Op, args []any) any {
	backendCalls.Add(1)
	x := args[0].(*tensor.Tensor)
	target := fdev
	if d, ok := args[3].(tensor.Device); ok {
		target = d
	}
	cargs := make([]any, len(args))
	for i, a := range args {
		cargs[i] = cpuArg(a)
	}
	cargs[3] = tensor.CPU
	_ = x
	c := op.RunBackend(tensor.CPU, cargs).(*tensor.Tensor)
	if target == tensor.CPU {
		return c
	}
	return devTensor(c)
}
