package models_test

import (
	"math"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/examples/models"
	"github.com/goaten/goaten/optim"
)

// Five training steps of the MLP on its batch follow PyTorch 1.13's: the
// losses before each step and fc2.bias after the last one. PyTorch's
// numbers come from torch.optim.SGD(lr=0.1, momentum=0.9) and
// torch.optim.Adam(lr=1e-3) on the same weights and batch
// (zero_grad, F.cross_entropy(model(x), labels).backward(), step).
func TestMLPTraining(t *testing.T) {
	cases := []struct {
		name   string
		make   func([]*gt.Tensor) (optim.Optimizer, error)
		losses []float64
		bias   []float64
	}{
		{"sgd momentum", func(ps []*gt.Tensor) (optim.Optimizer, error) {
			return optim.NewSGD(ps, optim.WithLR(0.1), optim.WithMomentum(0.9))
		},
			[]float64{2.3431427478790283, 2.108839511871338, 1.8240506649017334, 1.444288969039917, 0.9991636872291565},
			[]float64{-0.19725574553012848, 0.04503706842660904, -0.028492147102952003, -0.017450805753469467, 0.06782042235136032, -0.09103702753782272, -0.0677085742354393, -0.008124850690364838, -0.033249106258153915, -0.029058657586574554}},
		{"adam", func(ps []*gt.Tensor) (optim.Optimizer, error) {
			return optim.NewAdam(ps)
		},
			[]float64{2.3431427478790283, 2.090873956680298, 1.888378620147705, 1.6992127895355225, 1.5146219730377197},
			[]float64{-0.11433586478233337, 0.035957518965005875, -0.04375995695590973, -0.024656735360622406, 0.06987941265106201, -0.10300382971763611, 0.010186869651079178, -0.04302540048956871, -0.0746823102235794, -0.05214916914701462}},
	}
	in := load(t, "mlp", "inputs")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := models.NewMLP(load(t, "mlp", "weights"))
			if err != nil {
				t.Fatal(err)
			}
			params := []*gt.Tensor{m.FC1.Weight, m.FC1.Bias, m.FC2.Weight, m.FC2.Bias}
			for _, p := range params {
				p.SetRequiresGrad(true)
			}
			opt, err := c.make(params)
			if err != nil {
				t.Fatal(err)
			}
			for step, want := range c.losses {
				opt.ZeroGrad()
				loss := models.Loss(m.Forward(in["x"]), in["labels"])
				if got := loss.Item().Float64(); math.Abs(got-want) > 1e-5*math.Abs(want) {
					t.Errorf("loss before step %d: got %.9g, want %.9g", step+1, got, want)
				}
				loss.Backward()
				opt.Step()
			}
			compareTol(t, "fc2.bias", m.FC2.Bias, gt.FromFloat64s(c.bias, 10).To(gt.Float32), 1e-5, 1e-6)
		})
	}
}
