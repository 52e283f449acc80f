package autograd

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
