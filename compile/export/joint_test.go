package export_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile/export"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/tensor"
)

// lossMLP is an MLP (nn.Sequential of Linear, ReLU, Linear) with a mean
// squared error loss: Forward returns the loss and the detached
// prediction.
type lossMLP struct {
	nn.Base
	Net *nn.Sequential
}

func newLossMLP() *lossMLP {
	tensor.ManualSeed(21)
	m := &lossMLP{}
	m.SetName("LossMLP")
	m.Net = nn.NewSequential(nn.NewLinear(4, 5), nn.NewReLU(), nn.NewLinear(5, 3))
	m.RegisterModule("net", m.Net)
	return m
}

func (m *lossMLP) Forward(x, y *T) (*T, *T) {
	out := m.Net.Forward(x)
	d := out.Sub(y)
	return d.Mul(d).Mean(), out.Detach()
}

func exportJoint(t *testing.T, m nn.Module, args []*T, o export.JointOptions) *export.ExportedProgram {
	t.Helper()
	ep, err := export.ExportJoint(m, args, o)
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

// checkJoint compares a joint program's run with eager's loss.Backward():
// the loss, the prediction, every parameter's .grad and x's .grad, bit for
// bit (the graph runs the kernels eager's forward and backward run, in the
// same order).
func checkJoint(t *testing.T, what string, ep *export.ExportedProgram, x, y *T) {
	t.Helper()
	res, err := ep.RunJoint(x, y)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	eager := newLossMLP()
	ex := x.Detach().Clone().SetRequiresGrad(true)
	loss, pred := eager.Forward(ex, y)
	loss.Backward()
	if err := sameBits(res.Loss, loss.Detach()); err != nil {
		t.Errorf("%s: loss: %v", what, err)
	}
	if len(res.Outputs) != 2 || res.Outputs[0] != res.Loss {
		t.Fatalf("%s: outputs %v, want the loss then the prediction", what, res.Outputs)
	}
	if err := sameBits(res.Outputs[1], pred); err != nil {
		t.Errorf("%s: prediction: %v", what, err)
	}
	if res.Loss.RequiresGrad() {
		t.Errorf("%s: the loss the joint graph returns requires grad", what)
	}
	params := eager.NamedParameters()
	if len(res.ParamGrads) != len(params) {
		t.Errorf("%s: %d parameter gradients, want %d", what, len(res.ParamGrads), len(params))
	}
	for _, p := range params {
		if err := sameBits(res.ParamGrads[p.Name], p.Tensor.Grad()); err != nil {
			t.Errorf("%s: gradient of %s: %v", what, p.Name, err)
		}
	}
	if len(res.InputGrads) != 1 {
		t.Errorf("%s: input gradients %v, want x's only", what, res.InputGrads)
	}
	if err := sameBits(res.InputGrads["x"], ex.Grad()); err != nil {
		t.Errorf("%s: gradient of x: %v", what, err)
	}
}

// TestExportJointMLP: the joint graph of an MLP's loss returns the loss
// (LOSS_OUTPUT), the detached prediction, the gradients of the four
// parameters and of x, which requires grad (y does not: it gets none);
// running it gives eager's loss.Backward() bit for bit; the module is left
// as it was (no .grad written, parameters still requiring grad).
func TestExportJointMLP(t *testing.T) {
	m := newLossMLP()
	x := seq(-0.3, 2, 4).SetRequiresGrad(true)
	y := seq(0.2, 2, 3)
	ep := exportJoint(t, m, []*T{x, y}, export.JointOptions{Options: export.Options{InputNames: []string{"x", "y"}}})
	for _, p := range m.NamedParameters() {
		if p.Tensor.Grad() != nil || !p.Tensor.RequiresGrad() {
			t.Errorf("ExportJoint changed %s: grad %v, requires grad %v", p.Name, p.Tensor.Grad(), p.Tensor.RequiresGrad())
		}
	}
	if x.Grad() != nil {
		t.Errorf("ExportJoint wrote x.grad: %v", x.Grad())
	}
	wantSig := `
# inputs
p_net_0_weight: PARAMETER target='net.0.weight'
p_net_0_bias: PARAMETER target='net.0.bias'
p_net_2_weight: PARAMETER target='net.2.weight'
p_net_2_bias: PARAMETER target='net.2.bias'
x: USER_INPUT
y: USER_INPUT

# outputs
mean: LOSS_OUTPUT
alias: USER_OUTPUT
permute_3: GRADIENT_TO_PARAMETER target='net.0.weight'
sum_2: GRADIENT_TO_PARAMETER target='net.0.bias'
permute_2: GRADIENT_TO_PARAMETER target='net.2.weight'
sum_1: GRADIENT_TO_PARAMETER target='net.2.bias'
mm_2: GRADIENT_TO_USER_INPUT target='x'
`
	if got := ep.GraphSignature.String(); got != wantSig {
		t.Errorf("signature:\n%s\nwant:\n%s", got, wantSig)
	}
	bs := ep.GraphSignature.BackwardSignature()
	if bs == nil {
		t.Fatal("no backward signature")
	}
	if got, want := fmt.Sprint(*bs), "{map[permute_2:net.2.weight permute_3:net.0.weight sum_1:net.2.bias sum_2:net.0.bias] map[mm_2:x] mean}"; got != want {
		t.Errorf("backward signature %s, want %s", got, want)
	}
	if got := fmt.Sprint(ep.GraphSignature.UserOutputs()); got != "[mean alias]" {
		t.Errorf("user outputs %s", got)
	}
	// The graph takes no tangents: the backward starts from ones_like(loss).
	if n := len(ep.Graph().Placeholders()); n != 6 {
		t.Errorf("%d placeholders, want 6", n)
	}
	checkJoint(t, "exported", ep, x, y)
	// Module.Forward runs it too, returning the user outputs.
	outs, err := ep.Module().Forward(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 2 {
		t.Errorf("Module.Forward returned %d outputs, want the loss and the prediction", len(outs))
	}
}

// TestExportJointRoundTrip: a saved joint program loads with its
// LOSS_OUTPUT and gradient specs and runs as the exported one.
func TestExportJointRoundTrip(t *testing.T) {
	x := seq(0.1, 3, 4).SetRequiresGrad(true)
	y := seq(-0.4, 3, 3)
	ep := exportJoint(t, newLossMLP(), []*T{x, y}, export.JointOptions{Options: export.Options{InputNames: []string{"x", "y"}}})
	back := loadBytes(t, saveBytes(t, ep))
	if got, want := back.GraphSignature.String(), ep.GraphSignature.String(); got != want {
		t.Errorf("loaded signature:\n%s\nwant:\n%s", got, want)
	}
	if got, want := fmt.Sprint(*back.GraphSignature.BackwardSignature()), fmt.Sprint(*ep.GraphSignature.BackwardSignature()); got != want {
		t.Errorf("loaded backward signature %s, want %s", got, want)
	}
	if got, want := back.String(), ep.String(); got != want {
		t.Errorf("loaded program:\n%s\nwant:\n%s", got, want)
	}
	checkJoint(t, "loaded", back, x, y)
}

// TestExportJointErrors: PyTorch's refusals (aot_export_module's words).
func TestExportJointErrors(t *testing.T) {
	x := seq(-0.3, 2, 4)
	y := seq(0.2, 2, 3)
	cases := []struct {
		name string
		m    nn.Module
		idx  int
		want string
	}{
		{"the loss at 1", newLossMLP(), 1, "You specified that output index 1 is the loss, but we found that\nthe output at index 0 requires gradients."},
		{"loss not requiring grad", &detachedLoss{newLossMLP()}, 0, "The output at index 0 was marked as the loss, but it does not require gradients"},
		{"index out of range", newLossMLP(), 2, "You specified that output index 2 is the loss, but we found that\nthe output at index 0 requires gradients."},
		{"index out of range", &detachedLoss{newLossMLP()}, 1, "tuple index out of range: output_loss_index 1, and Forward returns 1 outputs"},
		{"non-scalar loss", &vectorLoss{newLossMLP()}, 0, "We require the output marked as the loss (at index 0) to be a scalar, but it has shape torch.Size([2, 3])"},
		{"other output requires grad", &twoLosses{newLossMLP()}, 0, "You specified that output index 0 is the loss, but we found that\nthe output at index 1 requires gradients."},
		{"unused parameter", &unusedParam{newLossMLP(), nil}, 0, "Found a parameter that did not receive a gradient.\n\"This is most likely a bug, but if this needs to be supported please comment on this Github issue:\nhttps://github.com/pytorch/pytorch/issues/101192\n(parameter extra)"},
	}
	for _, c := range cases {
		if u, ok := c.m.(*unusedParam); ok {
			u.Extra = u.RegisterParameter("extra", seq(0, 2))
		}
		_, err := export.ExportJoint(c.m, []*T{x, y}, export.JointOptions{OutputLossIndex: c.idx})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := export.ExportJoint(newLossMLP(), []*T{x, y}, export.JointOptions{Options: export.Options{DynamicShapes: []map[int]*export.Dimension{{0: export.Dim("b", 1, 8)}}}}); err == nil {
		t.Error("dynamic shapes: no error")
	}
	ep := mustExport(t, newMLP(), []*T{seq(0, 2, 4)})
	if _, err := ep.RunJoint(seq(0, 2, 4)); err == nil || !strings.Contains(err.Error(), "no LOSS_OUTPUT") {
		t.Errorf("RunJoint of a forward program: %v", err)
	}
}

// vectorLoss returns the squared error unreduced.
type vectorLoss struct{ *lossMLP }

func (m *vectorLoss) Forward(x, y *T) *T {
	d := m.Net.Forward(x).Sub(y)
	return d.Mul(d)
}

// twoLosses returns the loss and the prediction undetached.
type twoLosses struct{ *lossMLP }

func (m *twoLosses) Forward(x, y *T) (*T, *T) {
	out := m.Net.Forward(x)
	d := out.Sub(y)
	return d.Mul(d).Mean(), out
}

// unusedParam has a parameter its loss does not use.
type unusedParam struct {
	*lossMLP
	Extra *T
}

// detachedLoss returns its loss detached.
type detachedLoss struct{ *lossMLP }

func (m *detachedLoss) Forward(x, y *T) *T {
	l, _ := m.lossMLP.Forward(x, y)
	return l.Detach()
}

// netLoss is net's mean: a loss over linear -> batch norm (training, its
// running statistics written in place) -> relu -> linear, with a constant.
type netLoss struct {
	nn.Base
	N *net
}

func newNetLoss() *netLoss {
	m := &netLoss{}
	m.SetName("NetLoss")
	m.N = nn.Register(m, "n", newNet())
	return m
}

func (m *netLoss) Forward(x *T) *T { return m.N.Forward(x).Mean() }

// TestExportJointBufferMutation: the new running statistics come first
// (BUFFER_MUTATION), then the loss, then the gradients; the constant is an
// input without a gradient. A run writes the buffers as eager's forward
// does and returns eager's gradients bit for bit.
func TestExportJointBufferMutation(t *testing.T) {
	x := seq(0.3, 2, 4)
	ep := exportJoint(t, newNetLoss(), []*T{x}, export.JointOptions{Options: export.Options{InputNames: []string{"x"}}})
	var kinds []string
	for _, s := range ep.GraphSignature.OutputSpecs {
		kinds = append(kinds, strings.TrimSpace(s.Kind.String()+" "+s.Target))
	}
	want := "[BUFFER_MUTATION n.bn.running_mean BUFFER_MUTATION n.bn.running_var BUFFER_MUTATION n.bn.num_batches_tracked LOSS_OUTPUT " +
		"GRADIENT_TO_PARAMETER n.fc1.weight GRADIENT_TO_PARAMETER n.fc1.bias GRADIENT_TO_PARAMETER n.bn.weight GRADIENT_TO_PARAMETER n.bn.bias " +
		"GRADIENT_TO_PARAMETER n.fc2.weight GRADIENT_TO_PARAMETER n.fc2.bias]"
	if got := fmt.Sprint(kinds); got != want {
		t.Errorf("outputs %s\nwant %s", got, want)
	}
	for _, ep := range []*export.ExportedProgram{ep, loadBytes(t, saveBytes(t, ep))} {
		eager := newNetLoss()
		for call := range 2 {
			res, err := ep.RunJoint(x)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range eager.NamedParameters() {
				autograd.SetGrad(p.Tensor, nil)
			}
			loss := eager.Forward(x)
			loss.Backward()
			if err := sameBits(res.Loss, loss.Detach()); err != nil {
				t.Errorf("call %d: loss: %v", call, err)
			}
			for _, p := range eager.NamedParameters() {
				if err := sameBits(res.ParamGrads[p.Name], p.Tensor.Grad()); err != nil {
					t.Errorf("call %d: gradient of %s: %v", call, p.Name, err)
				}
			}
			for _, b := range eager.NamedBuffers() {
				if err := sameBits(ep.StateDict[b.Name], b.Tensor); err != nil {
					t.Errorf("call %d: buffer %s: %v", call, b.Name, err)
				}
			}
		}
	}
}

// TestExportJointFrozen: a parameter that does not require grad stays a
// PARAMETER input but gets no gradient output (aot_export_module returns
// gradients of the inputs that require grad only), nor does an input that
// does not require grad.
func TestExportJointFrozen(t *testing.T) {
	m := newLossMLP()
	for _, p := range m.NamedParameters() {
		if p.Name == "net.0.weight" {
			p.Tensor.SetRequiresGrad(false)
		}
	}
	ep := exportJoint(t, m, []*T{seq(-0.3, 2, 4), seq(0.2, 2, 3)}, export.JointOptions{})
	bs := ep.GraphSignature.BackwardSignature()
	var targets []string
	for _, s := range ep.GraphSignature.OutputSpecs {
		if s.Kind == export.GradientToParameter {
			targets = append(targets, s.Target)
		}
	}
	if got := fmt.Sprint(targets); got != "[net.0.bias net.2.weight net.2.bias]" {
		t.Errorf("gradients of %s", got)
	}
	if len(bs.GradientsToUserInputs) != 0 {
		t.Errorf("input gradients %v for inputs that do not require grad", bs.GradientsToUserInputs)
	}
	if got := fmt.Sprint(ep.GraphSignature.Parameters()); got != "[net.0.weight net.0.bias net.2.weight net.2.bias]" {
		t.Errorf("parameters %s", got)
	}
}
