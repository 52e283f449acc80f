package nninit_test

import (
	"fmt"
	"math"

	gt "github.com/goaten/goaten"
	nninit "github.com/goaten/goaten/nn/init"
)

// nn.Linear(3, 2)'s default initialisation after torch.manual_seed(0):
// the weight by kaiming_uniform_(a=√5), then the bias from
// U(-1/√fan_in, 1/√fan_in), drawn from the same stream.
func Example() {
	gt.ManualSeed(0)
	w := gt.Empty(2, 3)
	b := gt.Empty(2)
	nninit.KaimingUniform_(w, nninit.Kaiming{A: math.Sqrt(5)})
	fanIn, _ := nninit.CalculateFanInAndFanOut(w)
	bound := 1 / math.Sqrt(float64(fanIn))
	nninit.Uniform_(b, -bound, bound)
	fmt.Printf("%.4f\n%.4f\n", w.Float64s(), b.Float64s())
	// Output:
	// [-0.0043 0.3097 -0.4752 -0.4249 -0.2224 0.1548]
	// [-0.0114 0.4578]
}

func ExampleCalculateGain() {
	fmt.Printf("%.4f %.4f %.4f\n", nninit.CalculateGain("relu"), nninit.CalculateGain("tanh"), nninit.CalculateGain("leaky_relu", math.Sqrt(5)))
	// Output:
	// 1.4142 1.6667 0.5774
}

func ExampleCalculateFanInAndFanOut() {
	in, out := nninit.CalculateFanInAndFanOut(gt.Empty(6, 3, 3, 3)) // a Conv2d(3, 6, 3) weight
	fmt.Println(in, out)
	err := gt.Try(func() { nninit.CalculateFanInAndFanOut(gt.Empty(5)) })
	fmt.Println(err)
	// Output:
	// 27 54
	// Fan in and fan out can not be computed for tensor with fewer than 2 dimensions
}

// Orthogonal_: a 2×4 weight with orthonormal rows after torch.manual_seed(0), as
// torch.nn.init.orthogonal_ fills it: the same normal draws, the same Q
// (here gonum's QR, in PyTorch LAPACK's, equal to rounding).
func Example_orthogonal() {
	gt.ManualSeed(0)
	w := nninit.Orthogonal_(gt.Empty(2, 4), 1)
	fmt.Printf("%.4f\n", w.Float64s())
	fmt.Println(gt.AllClose(w.Matmul(w.T()), gt.Eye(2), 0, 1e-6)) // W·Wᵀ = I
	err := gt.Try(func() { nninit.Orthogonal_(gt.Empty(4), 1) })
	fmt.Println(err)
	// Output:
	// [0.5615 -0.1069 -0.7939 0.2071 -0.3906 -0.7681 -0.0409 0.5058]
	// true
	// Only tensors with 2 or more dimensions are supported
}

// TruncNormal_: a ViT-style weight after torch.manual_seed(0): normal with std 0.02,
// truncated to two standard deviations.
func Example_truncNormal() {
	gt.ManualSeed(0)
	w := nninit.TruncNormal_(gt.Empty(2, 6), 0, 0.02, -0.04, 0.04)
	fmt.Printf("%.4f\n", w.Float64s())
	// Output:
	// [-0.0002 0.0139 -0.0248 -0.0208 -0.0096 0.0065 -0.0005 0.0233 -0.0021 0.0064 -0.0074 -0.0047]
}

// Dirac_ and Eye_: a Conv1d(2, 4, 3, groups=2) weight that passes
// each group's input channel on; the identity of a Linear(3, 2).
func Example_dirac() {
	w := nninit.Dirac_(gt.Empty(4, 1, 3), 2)
	fmt.Println(w.Float64s())
	fmt.Println(nninit.Eye_(gt.Empty(2, 3)).Float64s())
	// Output:
	// [0 1 0 0 0 0 0 1 0 0 0 0]
	// [1 0 0 0 1 0]
}
