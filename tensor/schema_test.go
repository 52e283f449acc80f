package tensor

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"testing"
)

func TestParseSchemaGrammar(t *testing.T) {
	cases := []struct {
		text      string
		name      string
		args      []string // rendered argument types
		kwOnly    []bool
		returns   []string
		inplace   bool
		view      bool
		mutates   []int
		checkDefs map[string]any
	}{
		{text: "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
			name: "aten::add.Tensor", args: []string{"Tensor", "Tensor", "Scalar"}, kwOnly: []bool{false, false, true},
			returns: []string{"Tensor"}, checkDefs: map[string]any{"alpha": Int(1)}},
		{text: "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
			name: "aten::add_.Tensor", args: []string{"Tensor(a!)", "Tensor", "Scalar"}, kwOnly: []bool{false, false, true},
			returns: []string{"Tensor(a!)"}, inplace: true, mutates: []int{0}},
		{text: "split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]",
			name: "aten::split_with_sizes", args: []string{"Tensor(a -> *)", "SymInt[]", "int"}, kwOnly: []bool{false, false, false},
			returns: []string{"Tensor(a)[]"}, view: true, checkDefs: map[string]any{"dim": 0}},
		{text: "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
			name: "aten::max.dim", args: []string{"Tensor", "int", "bool"}, kwOnly: []bool{false, false, false},
			returns: []string{"Tensor", "Tensor"}, checkDefs: map[string]any{"keepdim": false}},
		{text: "index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
			name: "aten::index.Tensor", args: []string{"Tensor", "Tensor?[]"}, kwOnly: []bool{false, false}, returns: []string{"Tensor"}},
		{text: "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
			name: "aten::sum.dim_IntList", args: []string{"Tensor", "int[1]?", "bool", "ScalarType?"}, kwOnly: []bool{false, false, false, true},
			returns: []string{"Tensor"}, checkDefs: map[string]any{"dtype": nil}},
		{text: "avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0) -> Tensor",
			name: "aten::avg_pool2d", args: []string{"Tensor", "int[2]", "int[2]", "int[2]"}, kwOnly: []bool{false, false, false, false},
			returns: []string{"Tensor"}, checkDefs: map[string]any{"stride": []int{}, "padding": []int{0, 0}}},
		{text: "atan2.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
			name: "aten::atan2.out", args: []string{"Tensor", "Tensor", "Tensor(a!)"}, kwOnly: []bool{false, false, true},
			returns: []string{"Tensor(a!)"}, mutates: []int{2}},
		{text: "gelu(Tensor self, *, str approximate='none') -> Tensor",
			name: "aten::gelu", args: []string{"Tensor", "str"}, kwOnly: []bool{false, true},
			returns: []string{"Tensor"}, checkDefs: map[string]any{"approximate": "none"}},
		{text: "randperm(SymInt n, *, ScalarType? dtype=long, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
			name: "aten::randperm", args: []string{"SymInt", "ScalarType?", "Layout?", "Device?", "bool?"}, kwOnly: []bool{false, true, true, true, true},
			returns: []string{"Tensor"}, checkDefs: map[string]any{"dtype": Int64}},
		{text: "convolution_backward(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? bias_sizes, SymInt[] stride, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
			name: "aten::convolution_backward", args: []string{"Tensor", "Tensor", "Tensor", "SymInt[]?", "SymInt[]", "bool[3]"}, kwOnly: []bool{false, false, false, false, false, false},
			returns: []string{"Tensor", "Tensor", "Tensor"}},
		{text: "_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()",
			name: "aten::_foreach_add_.List", args: []string{"Tensor(a!)[]", "Tensor[]", "Scalar"}, kwOnly: []bool{false, false, true},
			mutates: []int{0}},
		{text: "var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
			name: "aten::var.correction", args: []string{"Tensor", "int[1]?", "Scalar?", "bool"}, kwOnly: []bool{false, false, true, true},
			returns: []string{"Tensor"}},
		{text: "native_layer_norm_backward(Tensor grad_out, bool[3] output_mask=[True, False, True], float eps=1e-05, float p=2.) -> (Tensor, Tensor, Tensor)",
			name: "aten::native_layer_norm_backward", args: []string{"Tensor", "bool[3]", "float", "float"}, kwOnly: []bool{false, false, false, false},
			returns:   []string{"Tensor", "Tensor", "Tensor"},
			checkDefs: map[string]any{"output_mask": []bool{true, false, true}, "eps": 1e-5, "p": 2.0}},
		{text: "clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor",
			name: "aten::clone", args: []string{"Tensor", "MemoryFormat?"}, kwOnly: []bool{false, true}, returns: []string{"Tensor"}},
		{text: "sym_is_contiguous(Tensor self, MemoryFormat memory_format=contiguous_format) -> SymBool",
			name: "aten::sym_is_contiguous", args: []string{"Tensor", "MemoryFormat"}, kwOnly: []bool{false, false}, returns: []string{"SymBool"},
			checkDefs: map[string]any{"memory_format": ContiguousFormat}},
		{text: "rand.generator(SymInt[] size, *, Generator? generator, ScalarType? dtype=None) -> Tensor",
			name: "aten::rand.generator", args: []string{"SymInt[]", "Generator?", "ScalarType?"}, kwOnly: []bool{false, true, true}, returns: []string{"Tensor"}},
	}
	for _, c := range cases {
		s, err := ParseSchema(c.text)
		if err != nil {
			t.Errorf("%s: %v", c.text, err)
			continue
		}
		if s.QualifiedName() != c.name {
			t.Errorf("%s: name %q, want %q", c.text, s.QualifiedName(), c.name)
		}
		if len(s.Args) != len(c.args) {
			t.Errorf("%s: %d args, want %d", c.text, len(s.Args), len(c.args))
			continue
		}
		for i, a := range s.Args {
			if a.Type.String() != c.args[i] || a.KwargOnly != c.kwOnly[i] {
				t.Errorf("%s: arg %d is %s (kwonly %v), want %s (%v)", c.text, i, a.Type, a.KwargOnly, c.args[i], c.kwOnly[i])
			}
		}
		if len(s.Returns) != len(c.returns) {
			t.Errorf("%s: %d returns, want %d", c.text, len(s.Returns), len(c.returns))
		} else {
			for i, r := range s.Returns {
				if r.Type.String() != c.returns[i] {
					t.Errorf("%s: return %d is %s, want %s", c.text, i, r.Type, c.returns[i])
				}
			}
		}
		if s.IsInplace() != c.inplace || s.IsView() != c.view {
			t.Errorf("%s: inplace %v view %v, want %v %v", c.text, s.IsInplace(), s.IsView(), c.inplace, c.view)
		}
		if got := s.Mutates(); len(got) != len(c.mutates) || (len(got) > 0 && got[0] != c.mutates[0]) {
			t.Errorf("%s: mutates %v, want %v", c.text, got, c.mutates)
		}
		for name, want := range c.checkDefs {
			a := s.Args[s.ArgIndex(name)]
			if !a.HasDefault {
				t.Errorf("%s: %s has no default", c.text, name)
				continue
			}
			if !equalDefault(a.Default, want) {
				t.Errorf("%s: default of %s is %#v, want %#v", c.text, name, a.Default, want)
			}
		}
	}
}

func equalDefault(a, b any) bool {
	switch x := a.(type) {
	case []int:
		y, ok := b.([]int)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	case []bool:
		y, ok := b.([]bool)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	return a == b
}

func TestParseSchemaErrors(t *testing.T) {
	for _, bad := range []string{
		"", "add(", "add(Tensor self) Tensor", "add(Tensor self ->", "add(Tensor) -> Tensor",
		"add(Tensor(a self) -> Tensor", "add(int[x] a) -> Tensor", "add(Tensor self) -> Tensor junk",
	} {
		if _, err := ParseSchema(bad); err == nil {
			t.Errorf("ParseSchema(%q) succeeded", bad)
		}
	}
}

// TestParseRecordedSchemas parses the 1.13 schema of every overload in the
// golden records, core and non-core.
func TestParseRecordedSchemas(t *testing.T) {
	f, err := os.Open("../testdata/golden/schemas.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]struct {
		Schema     string `json:"schema"`
		CoreSchema string `json:"schema_core_list"`
	}
	if err := json.NewDecoder(gz).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if len(m) < 200 {
		t.Fatalf("only %d schemas", len(m))
	}
	for name, e := range m {
		for _, text := range []string{e.Schema, e.CoreSchema} {
			if text == "" {
				continue
			}
			s, err := ParseSchema(text)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			q := s.QualifiedName()
			if s.Overload == "" {
				q += ".default"
			}
			if q != name {
				t.Errorf("%s parsed as %s", name, q)
			}
		}
	}
}

func TestSchemaIsRandom(t *testing.T) {
	random := []string{
		"aten::rand(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
		"aten::randn_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
		"aten::randint.low(SymInt low, SymInt high, SymInt[] size, *, ScalarType? dtype=long, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
		"aten::random_(Tensor(a!) self, *, Generator? generator=None) -> Tensor(a!)",
		"aten::native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)",
		"aten::_fused_dropout(Tensor self, float p, Generator? generator=None) -> (Tensor, Tensor)",
		"aten::feature_alpha_dropout(Tensor input, float p, bool train) -> Tensor",
		"aten::bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor",
		"aten::normal_(Tensor(a!) self, float mean=0, float std=1, *, Generator? generator=None) -> Tensor(a!)",
		"aten::uniform_(Tensor(a!) self, float from=0, float to=1, *, Generator? generator=None) -> Tensor(a!)",
		"aten::exponential_(Tensor(a!) self, float lambd=1, *, Generator? generator=None) -> Tensor(a!)",
		"aten::multinomial(Tensor self, int num_samples, bool replacement=False, *, Generator? generator=None) -> Tensor",
		"aten::_standard_gamma(Tensor self, Generator? generator=None) -> Tensor",
		"aten::rrelu(Tensor self, Scalar lower=0.125, Scalar upper=0.3333333333333333, bool training=False, Generator? generator=None) -> Tensor",
		"mylib::sample(Tensor x, Generator? gen) -> Tensor", // any namespace
	}
	deterministic := []string{
		"aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
		"aten::native_dropout_backward(Tensor grad_output, Tensor mask, float scale) -> Tensor",
		"aten::_standard_gamma_grad(Tensor self, Tensor output) -> Tensor",
		"aten::native_norm(Tensor self, Scalar p=2) -> Tensor",
		"aten::range(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
		"aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
		"aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
	}
	for _, text := range random {
		if !MustParseSchema(text).IsRandom() {
			t.Errorf("%s: IsRandom false", text)
		}
	}
	for _, text := range deterministic {
		if MustParseSchema(text).IsRandom() {
			t.Errorf("%s: IsRandom true", text)
		}
	}
}
