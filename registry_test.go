package goaten_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goaten/goaten/aten/core"
	"github.com/goaten/goaten/tensor"
)

var update = flag.Bool("update", false, "rewrite expect files under testdata")

// TestRegistry checks that every core op has a schema, a meta function and a
// CPU lowering. What is missing is listed in testdata/registry_missing.txt;
// the test fails when the list changes without the file (run with -update).
func TestRegistry(t *testing.T) {
	if len(core.Names) != 193 {
		t.Errorf("core table has %d ops, want 193", len(core.Names))
	}
	var missing []string
	for _, name := range core.Names {
		op, ok := tensor.LookupOp(name)
		if !ok {
			missing = append(missing, name+"\tschema")
			continue
		}
		if !op.Core {
			t.Errorf("%s is not marked core", name)
		}
		if op.Meta == nil {
			missing = append(missing, name+"\tmeta")
		}
		if op.BackendKernel(tensor.CPU) == nil {
			missing = append(missing, name+"\tcpu")
		}
	}
	got := strings.Join(missing, "\n")
	if got != "" {
		got += "\n"
	}
	path := filepath.Join("testdata", "registry_missing.txt")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("missing core kernels changed; run `go test -run TestRegistry -update .` and review the diff.\ngot:\n%s", got)
	}
	t.Logf("%d core ops, %d missing entries", len(core.Names), len(missing))
}
