package export

import (
	"bytes"
	"testing"

	"github.com/goaten/goaten/compile/hop"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/tensor"
)

// FuzzLoad feeds Load malformed archives: it must return an error or a
// program, never panic or allocate without bound, and a program it returns
// must save and load again. An input that does not start as a zip file
// ("PK") is used as the program's JSON inside an otherwise valid archive,
// so that the fuzzer reaches the graph reader past the archive's checksums.
func FuzzLoad(f *testing.F) {
	valid := validArchive(f)
	model := []byte(nil)
	for _, e := range unzip(f, valid) {
		if e.name == modelPath {
			model = e.data
		}
	}
	f.Add(valid)
	f.Add(valid[:len(valid)/2])
	f.Add(valid[:len(valid)-22])
	f.Add(withEntry(f, valid, versionPath, func(e *entry) { e.data = []byte("2") }))
	f.Add(withEntry(f, valid, weightsPath, func(e *entry) { e.data = e.data[:len(e.data)/2] }))
	f.Add(model)
	f.Add(model[:len(model)/2])
	f.Add(bytes.Replace(model, []byte(`"name":"mm"`), []byte(`"name":"x"`), 1))
	f.Add(bytes.Replace(model, []byte(`aten.mm.default`), []byte(`mylib.foo.default`), 1))
	f.Add(bytes.Replace(model, []byte(`"as_int":4`), []byte(`"as_int":-4`), 1))
	_, dyn := dynamicArchive(f)
	f.Add(dyn)
	for _, e := range unzip(f, dyn) {
		if e.name == modelPath {
			f.Add(e.data)
			f.Add(bytes.Replace(e.data, []byte(`_operator.mul`), []byte(`_operator.floordiv`), 1))
			f.Add(bytes.Replace(e.data, []byte(`"as_int":3}`), []byte(`"as_int":0}`), 1))
			f.Add(bytes.Replace(e.data, []byte(`{"as_name":"mul"}`), []byte(`{"as_name":"x"}`), 1))
		}
	}
	f.Add([]byte(`{"graph_module":{"graph":{"inputs":[{"as_tensor":{"name":"x"}}],"nodes":[],"outputs":[]}}}`))
	hopModel := []byte(nil)
	for _, e := range unzip(f, condArchive(f)) {
		if e.name == modelPath {
			hopModel = e.data
		}
	}
	f.Add(hopModel)
	f.Add(bytes.Replace(hopModel, []byte(`"as_graph"`), []byte(`"as_tensor"`), 1))
	f.Add(bytes.Replace(hopModel, []byte(`higher_order.cond`), []byte(`higher_order.nope`), 1))
	// A program with an effect token and a lifted TorchBind object (S4).
	foo := fooArchive(f)
	f.Add(foo)
	f.Add(withEntry(f, foo, objectsPath, func(e *entry) { e.data = e.data[:len(e.data)/2] }))
	for _, e := range unzip(f, foo) {
		if e.name == modelPath {
			f.Add(e.data)
			f.Add(bytes.Replace(e.data, []byte(`"as_custom_obj"`), []byte(`"as_tensor"`), 1))
			f.Add(bytes.Replace(e.data, []byte(`"as_operator":"torch.ops._TorchScriptTesting.takes_foo.default"`), []byte(`"as_operator":"torch.ops.higher_order.call_torchbind"`), 1))
			f.Add(bytes.Replace(e.data, []byte(`{"token":{"arg":{"name":"token"}}}`), []byte(`{"user_input":{"arg":{"as_tensor":{"name":"token"}}}}`), 1))
		}
	}
	// Symbolic size expressions of a dynamic sequence length, an unbacked
	// size out of a cond, auto_functionalized, a joint program's gradient
	// specs (fuzzseeds_internal_test.go).
	for _, b := range [][]byte{gptSeed(f), unbackedSeed(f), autoFuncSeed(f), jointArchive(f)} {
		f.Add(b)
		for _, e := range unzip(f, b) {
			if e.name == modelPath {
				f.Add(e.data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		archive := data
		if !bytes.HasPrefix(data, []byte("PK")) {
			archive = withEntry(t, valid, modelPath, func(e *entry) { e.data = data })
		}
		ep, err := Load(bytes.NewReader(archive), int64(len(archive)))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := ep.Save(&buf); err != nil {
			t.Fatalf("a loaded program does not save: %v", err)
		}
		if _, err := Load(bytes.NewReader(buf.Bytes()), int64(buf.Len())); err != nil {
			t.Fatalf("a loaded and saved program does not load: %v", err)
		}
	})
}

// condNet returns torch.cond(x.sum() > 0, relu, neg, [x]).
type condNet struct{ nn.Base }

func (n *condNet) Forward(x *tensor.Tensor) []*tensor.Tensor {
	return hop.Cond(x.SumAll().GtScalar(0),
		func(a ...*tensor.Tensor) []*tensor.Tensor { return []*tensor.Tensor{a[0].Relu()} },
		func(a ...*tensor.Tensor) []*tensor.Tensor { return []*tensor.Tensor{a[0].Neg()} },
		[]*tensor.Tensor{x})
}

// condArchive is a saved program holding a cond node.
func condArchive(t testing.TB) []byte {
	t.Helper()
	ep, err := Export(&condNet{}, []*tensor.Tensor{tensor.FromSlice([]float32{1, 2, 3, -1, 0, 2}, 2, 3)})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := ep.Save(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
