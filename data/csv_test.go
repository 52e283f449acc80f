package data_test

import (
	"strings"
	"testing"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/data"
	"github.com/goaten/goaten/tensor"
)

func TestDigitsCSV(t *testing.T) {
	ds, err := data.LoadCSV("testdata/digits.csv.gz")
	if err != nil {
		t.Fatal(err)
	}
	x, y := ds.Tensors()[0], ds.Tensors()[1]
	if tensor.ShapeString(x.Sizes()) != "[1797, 64]" || x.DType() != gt.Float32 || y.DType() != gt.Int64 || y.Numel() != 1797 {
		t.Fatalf("features %s %v, labels %s %v", x.DType(), x.Sizes(), y.DType(), y.Sizes())
	}
	// Numbers from numpy.loadtxt on the same file.
	if s := x.To(gt.Float64).SumAll().Item().Float64(); s != 561718 {
		t.Errorf("features sum to %v", s)
	}
	counts := make([]int, 10)
	for _, l := range y.Int64s() {
		counts[l]++
	}
	want := []int{178, 182, 177, 183, 181, 182, 181, 179, 174, 180}
	for i := range want {
		if counts[i] != want[i] {
			t.Fatalf("label counts %v, want %v", counts, want)
		}
	}
	last, _ := ds.Get(1796)
	if f := last[0].Float64s(); f[60] != 14 || f[61] != 12 || f[62] != 1 || f[63] != 0 || last[1].Item().Int64() != 8 {
		t.Errorf("last row ends %v, label %v", f[60:], last[1])
	}
}

func TestCSVOptions(t *testing.T) {
	ds, err := data.ReadCSV(strings.NewReader("label;a;b\n3; 1.5;-2\n1;0;1e3\n"), data.WithHeader(true), data.WithComma(';'), data.WithLabelColumn(0))
	if err != nil {
		t.Fatal(err)
	}
	x, y := ds.Tensors()[0], ds.Tensors()[1]
	if got := x.Float64s(); len(got) != 4 || got[0] != 1.5 || got[1] != -2 || got[3] != 1000 {
		t.Errorf("features %v", got)
	}
	if got := y.Int64s(); got[0] != 3 || got[1] != 1 {
		t.Errorf("labels %v", got)
	}
	// A label written as a float with no fraction is an integer.
	ds, err = data.ReadCSV(strings.NewReader("1,2,3.0\n"))
	if err != nil || ds.Tensors()[1].Int64s()[0] != 3 {
		t.Errorf("3.0 label: %v", err)
	}
	// The label column counted from the end.
	ds, err = data.ReadCSV(strings.NewReader("1,7,3\n"), data.WithLabelColumn(-2))
	if err != nil || ds.Tensors()[1].Int64s()[0] != 7 || ds.Tensors()[0].Float64s()[1] != 3 {
		t.Errorf("column -2: %v", err)
	}
}

func TestCSVErrors(t *testing.T) {
	for _, c := range []struct {
		name, text string
		opts       []data.CSVOption
		want       string
	}{
		{"empty", "", nil, "no samples"},
		{"header only", "a,b\n", []data.CSVOption{data.WithHeader(true)}, "no samples"},
		{"one column", "1\n2\n", nil, "line 1: 1 column"},
		{"ragged", "1,2,3\n4,5\n", nil, "line 2: 2 fields, want 3"},
		{"not a number", "1,2,0\n1,x,0\n", nil, `line 2, column 2: "x" is not a number`},
		{"empty field", "1,,0\n", nil, `line 1, column 2: "" is not a number`},
		{"out of range", "1,1e39,0\n", nil, "out of float32's range"},
		{"fractional label", "1,2,0.5\n", nil, `line 1, column 3: label "0.5" is not an integer`},
		{"text label", "1,2,cat\n", nil, `label "cat" is not an integer`},
		{"label column", "1,2,3\n", []data.CSVOption{data.WithLabelColumn(3)}, "label column 3 is out of range for 3 columns"},
		{"label column from end", "1,2,3\n", []data.CSVOption{data.WithLabelColumn(-4)}, "label column -4 is out of range"},
		{"bad quoting", "1,\"2,3\n", nil, "csv:"},
		{"bad gzip", "\x1f\x8b\x08\x00", nil, "csv:"},
	} {
		_, err := data.ReadCSV(strings.NewReader(c.text), c.opts...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := data.LoadCSV("testdata/nope.csv"); err == nil {
		t.Error("missing file: no error")
	}
}
