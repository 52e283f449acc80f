package cpu_test

import (
	"runtime"
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/cpu"
	"github.com/goaten/goaten/tensor"
)

// TestTrainingMemoryBounded: a training loop over a compiled CNN (conv,
// batch norm and ReLU blocks) holds no more memory after 40 steps than
// after 10. Its backward has steps that return some of their results (a
// weight's gradient) and pass the others on (the input's gradient): those
// storages are made for a graph output, die within the call and must be
// taken again by the next call, not piled up in the plan's free list (they
// were, 4 MiB a step, before 2026-11-28).
func TestTrainingMemoryBounded(t *testing.T) {
	var params []*tensor.Tensor
	chans := []int{3, 32, 32, 32}
	var convs, gammas, betas []*tensor.Tensor
	for i := 0; i+1 < len(chans); i++ {
		convs = append(convs, randnSeeded(uint64(20+i), chans[i+1], chans[i], 3, 3).MulScalar(0.1))
		gammas = append(gammas, tensor.OnesOf([]int{chans[i+1]}))
		betas = append(betas, tensor.ZerosOf([]int{chans[i+1]}))
	}
	fcW, fcB := randnSeeded(30, 10, 32).MulScalar(0.1), tensor.ZerosOf([]int{10})
	params = append(append(append(append(params, convs...), gammas...), betas...), fcW, fcB)
	for _, p := range params {
		p.SetRequiresGrad(true)
	}
	labels := tensor.Rand([]int{16}).MulScalar(10).To(tensor.Int64)
	cc := compile.Compile(func(x *tensor.Tensor) *tensor.Tensor {
		h := x
		for i := range convs {
			h = tensor.Conv2d(h, convs[i], tensor.WithPadding([]int{1, 1}))
			h = tensor.BatchNorm(h, gammas[i], betas[i], nil, nil, true, 0.1, 1e-5, false).Relu()
		}
		h = h.AdaptiveAvgPool2d([]int{1, 1}).Flatten(tensor.WithStartDim(1))
		return tensor.Linear(h, fcW, tensor.WithBias(fcB)).CrossEntropyLoss(labels)
	}, compile.Options{Fullgraph: true, Backend: cpu.Backend})
	x := randnSeeded(31, 16, 3, 32, 32)
	step := func() {
		autograd.ZeroGrads(params, true)
		r, err := cc.Call(x)
		if err != nil {
			t.Fatal(err)
		}
		r.(*tensor.Tensor).Backward()
	}
	inUse := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for range 10 {
		step()
	}
	before := inUse()
	for range 30 {
		step()
	}
	after := inUse()
	runtime.KeepAlive(cc) // the plans and their arenas
	t.Logf("heap in use after 10 steps %d, after 40 %d", before, after)
	if after > before+4<<20 {
		t.Errorf("the heap grew from %d to %d bytes over 30 training steps", before, after)
	}
}
