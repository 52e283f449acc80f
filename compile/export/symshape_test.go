package export

import (
	"bytes"
	"strings"
	"testing"
)

// TestSaveLoadSymShapes: the sizes of values computed in the graph that
// depend on a dynamic dim are saved as expressions in its symbol, with
// their sizes at export as hints (PyTorch's as_expr), print so, and load
// back; an expression naming no symbol of the range constraints, or not
// an expression, is refused.
func TestSaveLoadSymShapes(t *testing.T) {
	ep, b := dynamicArchive(t)
	var model []byte
	for _, e := range unzip(t, b) {
		if e.name == modelPath {
			model = e.data
		}
	}
	for _, want := range []string{
		`"slice_1":{"dtype":5,"sizes":[{"as_expr":{"expr_str":"3*s0 - 1","hint":{"as_int":11}}}]`,
		`"view":{"dtype":5,"sizes":[{"as_expr":{"expr_str":"3*s0","hint":{"as_int":12}}}]`,
	} {
		if !bytes.Contains(model, []byte(want)) {
			t.Errorf("model.json lacks %s:\n%s", want, model)
		}
	}
	text := ep.String()
	for _, want := range []string{
		`sym_size_int: "Sym(s0)" = torch.ops.aten.sym_size.int(x, 0)`,
		`sub: "Sym(3*s0 - 1)" = mul_1 - 1`,
		`view: "i64[3*s0]" = torch.ops.aten.view.default(x, [mul]);`,
		`slice_1: "i64[3*s0 - 1]" = torch.ops.aten.slice.Tensor(view, 0, 0, sub);`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the program lacks %s:\n%s", want, text)
		}
	}
	sizes := func(name, expr string) func(p map[string]any) {
		return func(p map[string]any) {
			path(graphOf(p), "tensor_values", name, "sizes").([]any)[0] = map[string]any{"as_expr": map[string]any{"expr_str": expr, "hint": map[string]any{"as_int": 12}}}
		}
	}
	for _, c := range []struct {
		name string
		edit func(p map[string]any)
		want string
	}{
		{"unknown symbol", sizes("view", "3*s1"), `value view has size "3*s1": s1 is not a symbol of the range constraints`},
		{"not an expression", sizes("view", "3*s0; x"), `value view has size "3*s0; x": unexpected character ';'`},
		{"unbalanced", sizes("view", "(3*s0))"), `value view has size "(3*s0))": unbalanced parentheses`},
		{"empty", sizes("view", " "), `value view has size " ": not an expression`},
		{"too long", sizes("view", strings.Repeat("s0+", 100)+"1"), `longer than 256 bytes`},
		{"no hint", func(p map[string]any) {
			path(graphOf(p), "tensor_values", "view", "sizes").([]any)[0] = map[string]any{"as_expr": map[string]any{"expr_str": "3*s0"}}
		}, "value view: symbolic size 3*s0 has no valid hint"},
		{"sym int of another symbol", func(p map[string]any) {
			path(graphOf(p), "sym_int_values").(map[string]any)["mul"] = map[string]any{"as_expr": map[string]any{"expr_str": "3*s7", "hint": map[string]any{"as_int": 12}}}
		}, `symbolic int mul is "3*s7": s7 is not a symbol of the range constraints`},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := withModel(t, b, c.edit)
			_, err := Load(bytes.NewReader(bad), int64(len(bad)))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}
