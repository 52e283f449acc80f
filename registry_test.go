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
// CPU lowering. What is missing is listed in testdata/registry_missing.txt as
// "op<TAB>what<TAB>reason"; the test fails when the list changes without the
// file (-update rewrites it, keeping the reasons) or when an entry has no reason.
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
	path := filepath.Join("testdata", "registry_missing.txt")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	var listed []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, "\t", 3)
		key := strings.Join(f[:min(2, len(f))], "\t")
		listed = append(listed, key)
		if len(f) == 3 && strings.TrimSpace(f[2]) != "" {
			reasons[key] = f[2]
		} else if !*update {
			t.Errorf("registry_missing.txt: %q has no reason", line)
		}
	}
	if *update {
		var out strings.Builder
		out.WriteString("# Core ops lacking a piece: op<TAB>what<TAB>reason. Kept by TestRegistry (-update).\n")
		for _, m := range missing {
			r := reasons[m]
			if r == "" {
				r = "TODO: say why"
			}
			out.WriteString(m + "\t" + r + "\n")
		}
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if strings.Join(listed, "\n") != strings.Join(missing, "\n") {
		t.Errorf("missing core kernels changed; run `go test -run TestRegistry -update .` and review the diff.\nlisted:\n%s\nmissing now:\n%s",
			strings.Join(listed, "\n"), strings.Join(missing, "\n"))
	}
	t.Logf("%d core ops, %d missing entries", len(core.Names), len(missing))
}
