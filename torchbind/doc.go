// Package torchbind registers Go types as custom classes, as PyTorch's
// TorchBind does for C++ classes (TORCH_LIBRARY(ns, m) { m.class_<T>(...) }):
//
//	var queueClass = torchbind.Register[*Queue]("MyCustomClass::TensorQueue").
//		Init(NewQueue).                  // torch::init<Tensor>()
//		Def("push", (*Queue).Push).      // push(__torch__.torch.classes.MyCustomClass.TensorQueue _0, Tensor _1) -> NoneType _0
//		Def("pop", (*Queue).Pop).
//		Flatten((*Queue).ObjFlatten).    // __obj_flatten__
//		Pickle((*Queue).GetState, QueueFromState)
//
// Def's options say what a method does to aliasing (Mutates, Stores,
// ReturnsAlias); Method.AnnotatedSchema prints them, e.g.
// push(__torch__.torch.classes.MyCustomClass.TensorQueue(a!) _0, Tensor(b -> *) _1) -> NoneType _0,
// while Method.Schema stays the text PyTorch prints. compile.Compile's
// CallArgs takes objects: its graphs are guarded on each object's
// flattened state (Object.StateLeaves).
//
// A class's qualified name, __torch__.torch.classes.ns.Name, may then appear
// in custom op schemas (library.Define); such an argument accepts the Go
// value or its *Object, and kernels read it with Args.Object. Objects are
// used from Go directly, or boxed (Object.Call by method name, as
// torch.ScriptObject). Fragment adds methods later
// (TORCH_LIBRARY_FRAGMENT).
//
// Tracing runs programs on fake objects (FakeObject, PyTorch's
// FakeScriptObject): RegisterFakeClass gives a class an unflatten
// constructor from its flattened, fakified state and fake methods, and
// ToFake makes the fake of a real object, leaving the real one untouched.
// In a functionalized trace (export, compile.Trace with Functionalize)
// method calls and custom ops taking an object are ordered effects: each is
// a with_effects node threading an effect token (package compile/hop), and
// package compile/export saves an object a program holds as its pickle
// state and rebuilds it on Load.
// Misuse panics with a *tensor.Error in PyTorch's words.
package torchbind
