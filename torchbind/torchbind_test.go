package torchbind_test

import (
	"strings"
	"testing"

	_ "github.com/goaten/goaten"
	"github.com/goaten/goaten/library"
	"github.com/goaten/goaten/tensor"
	"github.com/goaten/goaten/torchbind"
)

// testQueue is PyTorch's _TorchScriptTesting._TensorQueue, reduced.
type testQueue struct{ q []*tensor.Tensor }

func (q *testQueue) Push(x *tensor.Tensor) { q.q = append(q.q, x) }
func (q *testQueue) Pop() *tensor.Tensor {
	x := q.q[0]
	q.q = q.q[1:]
	return x
}
func (q *testQueue) Flat() torchbind.Flat { return torchbind.Flat{{Name: "queue", Value: q.q}} }

type fakeQueue struct{ q []*tensor.Tensor }

func unflattenFake(f torchbind.Flat) *fakeQueue          { return &fakeQueue{q: f.Tensors("queue")} }
func (f *fakeQueue) Unflatten(torchbind.Flat) *fakeQueue { return f }
func (f *fakeQueue) Push(x *tensor.Tensor)               { f.q = append(f.q, x) }

var testClass = torchbind.Register[*testQueue]("_TorchScriptTesting::_TensorQueue").
	Init(func() *testQueue { return &testQueue{} }).
	Def("push", (*testQueue).Push).
	Def("pop", (*testQueue).Pop).
	Flatten((*testQueue).Flat)

func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	err := tensor.Try(f)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("want an error containing %q, got %v", want, err)
	}
}

// S8's test_method_schema.
func TestMethodSchema(t *testing.T) {
	for _, want := range []string{
		"push(__torch__.torch.classes._TorchScriptTesting._TensorQueue _0, Tensor _1) -> NoneType _0",
		"pop(__torch__.torch.classes._TorchScriptTesting._TensorQueue _0) -> Tensor _0",
	} {
		name, _, _ := strings.Cut(want, "(")
		if got := testClass.Method(name).Schema(); got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
	if got := testClass.MethodNames(); strings.Join(got, ",") != "pop,push" {
		t.Errorf("methods %v", got)
	}
}

type fragObj struct{ n int }

func TestFragmentAndErrors(t *testing.T) {
	c := torchbind.Register[*fragObj]("_TorchBindTest::Frag").Init(func(n int) *fragObj { return &fragObj{n} })
	o := c.New(int64(2))
	mustPanic(t, "nonexistent attribute or method 'twice'", func() { o.Call("twice") })
	torchbind.Fragment[*fragObj]("_TorchBindTest::Frag").Def("twice", func(f *fragObj, k float64) float64 { return float64(f.n) * 2 * k })
	if got := o.Call("twice", 3); got != 12.0 {
		t.Fatalf("twice %v", got)
	}
	if s := c.Method("twice").Schema(); s != "twice(__torch__.torch.classes._TorchBindTest.Frag _0, float _1) -> float _0" {
		t.Fatal(s)
	}
	mustPanic(t, "already defined", func() { torchbind.Fragment[*fragObj]("_TorchBindTest::Frag").Def("twice", func(*fragObj) {}) })
	mustPanic(t, "Tried to register class __torch__.torch.classes._TorchBindTest.Frag twice", func() { torchbind.Register[*testQueue]("_TorchBindTest::Frag") })
	mustPanic(t, "not *torchbind_test.testQueue", func() { torchbind.Fragment[*testQueue]("_TorchBindTest::Frag") })
	mustPanic(t, "Tried to instantiate class '_TorchBindTest.Nope', but it does not exist!", func() { torchbind.Fragment[*fragObj]("_TorchBindTest::Nope") })
	mustPanic(t, "has no schema type", func() { c.Def("bad", func(*fragObj, chan int) {}) })
	// Unknown class types in op schemas are PyTorch's parse error.
	mustPanic(t, "Unknown custom class type _TorchBindTest.Nope. Please ensure it is registered.", func() {
		library.Define("_TorchBindTest::takes_nope(__torch__.torch.classes._TorchBindTest.Nope x) -> ()")
	})
}

// S8's register_fake_class errors, and a custom op without a fake impl
// given a fake object.
func TestFakeClassErrors(t *testing.T) {
	mustPanic(t, "Tried to instantiate class '_TorchScriptTesting.NOT_A_VALID_NAME'", func() {
		torchbind.RegisterFakeClass("_TorchScriptTesting::NOT_A_VALID_NAME", torchbind.FakeClass{Unflatten: unflattenFake})
	})
	mustPanic(t, "define a classmethod __obj_unflatten__", func() {
		torchbind.RegisterFakeClass("_TorchScriptTesting::_TensorQueue", torchbind.FakeClass{})
	})
	mustPanic(t, "is not a classmethod", func() {
		torchbind.RegisterFakeClass("_TorchScriptTesting::_TensorQueue", torchbind.FakeClass{Unflatten: (*fakeQueue).Unflatten})
	})
	mustPanic(t, "has no fake class", func() { torchbind.ToFake(testClass.Wrap(&testQueue{}), nil) })
	torchbind.RegisterFakeClass("_TorchScriptTesting::_TensorQueue", torchbind.FakeClass{
		Unflatten: unflattenFake,
		Methods:   map[string]any{"push": (*fakeQueue).Push},
	})
	if !torchbind.HasFakeClass("_TorchScriptTesting::_TensorQueue") {
		t.Fatal("HasFakeClass")
	}
	real := &testQueue{q: []*tensor.Tensor{tensor.FullOf(tensor.Float32, 1, 2)}}
	f := torchbind.ToFake(testClass.Wrap(real), nil)
	mustPanic(t, "FakeScriptObject doesn't define method pop", func() { f.Call("pop") })

	op := library.Define("_TorchScriptTesting::takes_queue(__torch__.torch.classes._TorchScriptTesting._TensorQueue q, Tensor x) -> Tensor")
	op.Impl("CPU", func(a library.Args) any { return a.Tensor("x").Clone() })
	meta := tensor.NewMetaContiguous([]int{2}, tensor.Float32, tensor.Meta)
	mustPanic(t, "no python implementation is found", func() { tensor.Call(op.Name(), f, meta) })
	mustPanic(t, "is expected to be a FakeScriptObject", func() { tensor.Call(op.Name(), real, meta) })
	// Eagerly the Go value and the object both bind.
	x := tensor.FullOf(tensor.Float32, 3, 2)
	if y := tensor.Call(op.Name(), real, x).(*tensor.Tensor); y.Sizes()[0] != 2 {
		t.Fatal(y)
	}
}

type annObj struct{ t *tensor.Tensor }

// Alias options that cannot apply are refused when the method is defined.
func TestAliasOptionErrors(t *testing.T) {
	c := torchbind.Register[*annObj]("_TorchBindTest::Ann")
	mustPanic(t, "keeps argument _1, a int; only tensors can be kept", func() {
		c.Def("setn", func(*annObj, int) {}, torchbind.Stores(1))
	})
	mustPanic(t, "keeps argument _2, but it has 1 argument(s)", func() {
		c.Def("set2", func(*annObj, *tensor.Tensor) {}, torchbind.Stores(2))
	})
	mustPanic(t, "returns no tensor that could alias its state", func() {
		c.Def("n", func(*annObj) int { return 0 }, torchbind.ReturnsAlias())
	})
	c.Def("swap", func(o *annObj, x []*tensor.Tensor) (*tensor.Tensor, int) { return o.t, 0 },
		torchbind.Mutates(), torchbind.Stores(1), torchbind.ReturnsAlias())
	want := "swap(__torch__.torch.classes._TorchBindTest.Ann(a!) _0, Tensor(b -> *)[] _1) -> (Tensor(*) _0, int _1)"
	if got := c.Method("swap").AnnotatedSchema(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := c.Method("swap").Schema(); got != "swap(__torch__.torch.classes._TorchBindTest.Ann _0, Tensor[] _1) -> (Tensor _0, int _1)" {
		t.Errorf("plain schema %s", got)
	}
}
