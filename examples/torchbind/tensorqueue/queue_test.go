package tensorqueue_test

import (
	"strings"
	"sync"
	"testing"

	_ "github.com/goaten/goaten"
	"github.com/goaten/goaten/library"
	"github.com/goaten/goaten/tensor"
	"github.com/goaten/goaten/torchbind"

	tq "github.com/goaten/goaten/examples/torchbind/tensorqueue"
)

func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	err := tensor.Try(f)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("want an error containing %q, got %v", want, err)
	}
}

func filled(v float64) *tensor.Tensor { return tensor.FullOf(tensor.Float32, v, 1) }

func TestMethodSchemas(t *testing.T) {
	q := "__torch__.torch.classes.MyCustomClass.TensorQueue"
	want := map[string]string{
		"__init__":      "__init__(" + q + " _0, Tensor _1) -> NoneType _0",
		"push":          "push(" + q + " _0, Tensor _1) -> NoneType _0",
		"pop":           "pop(" + q + " _0) -> Tensor _0",
		"top":           "top(" + q + " _0) -> Tensor _0",
		"size":          "size(" + q + " _0) -> int _0",
		"clone_queue":   "clone_queue(" + q + " _0) -> " + q + " _0",
		"get_raw_queue": "get_raw_queue(" + q + " _0) -> Tensor[] _0",
		"for_each_add_": "for_each_add_(" + q + " _0, Tensor _1) -> NoneType _0",
	}
	for name, s := range want {
		if got := tq.Class.Method(name).Schema(); got != s {
			t.Errorf("%s: got %q, want %q", name, got, s)
		}
	}
	if got := tq.Class.QualifiedName(); got != q {
		t.Errorf("qualified name %q", got)
	}
}

func TestEagerAndBoxed(t *testing.T) {
	obj := tq.Class.New(tensor.FullOf(tensor.Float32, -1, 1))
	q := torchbind.Unwrap[*tq.TensorQueue](obj)
	for i := 0; i < 3; i++ {
		obj.Call("push", filled(float64(i)))
	}
	if n := obj.Call("size"); n != 3 || q.Size() != 3 {
		t.Fatalf("size %v", n)
	}
	if v := obj.Call("pop").(*tensor.Tensor).Item().Float64(); v != 0 {
		t.Fatalf("pop %v", v)
	}
	if v := q.Top().Item().Float64(); v != 1 {
		t.Fatalf("top %v", v)
	}
	c := obj.Call("clone_queue").(*torchbind.Object)
	if c.Call("size") != 2 || c.Value() == obj.Value() {
		t.Fatal("clone_queue")
	}
	mustPanic(t, "Tried to access nonexistent attribute or method '_not_defined_attr'", func() { obj.Call("_not_defined_attr") })
	mustPanic(t, "push() expected 2 argument(s) but received 1", func() { obj.Call("push") })
	mustPanic(t, "Expected a value of type", func() { obj.Call("push", "x") })
	// The empty queue pops its init tensor.
	e := tq.New(tensor.FullOf(tensor.Float32, -1, 1))
	if e.Pop().Item().Float64() != -1 {
		t.Fatal("init tensor")
	}
}

// The seed's for_each_add_: a custom op whose schema names the class, run
// eagerly on the CPU with the Go value and with the boxed object.
func TestForEachAddOp(t *testing.T) {
	q := tq.New(filled(-1))
	for i := 0; i < 10; i++ {
		q.Push(tensor.FullOf(tensor.Float32, 0, 1))
	}
	library.CallAs[any](tq.ForEachAdd, q, tensor.FullOf(tensor.Float32, 1, 1))
	tensor.Call("MyCustomClass::for_each_add_", tq.Class.Wrap(q), tensor.FullOf(tensor.Float32, 1, 1))
	if q.Size() != 10 || q.Top().Item().Float64() != 2 {
		t.Fatalf("size %d top %v", q.Size(), q.Top())
	}
	if s := tq.ForEachAdd.Schema().Args[0].Type; s.Kind != tensor.TClass || s.Name != tq.Class.QualifiedName() {
		t.Fatalf("schema type %v", s)
	}
	mustPanic(t, "Expected a value of type '__torch__.torch.classes.MyCustomClass.TensorQueue' for argument 'foo'", func() {
		tensor.Call("MyCustomClass::for_each_add_", 3, filled(1))
	})
}

func TestFlattenAndPickle(t *testing.T) {
	q := tq.New(filled(-1))
	q.Push(filled(1))
	q.Push(filled(2))
	obj := tq.Class.Wrap(q)
	flat := obj.Flatten()
	if len(flat) != 2 || flat[0].Name != "queue" || len(flat.Tensors("queue")) != 2 || flat[1].Name != "init_tensor_" {
		t.Fatalf("flat %v", flat)
	}
	state := obj.GetState()
	back := torchbind.Unwrap[*tq.TensorQueue](tq.Class.SetState(state))
	if back.Size() != 2 || back.Pop().Item().Float64() != 1 || back.Pop().Item().Float64() != 2 || back.Pop().Item().Float64() != -1 {
		t.Fatal("pickle round trip")
	}
	if len(state) != 4 || state["queue_size"].Item().Int64() != 2 {
		t.Fatalf("state %v", state)
	}
}

func TestToFakeLeavesRealUntouched(t *testing.T) {
	q := tq.New(filled(-1))
	q.Push(tensor.FullOf(tensor.Float32, 5, 1))
	obj := tq.Class.Wrap(q)
	f := torchbind.ToFake(obj, nil)
	fq := torchbind.Unwrap[*tq.FakeTensorQueue](f)
	if !f.IsFake() || f.Real() != obj || len(fq.Queue) != 1 || fq.Queue[0].Device() != tensor.Meta {
		t.Fatalf("fake %v", f)
	}
	x := tensor.NewMetaContiguous([]int{2, 3}, tensor.Float32, tensor.Meta)
	f.Call("push", x)
	f.Call("push", x)
	if p := f.Call("pop").(*tensor.Tensor); p.Device() != tensor.Meta || len(p.Sizes()) != 1 {
		t.Fatalf("pop %v", p)
	}
	if f.Call("size") != 2 {
		t.Fatal("fake size")
	}
	// The custom op's fake kernel runs the fake method on meta tensors.
	tensor.Call("MyCustomClass::for_each_add_", f, tensor.NewMetaContiguous([]int{1}, tensor.Float32, tensor.Meta))
	if fq.Calls["push"] != 2 || fq.Calls["pop"] != 1 || fq.Calls["size"] != 1 || fq.Calls["for_each_add_"] != 1 {
		t.Fatalf("calls %v", fq.Calls)
	}
	if q.Size() != 1 || q.Top().Item().Float64() != 5 {
		t.Fatalf("the real queue changed: size %d top %v", q.Size(), q.Top())
	}
	mustPanic(t, "FakeScriptObject doesn't define method clone_queue", func() { f.Call("clone_queue") })
	mustPanic(t, "FakeScriptObject doesn't define method _not_defined_attr", func() { f.Call("_not_defined_attr") })
	mustPanic(t, "is expected to be a FakeScriptObject", func() {
		tensor.Call("MyCustomClass::for_each_add_", obj, tensor.NewMetaContiguous([]int{1}, tensor.Float32, tensor.Meta))
	})
}

func TestConcurrentPushPop(t *testing.T) {
	q := tq.New(filled(-1))
	obj := tq.Class.Wrap(q)
	var wg sync.WaitGroup
	const G, N = 8, 200
	var popped sync.Map
	for g := 0; g < G; g++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := 0; i < N; i++ {
				if i%2 == 0 {
					q.Push(filled(1))
				} else {
					obj.Call("push", filled(1))
				}
			}
		}()
		go func() {
			defer wg.Done()
			for i := 0; i < N/2; i++ {
				popped.Store(q.Pop(), true)
				_ = obj.Call("size")
			}
		}()
	}
	wg.Wait()
	n := 0
	popped.Range(func(k, _ any) bool {
		if k.(*tensor.Tensor).Item().Float64() == 1 {
			n++
		}
		return true
	})
	if q.Size()+n != G*N {
		t.Fatalf("size %d + popped %d != %d", q.Size(), n, G*N)
	}
}
