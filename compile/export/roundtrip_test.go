package export_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/goaten/goaten/compile/export"
	"github.com/goaten/goaten/examples/newdevice"
	"github.com/goaten/goaten/tensor"
)

func saveBytes(t *testing.T, ep *export.ExportedProgram) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := ep.Save(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func loadBytes(t *testing.T, b []byte) *export.ExportedProgram {
	t.Helper()
	ep, err := export.Load(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

// checkRuns runs the loaded program's module on dev twice and compares its
// outputs and buffers with a fresh eager net's, bit for bit.
func checkRuns(t *testing.T, ep *export.ExportedProgram, dev tensor.Device) {
	t.Helper()
	eager := newNet().to(dev)
	m := ep.Module()
	m.To(dev)
	x := seq(0.3, 2, 4).ToDevice(dev)
	for call := range 2 {
		want := eager.Forward(x)
		got, err := m.Forward(x)
		if err != nil {
			t.Fatal(err)
		}
		if err := sameBits(got[0], want); err != nil {
			t.Errorf("%s call %d: %v", dev, call, err)
		}
		if got[0].Device() != dev {
			t.Errorf("ran on %s, want %s", got[0].Device(), dev)
		}
		for _, b := range eager.NamedBuffers() {
			if err := sameBits(ep.StateDict[b.Name], b.Tensor); err != nil {
				t.Errorf("%s call %d: buffer %s: %v", dev, call, b.Name, err)
			}
		}
	}
}

// TestSaveLoadRoundTrip: export, save to bytes, load, run on the CPU and
// on the gonum device: the results equal the eager module's bit for bit,
// the loaded program prints as the exported one and saves to the same
// bytes.
func TestSaveLoadRoundTrip(t *testing.T) {
	for _, dev := range []tensor.Device{tensor.CPU, newdevice.Device} {
		t.Run(dev.String(), func(t *testing.T) {
			ep := mustExport(t, newNet(), []*T{seq(0, 2, 4)}, export.Options{InputNames: []string{"x"}})
			b := saveBytes(t, ep)
			loaded := loadBytes(t, b)
			if loaded.String() != ep.String() {
				t.Errorf("loaded program:\n%s\nexported:\n%s", loaded, ep)
			}
			if loaded.GraphModule.Code() != ep.GraphModule.Code() {
				t.Errorf("loaded code:\n%s\nexported:\n%s", loaded.GraphModule.Code(), ep.GraphModule.Code())
			}
			if again := saveBytes(t, loaded); !bytes.Equal(again, b) {
				t.Errorf("saving the loaded program gives other bytes (%d vs %d)", len(again), len(b))
			}
			checkRuns(t, loaded, dev)
		})
	}
}

// TestSaveLoadRoundTripExportedOnGonum: a program exported from a module on
// the gonum device loads (its device arguments name gonum) and runs.
func TestSaveLoadRoundTripExportedOnGonum(t *testing.T) {
	dev := newdevice.Device
	ep := mustExport(t, newNet().to(dev), []*T{seq(0, 2, 4).ToDevice(dev)})
	checkRuns(t, loadBytes(t, saveBytes(t, ep)), dev)
}

// TestSaveLoadRoundTripDynamic: dynamic dimensions survive saving, with
// their ranges and Dim names.
func TestSaveLoadRoundTripDynamic(t *testing.T) {
	m := newMLP()
	ep := mustExport(t, m, []*T{seq(0, 4, 4)}, export.Options{
		InputNames: []string{"x"}, DynamicShapes: []map[int]*export.Dimension{{0: export.Dim("batch", 3, 64)}},
	})
	loaded := loadBytes(t, saveBytes(t, ep))
	if loaded.String() != ep.String() {
		t.Errorf("loaded program:\n%s\nexported:\n%s", loaded, ep)
	}
	x := seq(0.1, 9, 4)
	got, err := loaded.Module().Forward(x)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameBits(got[0], m.Forward(x)); err != nil {
		t.Error(err)
	}
	if _, err := loaded.Module().Forward(seq(0, 65, 4)); err == nil || err.Error() != "Expected input at *args[0].shape[0] to be <= 64, but got 65" {
		t.Errorf("batch 65: %v", err)
	}
}

// TestRoundTripTestdata loads testdata/bnnet.pt2, saved on amd64 by
// `go test -update`, and runs it: CI runs this test on arm64 under
// qemu-aarch64 too, so an archive written on one architecture loads and
// runs on the other.
func TestRoundTripTestdata(t *testing.T) {
	path := filepath.Join("testdata", "bnnet.pt2")
	if *update {
		ep := mustExport(t, newNet(), []*T{seq(0, 2, 4)}, export.Options{InputNames: []string{"x"}})
		if err := export.Save(ep, path); err != nil {
			t.Fatal(err)
		}
		golden(t, "bnnet.txt", ep.String())
	}
	ep, err := export.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "bnnet.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if ep.String() != string(want) {
		t.Errorf("loaded program:\n%s\nwant:\n%s", ep, want)
	}
	for _, dev := range []tensor.Device{tensor.CPU, newdevice.Device} {
		ep, err := export.LoadFile(path) // fresh state for each device
		if err != nil {
			t.Fatal(err)
		}
		checkRuns(t, ep, dev)
	}
}
