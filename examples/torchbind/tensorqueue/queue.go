// Package tensorqueue is seed 001's thread-safe TensorQueue as a goaten
// custom class: MyCustomClass::TensorQueue with push, pop, top, size,
// clone_queue, get_raw_queue and for_each_add_ (added by a fragment),
// __obj_flatten__, pickle state, its fake class, and the custom op
// MyCustomClass::for_each_add_ that takes the queue.
package tensorqueue

import (
	"strconv"
	"sync"

	"github.com/goaten/goaten/library"
	"github.com/goaten/goaten/tensor"
	"github.com/goaten/goaten/torchbind"
)

// TensorQueue is a queue of tensors, safe for concurrent use. Pop and Top
// of an empty queue give the init tensor.
type TensorQueue struct {
	mu    sync.Mutex
	queue []*tensor.Tensor
	init  *tensor.Tensor
}

// New is the constructor (torch::init<at::Tensor>()).
func New(init *tensor.Tensor) *TensorQueue { return &TensorQueue{init: init} }

// FromState is __setstate__: a queue from its pickle state. A state
// without init_tensor, queue_size (a one-element integer tensor) or one of
// the indexed tensors it counts panics with a *tensor.Error.
func FromState(state map[string]*tensor.Tensor) *TensorQueue {
	get := func(k string) *tensor.Tensor {
		t := state[k]
		if t == nil {
			tensor.Panicf("TensorQueue.__setstate__: the state has no %q", k)
		}
		return t
	}
	size := get("queue_size")
	if size.Numel() != 1 || size.DType().IsFloat() || size.DType() == tensor.Bool {
		tensor.Panicf("TensorQueue.__setstate__: queue_size must be one integer, got %s %v", size.DType(), size.Sizes())
	}
	n := size.Item().Int64()
	if n < 0 || n > int64(len(state)) {
		tensor.Panicf("TensorQueue.__setstate__: queue_size %d does not fit a state of %d tensors", n, len(state))
	}
	q := New(get("init_tensor"))
	for i := range int(n) {
		q.queue = append(q.queue, get(strconv.Itoa(i)))
	}
	return q
}

// Push appends x.
func (q *TensorQueue) Push(x *tensor.Tensor) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.queue = append(q.queue, x)
}

// Pop removes and returns the front tensor, or the init tensor when empty.
func (q *TensorQueue) Pop() *tensor.Tensor {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.queue) == 0 {
		return q.init
	}
	x := q.queue[0]
	q.queue[0] = nil
	q.queue = q.queue[1:]
	return x
}

// Top is the front tensor, or the init tensor when empty.
func (q *TensorQueue) Top() *tensor.Tensor {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.queue) == 0 {
		return q.init
	}
	return q.queue[0]
}

// Size is the number of tensors queued.
func (q *TensorQueue) Size() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.queue)
}

// CloneQueue is a new queue holding clones of the tensors.
func (q *TensorQueue) CloneQueue() *TensorQueue {
	q.mu.Lock()
	defer q.mu.Unlock()
	c := New(q.init)
	for _, t := range q.queue {
		c.queue = append(c.queue, t.Clone())
	}
	return c
}

// GetRawQueue is the queued tensors themselves (a new slice).
func (q *TensorQueue) GetRawQueue() []*tensor.Tensor {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]*tensor.Tensor(nil), q.queue...)
}

// ForEachAdd_ adds inc to every queued tensor in place.
func (q *TensorQueue) ForEachAdd_(inc *tensor.Tensor) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, t := range q.queue {
		t.Add_(inc)
	}
}

// ObjFlatten is __obj_flatten__: (("queue", raw queue), ("init_tensor_", a clone of the init tensor)).
func (q *TensorQueue) ObjFlatten() torchbind.Flat {
	raw := q.GetRawQueue()
	return torchbind.Flat{{Name: "queue", Value: raw}, {Name: "init_tensor_", Value: q.init.Clone()}}
}

// GetState is __getstate__: init_tensor, queue_size and each tensor under its index.
func (q *TensorQueue) GetState() map[string]*tensor.Tensor {
	q.mu.Lock()
	defer q.mu.Unlock()
	s := map[string]*tensor.Tensor{
		"init_tensor": q.init,
		"queue_size":  tensor.FromSlice([]int64{int64(len(q.queue))}).Reshape([]int{}),
	}
	for i, t := range q.queue {
		s[strconv.Itoa(i)] = t
	}
	return s
}

// Class is MyCustomClass::TensorQueue.
var Class torchbind.ClassOf[*TensorQueue]

// ForEachAdd is the custom op MyCustomClass::for_each_add_.
var ForEachAdd *library.Op

func init() {
	Class = torchbind.Register[*TensorQueue]("MyCustomClass::TensorQueue").
		Init(New).
		// The alias options: push keeps its tensor, pop and top give
		// tensors the queue holds (AnnotatedSchema).
		Def("push", (*TensorQueue).Push, torchbind.Mutates(), torchbind.Stores(1)).
		Def("pop", (*TensorQueue).Pop, torchbind.Mutates(), torchbind.ReturnsAlias()).
		Def("top", (*TensorQueue).Top, torchbind.ReturnsAlias()).
		Def("size", (*TensorQueue).Size).
		Def("clone_queue", (*TensorQueue).CloneQueue).
		Def("get_raw_queue", (*TensorQueue).GetRawQueue, torchbind.ReturnsAlias()).
		Flatten((*TensorQueue).ObjFlatten).
		Pickle((*TensorQueue).GetState, FromState)

	// TORCH_LIBRARY_FRAGMENT(MyCustomClass, m): a method and an op taking the queue.
	torchbind.Fragment[*TensorQueue]("MyCustomClass::TensorQueue").
		Def("for_each_add_", (*TensorQueue).ForEachAdd_, torchbind.Mutates())
	// An op taking a script object is effectful without being told so
	// (package compile/hop registers it, as PyTorch's _get_effect gives
	// ORDERED to ops with a ScriptObject argument): a functionalized trace
	// threads a token through it.
	ForEachAdd = library.Define("MyCustomClass::for_each_add_(__torch__.torch.classes.MyCustomClass.TensorQueue foo, Tensor inc) -> ()")
	ForEachAdd.Impl("CPU", func(a library.Args) any {
		torchbind.Unwrap[*TensorQueue](a.Object("foo")).ForEachAdd_(a.Tensor("inc"))
		return nil
	})
	ForEachAdd.RegisterFake(func(a library.Args) any {
		torchbind.Call(a.Object("foo"), "for_each_add_", a.Tensor("inc"))
		return nil
	})

	torchbind.RegisterFakeClass("MyCustomClass::TensorQueue", torchbind.FakeClass{
		Unflatten: UnflattenFake,
		Methods: map[string]any{
			"push":          (*FakeTensorQueue).Push,
			"pop":           (*FakeTensorQueue).Pop,
			"top":           (*FakeTensorQueue).Top,
			"size":          (*FakeTensorQueue).Size,
			"for_each_add_": (*FakeTensorQueue).ForEachAdd_,
		},
	})
}

// FakeTensorQueue is the fake class: a queue of fake tensors.
type FakeTensorQueue struct {
	Queue      []*tensor.Tensor
	InitTensor *tensor.Tensor
	Calls      map[string]int // how many times each fake method ran
}

// UnflattenFake is __obj_unflatten__: a fake queue from the flattened, fakified state.
func UnflattenFake(flat torchbind.Flat) *FakeTensorQueue {
	return &FakeTensorQueue{Queue: flat.Tensors("queue"), InitTensor: flat.Tensor("init_tensor_"), Calls: map[string]int{}}
}

// Push appends x.
func (f *FakeTensorQueue) Push(x *tensor.Tensor) { f.Calls["push"]++; f.Queue = append(f.Queue, x) }

// Pop removes the front tensor, or gives the init tensor.
func (f *FakeTensorQueue) Pop() *tensor.Tensor {
	f.Calls["pop"]++
	if len(f.Queue) == 0 {
		return f.InitTensor
	}
	x := f.Queue[0]
	f.Queue = f.Queue[1:]
	return x
}

// Top is the front tensor, or the init tensor.
func (f *FakeTensorQueue) Top() *tensor.Tensor {
	f.Calls["top"]++
	if len(f.Queue) == 0 {
		return f.InitTensor
	}
	return f.Queue[0]
}

// Size is the queue's length.
func (f *FakeTensorQueue) Size() int { f.Calls["size"]++; return len(f.Queue) }

// ForEachAdd_ adds inc to each fake tensor in place (on meta tensors: metadata only).
func (f *FakeTensorQueue) ForEachAdd_(inc *tensor.Tensor) {
	f.Calls["for_each_add_"]++
	for _, t := range f.Queue {
		t.Add_(inc)
	}
}
