package compile

import (
	"fmt"
	"strings"
	"testing"

	"github.com/goaten/goaten/tensor"
)

// TestSymExprString: expressions print as sympy prints them.
func TestSymExprString(t *testing.T) {
	dims := []symDim{{sym: 0}, {sym: 1}}
	for _, c := range []struct {
		e    symExpr
		want string
	}{
		{symExpr{[]int{0}, 1, 0}, "s0"},
		{symExpr{[]int{0}, 16, 0}, "16*s0"},
		{symExpr{[]int{1, 0}, 1, 0}, "s0*s1"},
		{symExpr{[]int{0, 1}, 4, 0}, "4*s0*s1"},
		{symExpr{[]int{1, 1}, 1, 0}, "s1**2"},
		{symExpr{[]int{1}, 1, 1}, "s1 + 1"},
		{symExpr{[]int{0}, 3, -1}, "3*s0 - 1"},
		{symExpr{[]int{0}, -1, 0}, "-s0"},
		{symExpr{[]int{0}, -2, 5}, "5 - 2*s0"},
	} {
		if got := c.e.String(dims); got != c.want {
			t.Errorf("%+v: got %q, want %q", c.e, got, c.want)
		}
	}
}

// TestDecodeAmbiguity: when two relations fit the same pair of ints, the
// simplest (smallest |c|, then |k|) wins, and a tie is refused.
func TestDecodeAmbiguity(t *testing.T) {
	dims := []symDim{{real: 2, probe: 7}, {real: 16, probe: 31, sym: 1}}
	// 16 -> 31 is s1, and also 3*s0 + 10.
	if e, ok := decode(16, 31, dims); !ok || e.String(dims) != "s1" {
		t.Errorf("got %+v, %v; want s1", e, ok)
	}
	// Sentinels 4 apart and real sizes 4 apart: 8 -> 1009 is s0, or s1 - 4.
	dims = []symDim{{real: 8, probe: 1009}, {real: 12, probe: 1013, sym: 1}}
	if e, ok := decode(8, 1009, dims); !ok || e.String(dims) != "s0" {
		t.Errorf("got %+v, %v; want s0", e, ok)
	}
	if e, ok := decode(96, 1009*1013, dims); !ok || e.String(dims) != "s0*s1" {
		t.Errorf("got %+v, %v; want s0*s1", e, ok)
	}
	// 3 -> 8 is s0 + 1 and s1 - 1 alike.
	dims = []symDim{{real: 2, probe: 7}, {real: 4, probe: 9, sym: 1}}
	if e, ok := decode(3, 8, dims); ok {
		t.Errorf("decoded %s", e.String(dims))
	}
}

// TestProbeSize: a dim probes at its sentinel unless its bound is smaller:
// then at the largest free prime within the bound, else any free size.
func TestProbeSize(t *testing.T) {
	for _, c := range []struct {
		k, real, max int
		used         []symDim
		want         int
		ok           bool
	}{
		{0, 16, 0, nil, 1009, true},
		{1, 16, 2000, nil, 1013, true},
		{0, 16, 32, nil, 31, true},
		{0, 31, 32, nil, 29, true},
		{1, 16, 32, []symDim{{probe: 31}}, 29, true},
		{0, 3, 4, []symDim{{probe: 2}}, 4, true},
		{0, 2, 2, nil, 0, false},
	} {
		got, ok := probeSize(c.k, c.real, c.max, c.used)
		if got != c.want || ok != c.ok {
			t.Errorf("probeSize(%d, %d, %d, %v) = %d, %v; want %d, %v", c.k, c.real, c.max, c.used, got, ok, c.want, c.ok)
		}
	}
}

// TestSymbolizeWithin: a function that clamps a size (positions sliced
// from a table of 32 rows) traces differently at the sentinel; with the
// bound the probe keeps within it, and the graph computes the slice's end
// and every size from sym_size.int, recorded in the symbols.
func TestSymbolizeWithin(t *testing.T) {
	table := tensor.NewMetaContiguous([]int{32, 8}, tensor.Float32, tensor.CPU)
	fn := func(x *tensor.Tensor) *tensor.Tensor {
		pos := table.Slice(tensor.WithStart(0), tensor.WithEnd(x.Size(1)))
		return x.Add(pos).Reshape([]int{x.Size(0) * x.Size(1), 8})
	}
	x := tensor.NewMetaContiguous([]int{2, 16, 8}, tensor.Float32, tensor.CPU)
	dynamic := map[int]map[int]int{0: {0: 0, 1: 1}}
	if _, err := Symbolize(fn, []*tensor.Tensor{x}, dynamic, TraceOptions{}); err == nil {
		t.Fatal("Symbolize: the unbounded probe should fail")
	}
	gm, err := SymbolizeWithin(fn, []*tensor.Tensor{x}, dynamic, map[int]int{1: 32}, TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, n := range gm.Graph.Nodes() {
		if e, ok := n.Meta[MetaSymExpr].(string); ok {
			lines = append(lines, n.Name+": Sym("+e+")")
		}
		if s, ok := n.Meta[MetaSymShape].([]string); ok {
			lines = append(lines, fmt.Sprintf("%s: %q", n.Name, s))
		}
	}
	got := strings.Join(lines, "\n")
	want := strings.Join([]string{
		`arg0_1: ["s0" "s1" ""]`,
		`sym_size_int: Sym(s1)`,
		`slice_1: ["s1" ""]`,
		`add: ["s0" "s1" ""]`,
		`sym_size_int_1: Sym(s0)`,
		`mul: Sym(s0*s1)`,
		`view: ["s0*s1" ""]`,
	}, "\n")
	if got != want {
		t.Errorf("got\n%s\nwant\n%s\ncode:%s", got, want, gm.Code())
	}
}
