package export_test

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	_ "github.com/goaten/goaten" // the CPU and meta devices
	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/export"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/examples/newdevice"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/tensor"
)

type T = tensor.Tensor

var update = flag.Bool("update", false, "rewrite the golden files and the saved archive under testdata")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

// sameBits reports how two tensors differ: dtype, shape or the bits of a
// value.
func sameBits(got, want *T) error {
	if got == nil || want == nil {
		return fmt.Errorf("got %v, want %v", got, want)
	}
	if got.DType() != want.DType() || !slices.Equal(got.Sizes(), want.Sizes()) {
		return fmt.Errorf("got %s%v, want %s%v", got.DType(), got.Sizes(), want.DType(), want.Sizes())
	}
	g, w := got.Float64s(), want.Float64s()
	for i := range g {
		if math.Float64bits(g[i]) != math.Float64bits(w[i]) {
			return fmt.Errorf("element %d: got %v, want %v (all: %v vs %v)", i, g[i], w[i], g, w)
		}
	}
	return nil
}

func mustExport(t *testing.T, m nn.Module, args []*T, opts ...export.Options) *export.ExportedProgram {
	t.Helper()
	ep, err := export.Export(m, args, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

// TestExportMLP: parameters become p_ placeholders before the user inputs,
// the graph returns a tuple, the program prints as PyTorch prints one.
func TestExportMLP(t *testing.T) {
	ep := mustExport(t, newMLP(), []*T{seq(0, 2, 4)}, export.Options{InputNames: []string{"x"}})
	wantCode := `


def forward(self, p_w, p_b, x):
    mm = torch.ops.aten.mm.default(x, p_w);  x = p_w = None
    add = torch.ops.aten.add.Tensor(mm, p_b);  mm = p_b = None
    relu = torch.ops.aten.relu.default(add);  add = None
    return (relu,)
    `
	if got := ep.GraphModule.Code(); got != wantCode {
		t.Errorf("code:\n%s\nwant:\n%s", got, wantCode)
	}
	want := `ExportedProgram:
    class GraphModule(torch.nn.Module):
        def forward(self, p_w: "f32[4, 3]", p_b: "f32[3]", x: "f32[2, 4]"):
            mm: "f32[2, 3]" = torch.ops.aten.mm.default(x, p_w);  x = p_w = None
            add: "f32[2, 3]" = torch.ops.aten.add.Tensor(mm, p_b);  mm = p_b = None
            relu: "f32[2, 3]" = torch.ops.aten.relu.default(add);  add = None
            return (relu,)
            
Graph signature: 
    # inputs
    p_w: PARAMETER target='w'
    p_b: PARAMETER target='b'
    x: USER_INPUT
    
    # outputs
    relu: USER_OUTPUT
    
Range constraints: {}
`
	if got := ep.String(); got != want {
		t.Errorf("String:\n%s\nwant:\n%s", got, want)
	}
}

// TestExportSignature: a net with parameters, buffers written in place
// (batch norm in training mode) and constant tensors.
func TestExportSignature(t *testing.T) {
	n := newNet()
	before := stateValues(n)
	ep := mustExport(t, n, []*T{seq(0, 2, 4)}, export.Options{InputNames: []string{"x"}})
	if after := stateValues(n); !slices.Equal(before, after) {
		t.Errorf("Export changed the module's state: %v -> %v", before, after)
	}
	for _, p := range n.NamedParameters() {
		if !p.Tensor.RequiresGrad() {
			t.Errorf("%s no longer requires grad", p.Name)
		}
	}
	golden(t, "net.txt", ep.String())
	sig := ep.GraphSignature
	check := func(what string, got, want any) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: got %v, want %v", what, got, want)
		}
	}
	check("Parameters", sig.Parameters(), []string{"fc1.weight", "fc1.bias", "bn.weight", "bn.bias", "fc2.weight", "fc2.bias"})
	check("Buffers", sig.Buffers(), []string{"bn.running_mean", "bn.running_var", "bn.num_batches_tracked"})
	check("NonPersistentBuffers", sig.NonPersistentBuffers(), []string(nil))
	check("UserInputs", sig.UserInputs(), []string{"x"})
	check("InputsToParameters", sig.InputsToParameters()["p_fc1_weight"], "fc1.weight")
	check("InputsToBuffers", sig.InputsToBuffers()["b_bn_running_var"], "bn.running_var")
	consts := sig.LiftedTensorConstants()
	if !slices.Contains(consts, "sc.scale") || !slices.Contains(consts, "sc.shift_by") {
		t.Errorf("LiftedTensorConstants %v lacks sc.scale and sc.shift_by (field names, tag)", consts)
	}
	check("InputsToLiftedTensorConstants", sig.InputsToLiftedTensorConstants()["c_sc_scale"], "sc.scale")
	var mutated []string
	for _, b := range sig.BuffersToMutate() {
		mutated = append(mutated, b)
	}
	sort.Strings(mutated)
	check("BuffersToMutate", mutated, []string{"bn.num_batches_tracked", "bn.running_mean", "bn.running_var"})
	check("UserInputsToMutate", len(sig.UserInputsToMutate()), 0)
	check("BackwardSignature", sig.BackwardSignature() == nil, true)
	check("tokens", len(sig.InputTokens())+len(sig.OutputTokens()), 0)
	// Outputs: the buffer mutations first, then the user output.
	var kinds []string
	for _, o := range sig.OutputSpecs {
		kinds = append(kinds, o.Kind.String())
	}
	check("output kinds", kinds, []string{"BUFFER_MUTATION", "BUFFER_MUTATION", "BUFFER_MUTATION", "USER_OUTPUT"})
	check("UserOutputs", len(sig.UserOutputs()), 1)
	// No get_attr: the state is lifted.
	for _, node := range ep.GraphModule.Graph.Nodes() {
		if node.Op == fx.OpGetAttr {
			t.Errorf("get_attr node %s in an export graph", node.Name)
		}
	}
	// State and constants hold the module's own tensors.
	if ep.StateDict["fc1.weight"] != n.FC1.Weight || ep.StateDict["bn.running_mean"] != n.BN.RunningMean {
		t.Error("the state dict does not hold the module's tensors")
	}
	if ep.Constants["sc.scale"] != n.Sc.Scale {
		t.Error("the constants do not hold the module's constant tensor")
	}
	// In eval mode nothing is written.
	n.Eval()
	ep = mustExport(t, n, []*T{seq(0, 2, 4)})
	if len(ep.GraphSignature.OutputSpecs) != 1 || ep.GraphSignature.OutputSpecs[0].Kind != export.UserOutput {
		t.Errorf("eval mode outputs: %v", ep.GraphSignature.OutputSpecs)
	}
}

func stateValues(m *net) []float64 {
	var out []float64
	for _, p := range m.StateDict().Keys {
		out = append(out, m.StateDict().Tensors[p].Float64s()...)
	}
	return out
}

// TestNonPersistentBuffer: a buffer left out of the state dict is a
// BUFFER input with persistent=False, kept with the constants.
func TestNonPersistentBuffer(t *testing.T) {
	m := &counter{}
	m.Steps = m.RegisterBuffer("steps", tensor.FullOf(tensor.Float32, 0, 1), false)
	ep := mustExport(t, m, []*T{seq(1, 3)})
	sig := ep.GraphSignature
	if got := sig.InputSpecs[0].String(); got != "b_steps: BUFFER target='steps' persistent=False" {
		t.Errorf("input spec %q", got)
	}
	if got := sig.OutputSpecs[0].String(); got != "add: BUFFER_MUTATION target='steps'" {
		t.Errorf("output spec %q", got)
	}
	if fmt.Sprint(sig.NonPersistentBuffers()) != "[steps]" || ep.Constants["steps"] != m.Steps || ep.StateDict["steps"] != nil {
		t.Errorf("non-persistent buffer: %v, constants %v", sig.NonPersistentBuffers(), ep.Constants)
	}
	eager := &counter{Steps: tensor.FullOf(tensor.Float32, 0, 1)}
	for range 2 {
		out, err := ep.Module().Forward(seq(1, 3))
		if err != nil {
			t.Fatal(err)
		}
		if err := sameBits(out[0], eager.Forward(seq(1, 3))); err != nil {
			t.Error(err)
		}
	}
	if got := m.Steps.Float64s(); got[0] != 2 {
		t.Errorf("steps %v after two calls", got)
	}
}

// counter counts its calls in a non-persistent buffer.
type counter struct {
	nn.Base
	Steps *T
}

func (c *counter) Forward(x *T) *T {
	c.Steps.Add_(num(1))
	return x.Add(c.Steps)
}

// TestModuleMatchesEager runs the exported net (training mode: it updates
// its running statistics) twice and compares every output and buffer with
// the eager module's, bit for bit, on the CPU and on the gonum device.
func TestModuleMatchesEager(t *testing.T) {
	for _, dev := range []tensor.Device{tensor.CPU, newdevice.Device} {
		t.Run(dev.String(), func(t *testing.T) {
			eager, exported := newNet().to(dev), newNet().to(dev)
			x := seq(0.3, 2, 4).ToDevice(dev)
			ep := mustExport(t, exported, []*T{x})
			m := ep.Module()
			for call := range 2 {
				want := eager.Forward(x)
				got, err := m.Forward(x)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != 1 {
					t.Fatalf("%d outputs", len(got))
				}
				if err := sameBits(got[0], want); err != nil {
					t.Errorf("call %d: output: %v", call, err)
				}
				for _, b := range eager.NamedBuffers() {
					if err := sameBits(ep.StateDict[b.Name], b.Tensor); err != nil {
						t.Errorf("call %d: buffer %s: %v", call, b.Name, err)
					}
				}
				if got[0].Device() != dev || exported.BN.RunningMean.Device() != dev {
					t.Errorf("ran on %s, buffers on %s", got[0].Device(), exported.BN.RunningMean.Device())
				}
			}
			// The module holds the state under PyTorch's names.
			var keys []string
			keys = append(keys, m.StateDict().Keys...)
			if got := strings.Join(keys, " "); got != "fc1.weight fc1.bias bn.weight bn.bias bn.running_mean bn.running_var bn.num_batches_tracked fc2.weight fc2.bias" {
				t.Errorf("state dict keys %s", got)
			}
		})
	}
}

// TestUserInputMutation: an input written in place is a
// USER_INPUT_MUTATION output, and the module writes it back.
func TestUserInputMutation(t *testing.T) {
	ep := mustExport(t, &addIn{}, []*T{seq(0, 2, 3)}, export.Options{InputNames: []string{"x"}})
	want := `


def forward(self, x):
    add = torch.ops.aten.add.Tensor(x, 1.0);  x = None
    mul = torch.ops.aten.mul.Tensor(add, 2.0)
    return (add, mul)
    `
	if got := ep.GraphModule.Code(); got != want {
		t.Errorf("code:\n%s\nwant:\n%s", got, want)
	}
	if got := fmt.Sprint(ep.GraphSignature.UserInputsToMutate()); got != "map[add:x]" {
		t.Errorf("UserInputsToMutate %s", got)
	}
	for _, dev := range []tensor.Device{tensor.CPU, newdevice.Device} {
		x, y := seq(0, 2, 3).ToDevice(dev), seq(0, 2, 3).ToDevice(dev)
		want := (&addIn{}).Forward(y)
		got, err := ep.Module().Forward(x)
		if err != nil {
			t.Fatal(err)
		}
		if err := sameBits(got[0], want); err != nil {
			t.Errorf("%s output: %v", dev, err)
		}
		if err := sameBits(x, y); err != nil {
			t.Errorf("%s input after the call: %v", dev, err)
		}
	}
}

// TestExportErrors: what export refuses, in words that say why.
func TestExportErrors(t *testing.T) {
	x := seq(0, 2, 4)
	cases := []struct {
		name string
		m    nn.Module
		args []*T
		want string
	}{
		{"no Forward", &noForward{}, []*T{x}, "has no Forward method"},
		{"argument count", newMLP(), []*T{x, x}, "it takes 1 arguments, 2 inputs given"},
		{"argument type", &badForward{}, []*T{x}, "argument 0 is int, not *tensor.Tensor"},
		{"nil input", newMLP(), []*T{nil}, "input 0 is nil"},
		{"parameter mutation", newParamWriter(), []*T{x}, "a leaf Variable that requires grad is being used in an in-place operation."},
		{"constant mutation", &constWriter{C: seq(0, 4)}, []*T{x}, "into a tensor it holds that is neither a parameter nor a buffer"},
		{"data-dependent", &itemReader{}, []*T{x}, "data-dependent"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := export.Export(c.m, c.args)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

type noForward struct{ nn.Base }

type badForward struct{ nn.Base }

func (*badForward) Forward(int) *T { return nil }

type paramWriter struct {
	nn.Base
	W *T
}

func newParamWriter() *paramWriter {
	p := &paramWriter{}
	p.W = p.RegisterParameter("w", seq(0, 4))
	return p
}

func (p *paramWriter) Forward(x *T) *T {
	autograd.NoGrad(func() { p.W.Add_(num(1)) })
	return x.Add(p.W)
}

type constWriter struct {
	nn.Base
	C *T
}

func (c *constWriter) Forward(x *T) *T {
	c.C.Add_(num(1))
	return x.Add(c.C)
}

type itemReader struct{ nn.Base }

func (*itemReader) Forward(x *T) *T { return x.Nonzero() }

// TestDynamicDims: a dynamic batch dimension is recorded as a symbol with
// its range, checked at call time in PyTorch's words; static dimensions
// must match.
func TestDynamicDims(t *testing.T) {
	m := newMLP()
	batch := export.Dim("batch", 3, 64)
	ep := mustExport(t, m, []*T{seq(0, 4, 4)}, export.Options{
		InputNames: []string{"x"}, DynamicShapes: []map[int]*export.Dimension{{0: batch}},
	})
	s := ep.String()
	if !strings.Contains(s, `x: "f32[s0, 4]"`) || !strings.HasSuffix(s, "Range constraints: {s0: VR[3, 64]}\n") {
		t.Errorf("String:\n%s", s)
	}
	mod := ep.Module()
	for _, b := range []int{3, 7, 64} {
		x := seq(-0.7, b, 4)
		got, err := mod.Forward(x)
		if err != nil {
			t.Fatalf("batch %d: %v", b, err)
		}
		if err := sameBits(got[0], m.Forward(x)); err != nil {
			t.Errorf("batch %d: %v", b, err)
		}
	}
	bad := []struct {
		x    *T
		want string
	}{
		{seq(0, 65, 4), "Expected input at *args[0].shape[0] to be <= 64, but got 65"},
		{seq(0, 2, 4), "Expected input at *args[0].shape[0] to be >= 3, but got 2"},
		{seq(0, 4, 5), "Expected input at *args[0].shape[1] to be equal to 4, but got 5"},
		{seq(0, 4), "Unexpected number of dimensions in input at *args[0].shape (expected torch.Size([s0, 4]), got torch.Size([4]))"},
	}
	for _, c := range bad {
		_, err := mod.Forward(c.x)
		if err == nil || err.Error() != c.want {
			t.Errorf("input %v: got %v, want %q", c.x.Sizes(), err, c.want)
		}
	}
	if _, err := mod.Forward(seq(0, 4, 4), seq(0, 4, 4)); err == nil || err.Error() != "Unexpected number of inputs (expected 1, got 2)" {
		t.Errorf("two inputs: %v", err)
	}
	// Sizes 0 and 1 pass a lower bound of 2 or less, as in PyTorch.
	ep = mustExport(t, m, []*T{seq(0, 4, 4)}, export.Options{DynamicShapes: []map[int]*export.Dimension{{0: export.Dim("b", 2, 8)}}})
	if _, err := ep.Module().Forward(seq(0, 1, 4)); err != nil {
		t.Errorf("batch 1 with min 2: %v", err)
	}
}

// TestSharedDim: inputs that share a Dim must agree at call time.
func TestSharedDim(t *testing.T) {
	n := export.Dim("n", 1, 100)
	ep := mustExport(t, &pair{}, []*T{seq(0, 5), seq(1, 5)}, export.Options{
		DynamicShapes: []map[int]*export.Dimension{{0: n}, {0: n}},
	})
	mod := ep.Module()
	if _, err := mod.Forward(seq(0, 7), seq(0, 7)); err != nil {
		t.Fatal(err)
	}
	_, err := mod.Forward(seq(0, 7), seq(0, 8))
	if want := "Expected input at *args[1].shape[0] to be equal to 7, but got 8"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}

type pair struct{ nn.Base }

func (*pair) Forward(a, b *T) *T { return a.Mul(b) }

// TestDynamicDimSpecialized: a size declared dynamic that reaches the graph
// as a constant export cannot compute from the inputs (batch norm's
// n/(n-1), a float) is refused at export, as PyTorch's "Constraints
// violated"; a view's shape k·size is computed from sym_size.int.
func TestDynamicDimSpecialized(t *testing.T) {
	_, err := export.Export(newNet(), []*T{seq(0, 4, 4)}, export.Options{
		InputNames: []string{"x"}, DynamicShapes: []map[int]*export.Dimension{{0: export.Dim("batch", 2, 16)}},
	})
	want := "Constraints violated (batch)!"
	if err == nil || !strings.Contains(err.Error(), want) ||
		!strings.Contains(err.Error(), "Not all values of batch = L['x'].size()[0] in the specified range 2 <= batch <= 16 are valid because batch was inferred to be a constant (4).") {
		t.Fatalf("got %v, want %q", err, want)
	}
	// A size that reaches a view's shape as k·size is computed from the
	// input: the graph holds for every size in range.
	ep, err := export.Export(&flattener{}, []*T{seq(0, 4, 3)}, export.Options{
		InputNames: []string{"x"}, DynamicShapes: []map[int]*export.Dimension{{0: export.Dim("rows", 1, 8)}},
	})
	if err != nil {
		t.Fatalf("view with a traced size: %v", err)
	}
	// The sizes print in the symbols, as print_readable shows them.
	if s := ep.String(); !strings.Contains(s, `sym_size_int: "Sym(s0)" = torch.ops.aten.sym_size.int(x, 0)`+"\n") ||
		!strings.Contains(s, `mul: "Sym(3*s0)" = sym_size_int * 3;`) || !strings.Contains(s, `view: "f32[3*s0]" = torch.ops.aten.view.default(x, [mul])`) {
		t.Errorf("String:\n%s", s)
	}
	for _, rows := range []int{1, 2, 6, 8} {
		x := seq(0.5, rows, 3)
		got, err := ep.Module().Forward(x)
		if err != nil {
			t.Fatalf("rows %d: %v", rows, err)
		}
		if err := sameBits(got[0], (&flattener{}).Forward(x)); err != nil {
			t.Errorf("rows %d: %v", rows, err)
		}
	}
	// In eval mode the batch size does not reach the graph.
	n := newNet()
	n.Eval()
	mustExport(t, n, []*T{seq(0, 4, 4)}, export.Options{DynamicShapes: []map[int]*export.Dimension{{0: export.Dim("batch", 2, 16)}}})
	// An example size outside its range.
	_, err = export.Export(newMLP(), []*T{seq(0, 4, 4)}, export.Options{DynamicShapes: []map[int]*export.Dimension{{0: export.Dim("batch", 8, 16)}}})
	if err == nil || !strings.Contains(err.Error(), "outside the range [8, 16] of Dim batch") {
		t.Fatalf("example outside the range: %v", err)
	}
}

// flattener reshapes with the size it reads: the graph computes it.
type flattener struct{ nn.Base }

func (*flattener) Forward(x *T) *T { return x.Reshape([]int{x.Size(0) * x.Size(1)}) }

// TestRunDecompositions: gelu is replaced by its decomposition; the
// placeholders keep their names and the signature the new output names.
func TestRunDecompositions(t *testing.T) {
	m := &geluNet{W: seq(-0.3, 3, 3)}
	ep := mustExport(t, m, []*T{seq(0, 2, 3)}, export.Options{InputNames: []string{"x"}})
	table, err := compile.GetDecompositions("aten::gelu")
	if err != nil {
		t.Fatal(err)
	}
	dec, err := ep.RunDecompositions(table)
	if err != nil {
		t.Fatal(err)
	}
	code := dec.GraphModule.Code()
	if strings.Contains(code, "gelu") || !strings.Contains(code, "erf") || !strings.HasPrefix(code, "\n\n\ndef forward(self, c_w, x):") {
		t.Errorf("decomposed code:\n%s", code)
	}
	outs := dec.GraphModule.Graph.OutputNode().Args()[0].(fx.Tuple)
	if name := outs[0].(*fx.Node).Name; dec.GraphSignature.UserOutputs()[0] != name || name == "gelu" {
		t.Errorf("user output %v, graph output %s", dec.GraphSignature.UserOutputs(), name)
	}
	x := seq(-1, 2, 3)
	a, err := ep.Module().Forward(x)
	if err != nil {
		t.Fatal(err)
	}
	b, err := dec.Module().Forward(x)
	if err != nil {
		t.Fatal(err)
	}
	av, bv := a[0].Float64s(), b[0].Float64s()
	for i := range av {
		if math.Abs(av[i]-bv[i]) > 1e-6 {
			t.Errorf("element %d: %v before, %v after decomposition", i, av[i], bv[i])
		}
	}
}

type geluNet struct {
	nn.Base
	W *T
}

func (g *geluNet) Forward(x *T) *T { return x.Matmul(g.W).Gelu() }

// TestPlaceholderNames: user inputs keep their names; a lifted input whose
// name is taken gets a suffix, and so does a call node, as PyTorch's
// placeholder_naming_pass does.
func TestPlaceholderNames(t *testing.T) {
	ep := mustExport(t, newMLP(), []*T{seq(0, 2, 4)}, export.Options{InputNames: []string{"p_w"}})
	if got := strings.SplitN(ep.GraphModule.Code(), "\n", 5)[3]; got != "def forward(self, p_w_1, p_b, p_w):" {
		t.Errorf("got %s", got)
	}
	if got := ep.GraphSignature.InputsToParameters()["p_w_1"]; got != "w" {
		t.Errorf("p_w_1 stands for %q", got)
	}
	ep = mustExport(t, newMLP(), []*T{seq(0, 2, 4)}, export.Options{InputNames: []string{"mm"}})
	if code := ep.GraphModule.Code(); !strings.Contains(code, "mm_1 = torch.ops.aten.mm.default(mm, p_w)") {
		t.Errorf("code:\n%s", code)
	}
	if _, err := export.Export(newMLP(), []*T{seq(0, 2, 4)}, export.Options{InputNames: []string{"not a name"}}); err == nil {
		t.Error("an input name that is not an identifier was accepted")
	}
}

// TestExportWithDecompositions: a decomposition table applies while
// tracing; RunDecompositions also works on a loaded program.
func TestExportWithDecompositions(t *testing.T) {
	table, err := compile.GetDecompositions("aten::gelu")
	if err != nil {
		t.Fatal(err)
	}
	m := &geluNet{W: seq(-0.3, 3, 3)}
	ep := mustExport(t, m, []*T{seq(0, 2, 3)}, export.Options{Decompositions: table})
	if code := ep.GraphModule.Code(); strings.Contains(code, "gelu") {
		t.Errorf("code:\n%s", code)
	}
	loaded := loadBytes(t, saveBytes(t, mustExport(t, m, []*T{seq(0, 2, 3)})))
	dec, err := loaded.RunDecompositions(table)
	if err != nil {
		t.Fatal(err)
	}
	if dec.GraphModule.Code() != ep.GraphModule.Code() {
		t.Errorf("decomposed after loading:\n%s\nwhile tracing:\n%s", dec.GraphModule.Code(), ep.GraphModule.Code())
	}
}
