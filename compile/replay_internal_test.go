package compile

import (
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// The graphs a function in segments keeps (its tapes) hold fakes as their
// example values, never the tensors of a call, which become real when its
// segment runs: a kept graph does not keep a step's activations alive.
func TestSegmentTapesHoldFakes(t *testing.T) {
	w := tensor.Randn([]int{4, 3}).SetRequiresGrad(true)
	c := Compile(func(x *tensor.Tensor) *tensor.Tensor {
		autograd.SetGrad(w, nil)
		loss := x.Matmul(w).Tanh().SumAll()
		loss.Backward()
		return loss
	}, Options{Logf: t.Logf})
	x := tensor.Randn([]int{5, 4})
	for range 3 {
		if _, err := c.Call(x); err != nil {
			t.Fatal(err)
		}
	}
	if len(c.tapes) != 1 || c.tapes[0] == nil {
		t.Fatalf("tapes %v: want one", c.tapes)
	}
	vals := 0
	for _, n := range c.tapes[0].nodes {
		var ts []*tensor.Tensor
		switch v := n.Meta[fx.MetaVal].(type) {
		case *tensor.Tensor:
			ts = append(ts, v)
		case []*tensor.Tensor:
			ts = v
		}
		for _, v := range ts {
			if v == nil {
				continue
			}
			vals++
			if _, fake := v.Raw().(*fakeStorage); !fake {
				t.Fatalf("node %s holds a tensor with data (%T)", n.Name, v.Raw())
			}
		}
	}
	if vals == 0 {
		t.Fatal("the tape's nodes hold no example values")
	}
}
