package export

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"

	_ "github.com/goaten/goaten" // the CPU and meta devices
	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/safetensors"
	"github.com/goaten/goaten/tensor"
)

// tinyNet has a parameter, a persistent and a non-persistent buffer
// written in place, a constant, a call with a tuple result (max.dim, one of
// whose elements is unused) and list, keyword and Python-number arguments.
type tinyNet struct {
	nn.Base
	W, Count, Scratch, C *tensor.Tensor
}

func newTinyNet() *tinyNet {
	n := &tinyNet{}
	n.W = n.RegisterParameter("w", tensor.FromSlice([]float32{1, -2, 3, 0.5, 4, -1, 2, 2, -3, 1, 0, 1}, 3, 4))
	n.Count = n.RegisterBuffer("count", tensor.FullOf(tensor.Float32, 0, 1), true)
	n.Scratch = n.RegisterBuffer("scratch", tensor.FullOf(tensor.Float32, 0, 2), false)
	n.C = tensor.FromSlice([]float32{0.25, -0.5})
	return n
}

func (n *tinyNet) Forward(x *tensor.Tensor) *tensor.Tensor {
	y := x.Matmul(n.W)
	v, _ := y.MaxDim(1)
	autograd.NoGrad(func() {
		n.Count.Add_(tensor.WrappedNumber(tensor.Float(1)))
		n.Scratch.Copy_(v)
	})
	return v.Add(n.C, tensor.WithAlpha(2)).Sum([]int{0}, tensor.WithKeepdim(true))
}

// validArchive exports tinyNet and saves it.
func validArchive(t testing.TB) []byte {
	t.Helper()
	ep, err := Export(newTinyNet(), []*tensor.Tensor{tensor.FromSlice([]float32{1, 2, 3, -1, 0, 2}, 2, 3)},
		Options{InputNames: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := ep.Save(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type entry struct {
	name   string
	method uint16
	data   []byte
}

func unzip(t testing.TB, b []byte) []entry {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var out []entry
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		d, err := io.ReadAll(rc)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, entry{f.Name, f.Method, d})
	}
	return out
}

func rezip(t testing.TB, es []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range es {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: e.method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(e.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// withEntry returns the archive with one entry's content or method changed.
func withEntry(t testing.TB, b []byte, name string, f func(*entry)) []byte {
	es := unzip(t, b)
	for i := range es {
		if es[i].name == name {
			f(&es[i])
		}
	}
	return rezip(t, es)
}

// withModel returns the archive with the program's JSON edited as generic
// values.
func withModel(t testing.TB, b []byte, edit func(p map[string]any)) []byte {
	return withEntry(t, b, modelPath, func(e *entry) {
		d := json.NewDecoder(bytes.NewReader(e.data))
		d.UseNumber()
		var p map[string]any
		if err := d.Decode(&p); err != nil {
			t.Fatal(err)
		}
		edit(p)
		var err error
		if e.data, err = json.Marshal(p); err != nil {
			t.Fatal(err)
		}
	})
}

// path walks generic JSON by keys and indices.
func path(v any, keys ...any) any {
	for _, k := range keys {
		switch kk := k.(type) {
		case string:
			v = v.(map[string]any)[kk]
		case int:
			v = v.([]any)[kk]
		}
	}
	return v
}

func graphOf(p map[string]any) map[string]any {
	return path(p, "graph_module", "graph").(map[string]any)
}

// nodeWith returns the first node whose target contains s.
func nodeWith(p map[string]any, s string) map[string]any {
	for _, n := range graphOf(p)["nodes"].([]any) {
		if strings.Contains(n.(map[string]any)["target"].(string), s) {
			return n.(map[string]any)
		}
	}
	panic("no node " + s)
}

func firstInput(n map[string]any) map[string]any {
	return n["inputs"].([]any)[0].(map[string]any)["arg"].(map[string]any)
}

func withWeights(t testing.TB, b []byte, path string, tensors map[string]*tensor.Tensor) []byte {
	data, err := safetensors.Marshal(tensors, nil)
	if err != nil {
		t.Fatal(err)
	}
	return withEntry(t, b, path, func(e *entry) { e.data = data })
}

// bombModel is a program JSON of n nodes, deflated without building it:
// one compressed block of nodes, repeated. It returns the compressed bytes
// and the uncompressed size.
func bombModel(t testing.TB, n int) ([]byte, uint64) {
	node := `{"target":"torch.ops.aten.relu.default","inputs":[],"outputs":[],"metadata":{}},`
	const per = 1000
	chunk := strings.Repeat(node, per)
	seg := func(s string, final bool) []byte {
		var b bytes.Buffer
		w, _ := flate.NewWriter(&b, flate.BestCompression)
		w.Write([]byte(s))
		if final {
			w.Close()
		} else {
			w.Flush()
		}
		return b.Bytes()
	}
	head := `{"graph_module":{"graph":{"inputs":[],"outputs":[],"nodes":[`
	tail := node[:len(node)-1] + `]}}}`
	var out bytes.Buffer
	out.Write(seg(head, false))
	body := seg(chunk, false)
	for range n / per {
		out.Write(body)
	}
	out.Write(seg(tail, true))
	return out.Bytes(), uint64(len(head) + (n/per)*len(chunk) + len(tail))
}

// rawZip writes entries with the sizes given in their headers.
func rawZip(t testing.TB, b []byte, name string, compressed []byte, method uint16, size uint64) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range unzip(t, b) {
		if e.name != name {
			w, _ := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: e.method})
			w.Write(e.data)
			continue
		}
		w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: method,
			CompressedSize64: uint64(len(compressed)), UncompressedSize64: size})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(compressed)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestValidArchiveLoads(t *testing.T) {
	b := validArchive(t)
	ep, err := Load(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	code := ep.GraphModule.Code()
	for _, s := range []string{"getitem = ", "torch.ops.aten.max.dim(mm, 1)", "alpha = 2", "[0], True", "b_scratch", "c_c"} {
		if !strings.Contains(code, s) {
			t.Errorf("the test program lacks %q:\n%s", s, code)
		}
	}
	x := tensor.FromSlice([]float32{0.5, 2, -3, 1, 1, 2}, 2, 3)
	want := newTinyNet().Forward(x)
	got, err := ep.Module().Forward(x)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got[0].Float64s()) != fmt.Sprint(want.Float64s()) {
		t.Errorf("got %v, want %v", got[0].Float64s(), want.Float64s())
	}
}

// TestLoadMalformed: every malformed archive is an error naming what is
// wrong, never a panic.
func TestLoadMalformed(t *testing.T) {
	valid := validArchive(t)
	bomb, bombSize := bombModel(t, 10_000_000)
	model := func(edit func(p map[string]any)) func() []byte {
		return func() []byte { return withModel(t, valid, edit) }
	}
	cases := []struct {
		name string
		data func() []byte
		want string
	}{
		{"empty", func() []byte { return nil }, "not a readable zip archive"},
		{"garbage", func() []byte { return []byte("PK\x03\x04 this is not a zip file at all") }, "not a readable zip archive"},
		{"truncated half", func() []byte { return valid[:len(valid)/2] }, "not a readable zip archive"},
		{"truncated end", func() []byte { return valid[:len(valid)-1] }, "not a readable zip archive"},
		{"truncated entry", func() []byte {
			return withEntry(t, valid, modelPath, func(e *entry) { e.data = e.data[:len(e.data)/2] })
		}, "models/model.json: unexpected EOF"},
		{"wrong format", func() []byte {
			return withEntry(t, valid, formatPath, func(e *entry) { e.data = []byte("pt2") })
		}, `archive/archive_format is "pt2", not "goaten-export"`},
		{"wrong version", func() []byte {
			return withEntry(t, valid, versionPath, func(e *entry) { e.data = []byte("2") })
		}, `archive version "2" is not supported`},
		{"schema version", model(func(p map[string]any) { p["schema_version"].(map[string]any)["major"] = 9 }),
			"Serialized schema version SchemaVersion(major=9, minor=6) does not match our current schema version (8, 6)."},
		{"missing model", func() []byte {
			var es []entry
			for _, e := range unzip(t, valid) {
				if e.name != modelPath {
					es = append(es, e)
				}
			}
			return rezip(t, es)
		}, "the archive has no archive/models/model.json"},
		{"data after the program", func() []byte {
			return withEntry(t, valid, modelPath, func(e *entry) { e.data = append(e.data, "{}"...) })
		}, "data after the program"},
		{"unknown argument kind", model(func(p map[string]any) {
			firstInput(nodeWith(p, "mm"))["as_foo"] = 1
		}), `unknown field "as_foo"`},
		{"unknown opcode", model(func(p map[string]any) { nodeWith(p, "mm")["target"] = "call_module" }),
			`unsupported node target "call_module"`},
		{"unknown op", model(func(p map[string]any) { nodeWith(p, "mm")["target"] = "torch.ops.mylib.foo.default" }),
			"We failed to resolve torch.ops.mylib.foo.default to an operator. If it's a custom op"},
		{"dangling reference", model(func(p map[string]any) {
			firstInput(nodeWith(p, "mm"))["as_tensor"] = map[string]any{"name": "nope"}
		}), `refers to "nope", which no node before it defines`},
		{"cycle", model(func(p map[string]any) {
			// mm reads the max.dim result that reads mm.
			firstInput(nodeWith(p, "mm"))["as_tensor"] = map[string]any{"name": "getitem"}
		}), `refers to "getitem", which no node before it defines`},
		{"duplicate name", model(func(p map[string]any) {
			n := nodeWith(p, "sum")
			n["outputs"] = []any{map[string]any{"as_tensor": map[string]any{"name": "mm"}}}
		}), "two values are named mm"},
		{"argument of the wrong type", model(func(p map[string]any) {
			n := nodeWith(p, "mm")
			n["inputs"].([]any)[1].(map[string]any)["arg"] = map[string]any{"as_string": "w"}
		}), `argument mat2: 'w' does not fit the parameter type Tensor`},
		{"two union fields", model(func(p map[string]any) {
			firstInput(nodeWith(p, "mm"))["as_int"] = 1
		}), "an Argument must have exactly one field set, it has 2"},
		{"unknown argument name", model(func(p map[string]any) {
			nodeWith(p, "mm")["inputs"].([]any)[0].(map[string]any)["name"] = "input"
		}), `aten::mm has no argument "input"`},
		{"missing argument", model(func(p map[string]any) {
			n := nodeWith(p, "mm")
			n["inputs"] = n["inputs"].([]any)[:1]
		}), "missing argument mat2"},
		{"missing tensor meta", model(func(p map[string]any) {
			delete(graphOf(p)["tensor_values"].(map[string]any), "x")
		}), "value x has no tensor_values entry"},
		{"negative size", model(func(p map[string]any) {
			path(graphOf(p), "tensor_values", "x", "sizes", 0).(map[string]any)["as_int"] = -1
		}), "value x has size -1 in dimension 0"},
		{"huge size", model(func(p map[string]any) {
			s := path(graphOf(p), "tensor_values", "mm", "sizes").([]any)
			s[0].(map[string]any)["as_int"] = 1 << 40
			s[1].(map[string]any)["as_int"] = 1 << 40
		}), "value mm is too large"},
		{"unknown dtype", model(func(p map[string]any) {
			path(graphOf(p), "tensor_values", "x").(map[string]any)["dtype"] = 99
		}), "value x has unknown dtype 99"},
		{"unknown device", model(func(p map[string]any) {
			path(graphOf(p), "tensor_values", "x", "device").(map[string]any)["type"] = "tpu"
		}), `unknown device "tpu"`},
		{"symbolic size of a parameter", model(func(p map[string]any) {
			path(graphOf(p), "tensor_values", "p_w", "sizes").([]any)[0] = map[string]any{"as_expr": map[string]any{"expr_str": "s0", "hint": map[string]any{"as_int": 3}}}
			p["range_constraints"] = map[string]any{"s0": map[string]any{"min_val": 1, "max_val": 8}}
		}), "input p_w (PARAMETER) has symbolic sizes; only user inputs may"},
		{"unknown symbol", model(func(p map[string]any) {
			path(graphOf(p), "tensor_values", "x", "sizes").([]any)[0] = map[string]any{"as_expr": map[string]any{"expr_str": "s9", "hint": map[string]any{"as_int": 2}}}
		}), `value x has size "s9", which is not a symbol of the range constraints`},
		{"signature names another input", model(func(p map[string]any) {
			path(p, "graph_module", "signature", "input_specs", 0, "parameter", "arg").(map[string]any)["name"] = "x"
		}), `input spec 0 names "x", but graph input 0 is p_w`},
		{"signature output count", model(func(p map[string]any) {
			sig := path(p, "graph_module", "signature").(map[string]any)
			sig["output_specs"] = sig["output_specs"].([]any)[1:]
		}), "the signature has 2 output specs for 3 graph outputs"},
		{"mutation of a non-buffer", model(func(p map[string]any) {
			path(p, "graph_module", "signature", "output_specs", 0, "buffer_mutation").(map[string]any)["buffer_name"] = "w"
		}), `output spec 0 mutates "w", which is not a buffer input`},
		{"target both tensor and module", model(func(p map[string]any) {
			path(p, "graph_module", "signature", "input_specs", 1, "buffer").(map[string]any)["buffer_name"] = "w.count"
		}), `"w" is both a tensor and a module holding other tensors`},
		{"empty target component", model(func(p map[string]any) {
			path(p, "graph_module", "signature", "input_specs", 0, "parameter").(map[string]any)["parameter_name"] = "a..w"
		}), `PARAMETER target "a..w" has an empty component`},
		{"unknown input spec", model(func(p map[string]any) {
			path(p, "graph_module", "signature", "input_specs").([]any)[0] = map[string]any{"constant_input": map[string]any{"name": "p_w", "value": map[string]any{"as_int": 1}}}
		}), "input spec 0: constant inputs are not supported"},
		{"token input that is a parameter", model(func(p map[string]any) {
			path(p, "graph_module", "signature", "input_specs").([]any)[0] = map[string]any{"token": map[string]any{"arg": map[string]any{"name": "p_w"}}}
		}), `input spec 0: the token "p_w" is not an empty tensor input`},
		{"weight of another shape", func() []byte {
			return withWeights(t, valid, weightsPath, map[string]*tensor.Tensor{
				"w": tensor.FullOf(tensor.Float32, 0, 4, 3), "count": tensor.FullOf(tensor.Float32, 0, 1)})
		}, `tensor "w" is f32[4, 3] in archive/data/weights/model.safetensors, but the graph's input p_w is f32[3, 4]`},
		{"weight of another dtype", func() []byte {
			return withWeights(t, valid, weightsPath, map[string]*tensor.Tensor{
				"w": tensor.FullOf(tensor.Float64, 0, 3, 4), "count": tensor.FullOf(tensor.Float32, 0, 1)})
		}, `tensor "w" is f64[3, 4]`},
		{"missing weight", func() []byte {
			return withWeights(t, valid, weightsPath, map[string]*tensor.Tensor{"count": tensor.FullOf(tensor.Float32, 0, 1)})
		}, `archive/data/weights/model.safetensors has no tensor "w" for input p_w (PARAMETER)`},
		{"extra weight", func() []byte {
			return withWeights(t, valid, weightsPath, map[string]*tensor.Tensor{
				"w": tensor.FullOf(tensor.Float32, 0, 3, 4), "count": tensor.FullOf(tensor.Float32, 0, 1), "v": tensor.FullOf(tensor.Float32, 0, 1)})
		}, `holds tensor "v", which no graph input stands for`},
		{"constant missing", func() []byte {
			return withWeights(t, valid, constantsPath, map[string]*tensor.Tensor{"scratch": tensor.FullOf(tensor.Float32, 0, 2)})
		}, `has no tensor "c" for input c_c (CONSTANT_TENSOR)`},
		{"malformed safetensors", func() []byte {
			return withEntry(t, valid, weightsPath, func(e *entry) { e.data = e.data[:len(e.data)-3] })
		}, "archive/data/weights/model.safetensors: safetensors:"},
		{"deflated weights", func() []byte {
			return withEntry(t, valid, weightsPath, func(e *entry) { e.method = zip.Deflate })
		}, "tensor data must be stored uncompressed"},
		{"10-million-node bomb", func() []byte { return rawZip(t, valid, modelPath, bomb, zip.Deflate, bombSize) },
			"models/model.json: " + fmt.Sprint(bombSize) + " bytes, more than the limit of 67108864"},
		{"size header smaller than the data", func() []byte { return rawZip(t, valid, modelPath, bomb, zip.Deflate, 1000) },
			"models/model.json: zip: not a valid zip file"},
		{"stored entry larger than the archive", func() []byte {
			return rawZip(t, valid, weightsPath, []byte("x"), zip.Store, 1<<40)
		}, "stored entry of 1099511627776 bytes"},
		{"corrupted compressed data", func() []byte {
			b := append([]byte(nil), valid...)
			i := bytes.Index(b, []byte(modelPath)) + len(modelPath) + 40
			b[i] ^= 0xff
			return b
		}, "models/model.json: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := c.data()
			ep, err := Load(bytes.NewReader(b), int64(len(b)))
			if err == nil {
				t.Fatalf("loaded:\n%s", ep)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("got  %v\nwant an error containing %q", err, c.want)
			}
		})
	}
}

// TestLoadNodeLimit: more nodes than the limit is refused before the graph
// is built.
func TestLoadNodeLimit(t *testing.T) {
	defer func(n int) { maxNodes = n }(maxNodes)
	maxNodes = 2
	b := validArchive(t)
	_, err := Load(bytes.NewReader(b), int64(len(b)))
	if err == nil || !strings.Contains(err.Error(), "more than the limit of 2") {
		t.Fatalf("got %v", err)
	}
}

// symNet reads its input's sizes: the graph computes them from
// sym_size.int with operator nodes (mul, sub): view(x, [3*s0]),
// slice(view, 0, 0, 3*s0 - 1).
type symNet struct{ nn.Base }

func (*symNet) Forward(x *tensor.Tensor) *tensor.Tensor {
	flat := x.Reshape([]int{x.Size(0) * x.Size(1)})
	return flat.Narrow(0, 0, flat.Size(0)-1)
}

// dynamicArchive is symNet exported with a dynamic first dim and saved.
func dynamicArchive(t testing.TB) (*ExportedProgram, []byte) {
	ep, err := Export(&symNet{}, []*tensor.Tensor{tensor.Arange(0, 12).Reshape([]int{4, 3})}, Options{
		InputNames: []string{"x"}, DynamicShapes: []map[int]*Dimension{{0: Dim("rows", 2, 8)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := ep.Save(&buf); err != nil {
		t.Fatal(err)
	}
	return ep, buf.Bytes()
}

// TestSaveLoadSymInts: sym_size.int and operator nodes are saved as
// PyTorch's serializer writes them (as_sym_int outputs and arguments,
// as_sym_ints lists, _operator targets, sym_int_values with expressions)
// and load back into a program that runs every size in range.
func TestSaveLoadSymInts(t *testing.T) {
	ep, b := dynamicArchive(t)
	var model []byte
	for _, e := range unzip(t, b) {
		if e.name == modelPath {
			model = e.data
		}
	}
	for _, want := range []string{
		`"target":"torch.ops.aten.sym_size.int"`,
		`"outputs":[{"as_sym_int":{"as_name":"sym_size_int"}}]`,
		`"target":"_operator.mul","inputs":[{"name":"a","arg":{"as_sym_int":{"as_name":"sym_size_int"}},"kind":1},{"name":"b","arg":{"as_int":3},"kind":1}]`,
		`"arg":{"as_sym_ints":[{"as_name":"mul"}]}`,
		`"sym_int_values":{"mul":{"as_expr":{"expr_str":"3*s0","hint":{"as_int":12}}},"mul_1":{"as_expr":{"expr_str":"3*s0","hint":{"as_int":12}}},"sub":{"as_expr":{"expr_str":"3*s0 - 1","hint":{"as_int":11}}},"sym_size_int":{"as_expr":{"expr_str":"s0","hint":{"as_int":4}}}}`,
	} {
		if !strings.Contains(string(model), want) {
			t.Errorf("model.json lacks %s:\n%s", want, model)
		}
	}
	loaded, err := Load(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := ep.String(), loaded.String(); a != b {
		t.Errorf("String:\n%s\nloaded:\n%s", a, b)
	}
	for _, rows := range []int{2, 5, 8} {
		x := tensor.Arange(0, rows*3).Reshape([]int{rows, 3})
		got, err := loaded.Module().Forward(x)
		if err != nil {
			t.Fatalf("rows %d: %v", rows, err)
		}
		want := (&symNet{}).Forward(x)
		if !slices.Equal(got[0].Sizes(), want.Sizes()) || !slices.Equal(got[0].Float64s(), want.Float64s()) {
			t.Errorf("rows %d: %v, want %v", rows, got[0], want)
		}
	}
}

// TestLoadMalformedFeatures: malformed uses of the schema's newer features
// (symbolic size expressions, unbacked sizes, nested sub-programs, custom
// objects' state) are errors; no size or state is allocated before it is
// checked.
func TestLoadMalformedFeatures(t *testing.T) {
	_, dyn := dynamicArchive(t)
	cond := condArchive(t)
	unbacked := unbackedSeed(t)
	foo := fooArchive(t)
	meta := func(sizes ...any) map[string]any {
		var ss, st []any
		stride := int64(1)
		for range sizes {
			st = append(st, nil)
		}
		for j := len(sizes) - 1; j >= 0; j-- {
			ss = append([]any{sizes[j]}, ss...)
			st[j] = map[string]any{"as_int": stride}
			if n, ok := sizes[j].(map[string]any)["as_int"].(int64); ok && n > 0 && stride < 1<<40 {
				stride *= n
			}
		}
		return map[string]any{"dtype": 7, "sizes": ss, "requires_grad": false, "device": map[string]any{"type": "cpu", "index": nil},
			"strides": st, "storage_offset": map[string]any{"as_int": 0}, "layout": 7}
	}
	n := func(k int64) map[string]any { return map[string]any{"as_int": k} }
	expr := func(e string, hint int64) map[string]any {
		return map[string]any{"as_expr": map[string]any{"expr_str": e, "hint": map[string]any{"as_int": hint}}}
	}
	// nested is a sub-program holding a cond on its input whose true
	// branch is nested(depth-1); nested(0) returns its input.
	var nested func(depth int) map[string]any
	nested = func(depth int) map[string]any {
		g := map[string]any{"inputs": []any{map[string]any{"as_tensor": map[string]any{"name": "a"}}},
			"tensor_values": map[string]any{"a": meta(n(2), n(3)), "o": meta(n(2), n(3))},
			"nodes":         []any{},
			"outputs":       []any{map[string]any{"as_tensor": map[string]any{"name": "a"}}}}
		if depth == 0 {
			return g
		}
		tensorArg := func(name string) map[string]any {
			return map[string]any{"name": "", "kind": 1, "arg": map[string]any{"as_tensor": map[string]any{"name": name}}}
		}
		g["nodes"] = []any{map[string]any{"target": "torch.ops.higher_order.cond", "metadata": map[string]any{},
			"inputs": []any{tensorArg("a"),
				map[string]any{"name": "", "kind": 1, "arg": map[string]any{"as_graph": map[string]any{"name": "true_graph_0", "graph": nested(depth - 1)}}},
				map[string]any{"name": "", "kind": 1, "arg": map[string]any{"as_graph": map[string]any{"name": "false_graph_0", "graph": nested(0)}}},
				map[string]any{"name": "", "kind": 1, "arg": map[string]any{"as_tensors": []any{map[string]any{"name": "a"}}}}},
			"outputs": []any{map[string]any{"as_tensors": []any{map[string]any{"name": "o"}}}}}}
		g["outputs"] = []any{map[string]any{"as_tensor": map[string]any{"name": "o"}}}
		return g
	}
	trueBranch := func(p map[string]any) map[string]any {
		return nodeWith(p, "higher_order.cond")["inputs"].([]any)[1].(map[string]any)["arg"].(map[string]any)["as_graph"].(map[string]any)
	}
	objState := func(header string, data []byte) []byte {
		return withEntry(t, foo, objectsPath, func(e *entry) {
			b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
			e.data = append(append(b, header...), data...)
		})
	}
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		// A size expression's hint is bounded per dimension (2^51); the
		// value's elements are bounded too, before anything is made.
		{"expression hint past the limit", withModel(t, dyn, func(p map[string]any) {
			path(graphOf(p), "tensor_values", "view", "sizes").([]any)[0] = expr("3*s0", 1<<52)
		}), "value view: symbolic size 3*s0 has no valid hint"},
		{"negative expression hint", withModel(t, dyn, func(p map[string]any) {
			path(graphOf(p), "tensor_values", "view", "sizes").([]any)[0] = expr("3*s0", -3)
		}), "value view: symbolic size 3*s0 has no valid hint"},
		{"expression hints of 2^51 elements", withModel(t, dyn, func(p map[string]any) {
			path(graphOf(p), "tensor_values", "view", "sizes").([]any)[0] = expr("3*s0", 1<<51-1<<20)
		}), "value view is too large"},
		{"sizes in bounds, product huge", withModel(t, dyn, func(p map[string]any) {
			m := meta(expr("3*s0", 1<<30), n(1<<30), n(1<<30))
			m["strides"] = []any{n(0), n(0), n(0)} // spans one element
			graphOf(p)["tensor_values"].(map[string]any)["view"] = m
		}), "value view is too large"},
		{"strides overflowing", withModel(t, dyn, func(p map[string]any) {
			m := meta(n(1<<20), n(1<<20))
			m["strides"] = []any{n(1<<51 - 1<<20), n(1<<51 - 1<<20)}
			graphOf(p)["tensor_values"].(map[string]any)["view"] = m
		}), "value view is too large"},
		{"sym int hint past the limit", withModel(t, dyn, func(p map[string]any) {
			graphOf(p)["sym_int_values"].(map[string]any)["mul"] = expr("3*s0", 1<<60)
		}), "symbolic int mul has no valid hint"},
		{"sym int without a hint", withModel(t, dyn, func(p map[string]any) {
			graphOf(p)["sym_int_values"].(map[string]any)["mul"] = map[string]any{"as_expr": map[string]any{"expr_str": "3*s0", "hint": nil}}
		}), "symbolic int mul has no valid hint"},
		{"expression of deep parentheses", withModel(t, dyn, func(p map[string]any) {
			path(graphOf(p), "tensor_values", "view", "sizes").([]any)[0] = expr(strings.Repeat("(", 100)+"s0"+strings.Repeat(")", 99), 12)
		}), "not an expression"},
		{"expression of a NUL", withModel(t, dyn, func(p map[string]any) {
			path(graphOf(p), "tensor_values", "view", "sizes").([]any)[0] = expr("3*s0\x00", 12)
		}), `unexpected character '\x00'`},
		{"expression of a non-ASCII letter", withModel(t, dyn, func(p map[string]any) {
			path(graphOf(p), "tensor_values", "view", "sizes").([]any)[0] = expr("3*s0é", 12)
		}), "unexpected character"},
		{"symbolic input size of an expression", withModel(t, dyn, func(p map[string]any) {
			path(graphOf(p), "tensor_values", "x", "sizes").([]any)[0] = expr("2*s0", 4)
		}), `value x has size "2*s0", which is not a symbol of the range constraints`},
		{"symbolic input hint outside its range", withModel(t, dyn, func(p map[string]any) {
			path(graphOf(p), "tensor_values", "x", "sizes").([]any)[0] = expr("s0", 9)
		}), "value x: the hint 9 of s0 is outside its range"},
		{"empty range", withModel(t, dyn, func(p map[string]any) {
			p["range_constraints"].(map[string]any)["s0"] = map[string]any{"min_val": 5, "max_val": 4}
		}), "range constraint on s0 is empty: [5, 4]"},
		{"range without min_val", withModel(t, dyn, func(p map[string]any) {
			p["range_constraints"].(map[string]any)["s0"] = map[string]any{"max_val": 4}
		}), "range constraint on s0 has no valid min_val"},
		// Unbacked sizes (u0) take their symbol's fixed hint: the symbol
		// must be a range constraint's, and many of them in one value are
		// refused as too large.
		{"unbacked size of an unknown symbol", withModel(t, unbacked, func(p map[string]any) {
			delete(p["range_constraints"].(map[string]any), "u0")
		}), `size "u0", which is not a symbol of the range constraints`},
		{"many unbacked sizes", withModel(t, unbacked, func(p map[string]any) {
			rc := p["range_constraints"].(map[string]any)
			u := map[string]any{"as_expr": map[string]any{"expr_str": "u0", "hint": nil}}
			for _, s := range []string{"u1", "u2"} {
				rc[s] = map[string]any{"min_val": 0, "max_val": nil}
			}
			m := meta(n(1), n(1), n(1))
			m["sizes"] = []any{u, map[string]any{"as_expr": map[string]any{"expr_str": "u1", "hint": nil}}, map[string]any{"as_expr": map[string]any{"expr_str": "u2", "hint": nil}}}
			graphOf(p)["tensor_values"].(map[string]any)["exp"] = m
		}), "value exp is too large"},
		// A higher-order op's keyword arguments are a dict: one value per
		// name.
		{"higher-order op keyword given twice", withEntry(t, autoFuncSeed(t), modelPath, func(e *entry) {
			e.data = bytes.Replace(e.data, []byte(`{"name":"y","arg":{"as_tensor":{"name":"args_0"}},"kind":2}`), []byte(`{"name":"x","arg":{"as_tensor":{"name":"args_0"}},"kind":2}`), 1)
		}), "node 1 (torch.ops.higher_order.auto_functionalized): keyword argument x given twice"},
		// Sub-programs nest at most maxGraphDepth deep.
		{"sub-programs nested too deep", withModel(t, cond, func(p map[string]any) {
			trueBranch(p)["graph"] = nested(maxGraphDepth)
		}), fmt.Sprintf("sub-programs nest more than %d deep", maxGraphDepth)},
		{"sub-program without a graph", withModel(t, cond, func(p map[string]any) {
			trueBranch(p)["graph"] = nil
		}), `the sub-program "true_graph_0" has no graph`},
		{"two sub-programs of one name", withModel(t, cond, func(p map[string]any) {
			nodeWith(p, "higher_order.cond")["inputs"].([]any)[2].(map[string]any)["arg"].(map[string]any)["as_graph"].(map[string]any)["name"] = "true_graph_0"
		}), "two different sub-programs are named true_graph_0"},
		// A custom object's state declaring more data than it holds is
		// refused before anything is made for it.
		{"object state of 2^40 elements", objState(`{"attr/x":{"dtype":"I64","shape":[1099511627776],"data_offsets":[0,8]},"attr/y":{"dtype":"I64","shape":[1],"data_offsets":[8,16]}}`, make([]byte, 16)),
			"archive/data/custom_objs/model.safetensors: "},
		{"object state of 2^62 elements", objState(`{"attr/x":{"dtype":"I64","shape":[2147483648,2147483648],"data_offsets":[0,8]},"attr/y":{"dtype":"I64","shape":[1],"data_offsets":[8,16]}}`, make([]byte, 16)),
			"too large"},
		{"object state with an empty tensor", objState(`{"attr/x":{"dtype":"I64","shape":[0,4503599627370496],"data_offsets":[0,0]},"attr/y":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}}`, make([]byte, 8)),
			"custom object attr: __torch__.torch.classes._TorchScriptTesting._Foo.__setstate__"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ep, err := Load(bytes.NewReader(c.b), int64(len(c.b)))
			if err == nil {
				t.Fatalf("loaded:\n%s", ep)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("got  %v\nwant an error containing %q", err, c.want)
			}
		})
	}
}

// TestLoadDeepTargetsBounded: checking the dotted targets of parameters
// and buffers costs memory in proportion to their length, not to its
// square: a target of 512 components of 1023 bytes allocates no copy of
// each of its prefixes.
func TestLoadDeepTargetsBounded(t *testing.T) {
	deep := strings.Repeat("a.", 511) + "w" // 1023 bytes, 512 components
	n := 0
	b := withModel(t, validArchive(t), func(p map[string]any) {
		specs := path(p, "graph_module", "signature", "input_specs").([]any)
		for i, s := range specs {
			if ps, ok := s.(map[string]any)["parameter"]; ok {
				ps.(map[string]any)["parameter_name"] = fmt.Sprintf("p%d.", i) + deep[:len(deep)-4]
				n++
			}
		}
	})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Load(bytes.NewReader(b), int64(len(b)))
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "has no tensor") {
		t.Fatalf("got %v, want the error of the missing weight", err)
	}
	ref := validArchive(t)
	runtime.GC()
	var b0, b1 runtime.MemStats
	runtime.ReadMemStats(&b0)
	if _, err := Load(bytes.NewReader(ref), int64(len(ref))); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&b1)
	got, base := after.TotalAlloc-before.TotalAlloc, b1.TotalAlloc-b0.TotalAlloc
	if n == 0 {
		t.Fatal("the program has no parameter")
	}
	if got > base+uint64(n*64*len(deep)) {
		t.Errorf("Load allocated %d bytes for a program with %d targets of %d bytes, %d for the same program without", got, n, len(deep), base)
	}
}
