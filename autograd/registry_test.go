package autograd

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goaten/goaten/aten/args"
	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

var update = flag.Bool("update", false, "rewrite testdata/no_derivative.txt")

// TestDerivativeTable checks that every core op has an entry in the
// derivative table. The ops without a derivative (PyTorch does not
// differentiate them, or goaten lacks the op) are listed with the table's
// reason in testdata/no_derivative.txt; the test fails when that list
// changes (-update rewrites it) and for any core op with no entry at all.
func TestDerivativeTable(t *testing.T) {
	var lines []string
	for _, name := range core.Names {
		op := tensor.MustOp(name)
		d := derivatives[op]
		switch {
		case d == nil:
			t.Errorf("%s has no entry in the derivative table", name)
		case d.Reason != "":
			lines = append(lines, name+"\t"+d.Reason)
		case d.Backward == nil:
			t.Errorf("%s: an entry without a formula needs a reason", name)
		}
	}
	path := filepath.Join("testdata", "no_derivative.txt")
	got := "# Core ops without a derivative: op<TAB>reason. Kept by TestDerivativeTable (-update).\n" + strings.Join(lines, "\n") + "\n"
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != got {
		t.Errorf("core ops without a derivative changed; run `go test -run TestDerivativeTable -update ./autograd` and review the diff.\nwant:\n%s\ngot:\n%s", b, got)
	}
	t.Logf("%d core ops, %d without a derivative", len(core.Names), len(lines))
}

// Every in-place core op is recorded through its functional op's entry.
func TestInplaceOpsHaveFunctionalDerivatives(t *testing.T) {
	for _, name := range core.InplaceNames {
		op := tensor.MustOp(name)
		f, _, ok := op.Functional()
		if !ok || !op.HasKernel(tensor.KeyAutograd) {
			t.Errorf("%s has no Autograd kernel", name)
			continue
		}
		if derivatives[f] == nil {
			t.Errorf("%s: functional op %s has no derivative entry", name, f.Name)
		}
	}
}

// TestCtxArgs checks what a formula sees through Args: the forward call's
// non-tensor arguments, and nil in place of its tensors (a nil list for a
// Tensor[]), which it reads with the checked accessors at the positions
// of the op's position function.
func TestCtxArgs(t *testing.T) {
	x := SetRequiresGrad(tensor.FromSlice([]float64{1, 2, 3, 4}, 2, 2), true)
	y := tensor.FromSlice([]float64{5, 6}, 2, 1)
	out := tensor.Cat([]*T{x, y}, tensor.WithDim(1))
	n := GradFn(out)
	c := &Ctx{on: n.fn.(*opNode), node: n}
	p, at := args.CatOf(c.Args()), args.CatAt()
	if p.Tensors != nil || p.Dim != 1 {
		t.Errorf("cat's view through Args: tensors %v, dim %d; want nil, 1", p.Tensors, p.Dim)
	}
	if l, ok := c.Args()[at.Tensors].([]*T); !ok || l != nil {
		t.Errorf("Args()[%d] is %#v, want a nil []*T", at.Tensors, c.Args()[at.Tensors])
	}
	if ts := c.Ts(at.Tensors); len(ts) != 2 || ts[1].Size(1) != 1 {
		t.Errorf("Ts gives %v", ts)
	}
	if l, _ := c.on.args[at.Tensors].([]*T); len(l) != 2 || l[0] != x {
		t.Errorf("Args changed the saved list: %v", c.on.args[at.Tensors])
	}
}
