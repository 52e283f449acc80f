package export_test

import (
	"archive/zip"
	"bytes"
	"runtime"
	"slices"
	"testing"

	"github.com/goaten/goaten/compile/export"
	"github.com/goaten/goaten/nn"
)

// wide is two 1024×1024 linear layers and a non-persistent buffer: 8 MB
// of weights and 4 KB of constants.
type wide struct {
	nn.Base
	FC1, FC2 *linear
	Shift    *T
}

func newWide() *wide {
	m := &wide{}
	m.FC1 = nn.Register(m, "fc1", newLinear(1024, 1024, 0.1))
	m.FC2 = nn.Register(m, "fc2", newLinear(1024, 1024, -0.2))
	m.Shift = m.RegisterBuffer("shift", seq(0.5, 1024), false)
	return m
}

func (m *wide) Forward(x *T) *T { return m.FC2.Forward(m.FC1.Forward(x).Add(m.Shift)) }

// TestLoadCopiesWeightsOnce: Load reads the weights and constants from the
// archive straight into the tensors' storage. What it allocates in all is
// at most the tensors' bytes plus a sixteenth (the graph, its JSON, the
// zip directory; the margin is not enough for a second copy of the
// weights) and 1 MB, and the loaded tensors hold the saved values.
func TestLoadCopiesWeightsOnce(t *testing.T) {
	m := newWide()
	x := seq(0, 2, 1024)
	ep := mustExport(t, m, []*T{x}, export.Options{})
	var buf bytes.Buffer
	if err := ep.Save(&buf); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	tensorBytes := 0
	for _, d := range []map[string]*T{ep.StateDict, ep.Constants} {
		for _, v := range d {
			tensorBytes += v.Numel() * v.DType().ItemSize()
		}
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	loaded, err := export.Load(bytes.NewReader(b), int64(len(b)))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	alloc := int(after.TotalAlloc - before.TotalAlloc)
	limit := tensorBytes + tensorBytes/16 + 1<<20
	t.Logf("archive %d bytes, tensors %d bytes, Load allocated %d bytes (%.2f× the tensors)", len(b), tensorBytes, alloc, float64(alloc)/float64(tensorBytes))
	if alloc > limit {
		t.Errorf("Load allocated %d bytes for %d bytes of tensors (limit %d): the weights are copied more than once", alloc, tensorBytes, limit)
	}
	for name, want := range ep.StateDict {
		got := loaded.StateDict[name]
		if got == nil || !bytes.Equal(got.Storage().Bytes(), want.Storage().Bytes()) {
			t.Errorf("loaded %s differs from the saved one", name)
		}
	}
	got, err := loaded.Module().Forward(x)
	if err != nil {
		t.Fatal(err)
	}
	if want := m.Forward(x); !bytes.Equal(got[0].Storage().Bytes(), want.Storage().Bytes()) {
		t.Errorf("the loaded program computes otherwise")
	}
}

// TestLoadChecksWeightsCRC: reading the weights straight into the tensors
// still checks the entry's CRC-32: a flipped bit of a weight (the header
// and sizes intact) is an error.
func TestLoadChecksWeightsCRC(t *testing.T) {
	ep := mustExport(t, newWide(), []*T{seq(0, 2, 1024)}, export.Options{})
	var buf bytes.Buffer
	if err := ep.Save(&buf); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if f.Name != "archive/data/weights/model.safetensors" {
			continue
		}
		off, err := f.DataOffset()
		if err != nil {
			t.Fatal(err)
		}
		bad := slices.Clone(b)
		bad[off+int64(f.CompressedSize64)-5] ^= 1 // in the last weight
		_, err = export.Load(bytes.NewReader(bad), int64(len(bad)))
		if want := "export.Load: archive/data/weights/model.safetensors: zip: checksum error"; err == nil || err.Error() != want {
			t.Errorf("got %v, want %q", err, want)
		}
		return
	}
	t.Fatal("the archive has no weights entry")
}
