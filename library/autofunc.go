package library

import "github.com/goaten/goaten/tensor"

// CanAutoFunctionalize is PyTorch's can_auto_functionalize(op): whether a
// functionalized graph can hold a call of op as an auto_functionalized
// node (its written arguments cloned, the op run on the clones, the
// clones' new values copied back). op is an overload — an *Op or a
// *tensor.Op; anything else (a name, which stands for the overload packet
// torch.ops.ns.name) is not. The rule reads the schema only:
//
//   - not a built-in op (namespaces aten, prim, prims);
//   - it mutates an argument;
//   - every written argument is a Tensor, Tensor?, or a list of them
//     (Tensor[], Tensor?[], Tensor[]?);
//   - it returns nothing, or None, or plain Tensors that alias nothing (no
//     Tensor(a), no Tensor?, no Tensor[]);
//   - it has no Functionalize kernel of its own.
func CanAutoFunctionalize(op any) bool {
	var o *tensor.Op
	switch x := op.(type) {
	case *Op:
		if x == nil {
			return false
		}
		o = x.def.op
	case *tensor.Op:
		o = x
	}
	if o == nil || isBuiltin(o.Schema.Namespace) {
		return false
	}
	s := o.Schema
	mutable := false
	for _, a := range s.Args {
		t := a.Type
		if !isWritten(t) {
			continue
		}
		mutable = true
		if !isTensorLike(t) && !isTensorListLike(t) {
			return false
		}
	}
	if !mutable {
		return false
	}
	if len(s.Returns) == 1 && s.Returns[0].Type.Kind == tensor.TOther && s.Returns[0].Type.Name == "None" {
		return true
	}
	for _, r := range s.Returns {
		if r.Type.Kind != tensor.TTensor || r.Type.Alias != nil {
			return false
		}
	}
	return !o.HasKernel(tensor.KeyFunctionalize)
}

// isWritten reports whether an argument's annotation writes it: Tensor(a!),
// Tensor(a!)?, Tensor(a!)[].
func isWritten(t *tensor.Type) bool {
	for {
		if t.Alias != nil && t.Alias.Write {
			return true
		}
		if t.Kind != tensor.TOptional && t.Kind != tensor.TList {
			return false
		}
		t = t.Elem
	}
}

// isTensorLike: Tensor or Tensor?.
func isTensorLike(t *tensor.Type) bool {
	if t.Kind == tensor.TOptional {
		t = t.Elem
	}
	return t.Kind == tensor.TTensor
}

// isTensorListLike: Tensor[], Tensor?[], Tensor[]?, Tensor?[]?.
func isTensorListLike(t *tensor.Type) bool {
	if t.Kind == tensor.TOptional {
		t = t.Elem
	}
	return t.Kind == tensor.TList && isTensorLike(t.Elem)
}
