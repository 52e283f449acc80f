package tensor

// Thin accessors for the autograd layer. The engine lives in package
// autograd, which sits above this one; it installs these hooks from its
// init, so the methods work in any program that links it in (importing
// the root goaten package does).

// AutogradHooks are the functions behind the autograd methods of Tensor.
type AutogradHooks struct {
	RequiresGrad    func(t *Tensor) bool
	SetRequiresGrad func(t *Tensor, requires bool)
	Grad            func(t *Tensor) *Tensor
	IsLeaf          func(t *Tensor) bool
	Backward        func(t, grad *Tensor)
	// GradFnName names the node that produced t ("MulBackward0"), "" for a
	// leaf: what printing shows as grad_fn=<...>.
	GradFnName func(t *Tensor) string
}

var autogradHooks *AutogradHooks

// SetAutogradHooks installs the autograd layer (called by package autograd).
func SetAutogradHooks(h AutogradHooks) { autogradHooks = &h }

func needAutograd() *AutogradHooks {
	if autogradHooks == nil {
		Panicf("autograd is not linked in: import github.com/goaten/goaten/autograd (or the root goaten package)")
	}
	return autogradHooks
}

// RequiresGrad reports whether gradients are recorded for t: it is a leaf
// marked with SetRequiresGrad, or the result of a recorded op.
func (t *Tensor) RequiresGrad() bool {
	if autogradHooks == nil || t.AutogradMeta == nil {
		return false
	}
	return autogradHooks.RequiresGrad(t)
}

// SetRequiresGrad marks a leaf tensor as needing gradients (PyTorch's
// requires_grad_) and returns t.
func (t *Tensor) SetRequiresGrad(requires bool) *Tensor {
	needAutograd().SetRequiresGrad(t, requires)
	return t
}

// Grad is the gradient accumulated into t by Backward, or nil.
func (t *Tensor) Grad() *Tensor {
	if autogradHooks == nil || t.AutogradMeta == nil {
		return nil
	}
	return autogradHooks.Grad(t)
}

// IsLeaf reports whether t was not produced by a recorded op.
func (t *Tensor) IsLeaf() bool {
	if autogradHooks == nil || t.AutogradMeta == nil {
		return true
	}
	return autogradHooks.IsLeaf(t)
}

// Backward computes the gradient of the scalar t with respect to the leaves
// of its graph and accumulates it into their Grad.
func (t *Tensor) Backward() { needAutograd().Backward(t, nil) }

// BackwardWith is Backward for a non-scalar t: grad is dL/dt.
func (t *Tensor) BackwardWith(grad *Tensor) { needAutograd().Backward(t, grad) }
