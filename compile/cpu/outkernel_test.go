package cpu_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/cpu"
	"github.com/goaten/goaten/tensor"
)

// attention is one head-split attention block as the GPT decoder makes it:
// a projection with a bias (addmm), split into q, k, v, heads laid out for
// bmm (contiguous clones), scores, softmax, the weighted values, and the
// output projection (mm) with a residual add of int64 counts, which stays
// a dispatcher call (no tile program takes int64).
func attention(x, w, b, wo, n *tensor.Tensor) []*tensor.Tensor {
	const heads, hd = 4, 8
	T := x.Size(0)
	qkv := b.Addmm(x, w.T())
	parts := qkv.Split(heads*hd, tensor.WithDim(-1))
	head := func(p *tensor.Tensor) *tensor.Tensor {
		return p.View([]int{T, heads, hd}).Transpose(0, 1).Contiguous()
	}
	q, k, v := head(parts[0]), head(parts[1]), head(parts[2])
	s := q.Bmm(k.Transpose(1, 2).Contiguous()).DivScalar(4).Softmax(-1)
	o := s.Bmm(v).Transpose(0, 1).Contiguous().View([]int{T, heads * hd})
	return []*tensor.Tensor{o.Mm(wo), n.Add(n)}
}

// TestPlannedResults: the products (addmm, bmm, mm) and the int64 add run
// their out kernels into results the plan lays out (Describe says so), give
// the Eager backend's bits call after call, and a warm call on one core
// allocates what it returns and nothing else: no header, meta function,
// dispatcher call or argument list per op.
func TestPlannedResults(t *testing.T) {
	x, w, b, wo := randnSeeded(60, 40, 32), randnSeeded(61, 96, 32), randnSeeded(62, 96), randnSeeded(63, 32, 32)
	n := randnSeeded(64, 40).MulScalar(10).To(tensor.Int64)
	ins := []*tensor.Tensor{x, w, b, wo, n}
	gm, err := compile.Trace(attention, ins, compile.TraceOptions{Mode: compile.Fake})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := cpu.Describe(gm, ins)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{"aten.addmm", "aten.bmm", "aten.mm", "aten.add.Tensor"} {
		for _, line := range strings.Split(plan, "\n") {
			if strings.HasPrefix(line, "call ") && strings.Contains(line, "target=torch.ops."+op) && !strings.Contains(line, "(into a planned result") {
				t.Errorf("%s runs through the dispatcher:\n%s", op, line)
			}
		}
	}
	if !strings.Contains(plan, "aten.bmm.default](args = (%clone, %clone_3), kwargs = {}) (into a planned result, header kept)") {
		t.Errorf("the scores' bmm does not keep its header:\n%s", plan)
	}
	fused := compile.Compile(attention, compile.Options{Backend: cpu.Backend, Fullgraph: true})
	ref := compile.Compile(attention, compile.Options{Backend: compile.Eager, Fullgraph: true})
	want, err := ref.Call(ins...)
	if err != nil {
		t.Fatal(err)
	}
	var kept []*tensor.Tensor
	for call := range 3 {
		got, err := fused.Call(ins...)
		if err != nil {
			t.Fatal(err)
		}
		g, w := tensors(got), tensors(want)
		for i := range g {
			if err := sameBits(g[i], w[i]); err != nil {
				t.Errorf("call %d, result %d: %v", call, i, err)
			}
		}
		kept = append(kept, g...)
	}
	for i, k := range kept { // later calls did not write into earlier results
		if err := sameBits(k, tensors(want)[i%2]); err != nil {
			t.Errorf("kept result %d: %v", i, err)
		}
	}
	if testing.Short() || raceEnabled {
		return // allocation counts: see TestWarmCallAllocs
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	allocs := testing.AllocsPerRun(20, func() { fused.Call(ins...) })
	t.Logf("a warm call: %v allocations", allocs)
	// What it returns and nothing else: each returned tensor's header,
	// storage and data, and the list of the two.
	if allocs > 3*2+2 {
		t.Errorf("a warm call makes %v allocations", allocs)
	}
}
