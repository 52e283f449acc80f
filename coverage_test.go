package goaten_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goaten/goaten/device"
	"github.com/goaten/goaten/examples/newdevice"
	"github.com/goaten/goaten/tensor"
)

// coverageDevices are the columns of docs/COVERAGE.md: the two built-in
// devices and the example device written against the public API.
var coverageDevices = []tensor.Device{tensor.CPU, tensor.Meta, newdevice.Device}

// TestCoverage checks that docs/COVERAGE.md is the table the registry
// gives now: how every op runs on each device. `go test -run TestCoverage
// -update .` rewrites it.
func TestCoverage(t *testing.T) {
	got := coverageTable()
	path := filepath.Join("docs", "COVERAGE.md")
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
		t.Errorf("%s is stale: run `go test -run TestCoverage -update .` and review the diff", path)
	}
}

// coverageCell says how op runs on dev, as the dispatcher's backend step
// decides it.
func coverageCell(op *tensor.Op, dev tensor.Device, lowered map[string]bool) string {
	if op.BackendKernel(dev) != nil {
		switch {
		case dev == tensor.CPU:
			return "kernel"
		case lowered[op.Name]:
			return "lowering"
		}
		return "derived"
	}
	if op.Composite() != nil {
		return "decomp"
	}
	if tensor.DeviceHooksOf(dev).Functionalize && (op.Schema.IsView() || len(op.Schema.Mutates()) > 0) {
		// The Functionalize layer's fallback takes every view and mutation
		// of a functional tensor (functional/kernel.go).
		return "functional"
	}
	return "—"
}

func coverageKind(op *tensor.Op) string {
	kind := "non-core"
	if op.Core {
		kind = "core"
	} else if f, _, ok := op.Functional(); ok && f.Core {
		kind = "core"
	}
	switch s := op.Schema; {
	case s.IsInplace():
		kind += " in-place"
	case s.IsOut():
		kind += " out="
	case s.IsView():
		kind += " view"
	}
	return kind
}

func coverageTable() string {
	var b strings.Builder
	b.WriteString(`# Op coverage by device

Generated from the op registry by ` + "`go test -run TestCoverage -update .`" + ` (coverage_test.go);
the same test fails when this file is stale. One row per registered ATen overload, one column
per device: how the dispatcher's backend step runs the op there.

- **kernel**: a CPU kernel of its own (` + "`device/cpu`" + `).
- **lowering**: the device's own lowering (` + "`device.Backend.Lowerings`" + `).
- **derived**: a kernel package ` + "`device`" + ` builds from the device's other lowerings: a view
  on a device with native views, a constructor run on the CPU and moved, an in-place op run
  as its functional op and ` + "`copy_`" + `, an op answered from metadata.
- **decomp**: a decomposition into core ops (` + "`decomp/`" + `), which then run on the device.
- **functional**: the Functionalize layer turns the view or mutation into the functional op
  on a device without native views or in-place ops.
- **—**: no way to run it there; a call fails with "has no lowering on device".

Dtypes: the registry knows them per device (` + "`device.Backend.DTypes`" + `), listed below. Within a
device the kernels check dtypes where they run, as PyTorch 1.13's CPU kernels do (their
AT_DISPATCH sets), so the registry holds no per-op dtype list; the conformance records
(` + "`testdata/golden/`" + `) exercise the dtypes PyTorch's OpInfo samples use.

| device | how it is built | native views | in-place | dtypes |
|---|---|---|---|---|
`)
	for _, dev := range coverageDevices {
		how, views, inplace, dtypes := "built in (`device/cpu`)", "yes", "yes", "all"
		if dev != tensor.CPU {
			h := tensor.DeviceHooksOf(dev)
			how = "`device.Register`"
			switch dev {
			case tensor.Meta:
				how += " (`device/meta`, no data)"
			case newdevice.Device:
				how += " (`examples/newdevice`, gonum-backed `[]float64`)"
			}
			if h.Functionalize {
				views, inplace = "functionalized", "functionalized"
			}
			var ds []string
			for _, d := range tensor.AllDTypes {
				if device.SupportsDType(dev, d) {
					ds = append(ds, d.String())
				}
			}
			if len(ds) < len(tensor.AllDTypes) {
				dtypes = strings.Join(ds, ", ")
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", dev, how, views, inplace, dtypes)
	}

	lowered := map[tensor.Device]map[string]bool{}
	for _, dev := range coverageDevices {
		lowered[dev] = map[string]bool{}
		for _, n := range device.Lowered(dev) {
			lowered[dev][n] = true
		}
	}
	type row struct {
		name, kind string
		cells      []string
	}
	var rows []row
	counts := map[string]map[string]int{}
	for _, op := range tensor.Ops() {
		r := row{name: op.Name, kind: coverageKind(op)}
		for _, dev := range coverageDevices {
			c := coverageCell(op, dev, lowered[dev])
			r.cells = append(r.cells, c)
			if counts[dev.String()] == nil {
				counts[dev.String()] = map[string]int{}
			}
			counts[dev.String()][c]++
		}
		rows = append(rows, r)
	}
	fmt.Fprintf(&b, "\n%d overloads. Per device:\n\n| device | kernel | lowering | derived | decomp | functional | — |\n|---|---|---|---|---|---|---|\n", len(rows))
	for _, dev := range coverageDevices {
		c := counts[dev.String()]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d |\n", dev, c["kernel"], c["lowering"], c["derived"], c["decomp"], c["functional"], c["—"])
	}
	b.WriteString("\n| op | kind |")
	for _, dev := range coverageDevices {
		b.WriteString(" " + dev.String() + " |")
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(coverageDevices)) + "\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.name, r.kind, strings.Join(r.cells, " | "))
	}
	return b.String()
}
