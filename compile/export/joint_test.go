package export_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/goaten/goaten/compile/export"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/tensor"
)

// lossNet is an MLP (nn.Sequential of Linear, ReLU, Linear) with a mean
// squared error loss: Forward returns the loss and the detached
// prediction.
type lossNet struct {
	nn.Base
	Net *nn.Sequential
}

func newLossNet() *lossNet {
	tensor.ManualSeed(21)
	m := &lossNet{}
	m.Net = nn.NewSequential(nn.NewLinear(4, 5), nn.NewReLU(), nn.NewLinear(5, 3))
	m.RegisterModule("net", m.Net)
	return m
}

func (m *lossNet) Forward(x, y *T) (*T, *T) {
	out := m.Net.Forward(x)
	d := out.Sub(y)
	return d.Mul(d).Mean(), out.Detach()
}

func TestExportJointPrint(t *testing.T) {
	m := newLossNet()
	x := seq(-0.3, 2, 4).SetRequiresGrad(true)
	y := seq(0.2, 2, 3)
	ep, err := export.ExportJoint(m, []*T{x, y}, export.JointOptions{Options: export.Options{InputNames: []string{"x", "y"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(ep.String())
	t.Logf("%+v", ep.GraphSignature.BackwardSignature())
	res, err := ep.RunJoint(x, y)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res.Loss, res.ParamGrads, res.InputGrads)
	var buf bytes.Buffer
	if err := ep.Save(&buf); err != nil {
		t.Fatal(err)
	}
	_ = strings.Contains
}
