package export

import (
	"fmt"
	"reflect"
	"strconv"

	"github.com/goaten/goaten/autograd"
	"github.com/goaten/goaten/compile"
	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/nn"
	"github.com/goaten/goaten/tensor"
)

// JointOptions configure ExportJoint: Export's options (dynamic shapes
// excepted) and which output of Forward is the loss.
type JointOptions struct {
	Options
	// OutputLossIndex is the index, among Forward's flattened results, of
	// the scalar loss (aot_export_module's output_loss_index).
	OutputLossIndex int
}

// ExportJoint exports m's Forward and its backward as one joint graph, as
// torch._functorch.aot_autograd.aot_export_module(mod, args,
// trace_joint=True, output_loss_index=i) traces it and
// torch.export.experimental._export_forward_backward labels it: the inputs
// are those of Export (parameters, buffers, constants, user inputs); the
// outputs are
//
//	[buffer mutations..., user outputs (the loss a LOSS_OUTPUT)...,
//	 gradients of the parameters (GRADIENT_TO_PARAMETER, target the
//	 parameter's name)..., gradients of the user inputs that require grad
//	 (GRADIENT_TO_USER_INPUT, target the input's placeholder name)...]
//
// The backward is seeded with ones_like(loss), so the graph takes no
// tangents. As PyTorch requires, the loss must require grad and have one
// element, the other outputs must not require grad (detach them), and
// every parameter that requires grad must receive a gradient. Run the
// program with RunJoint (or Module().ForwardJoint); its
// GraphSignature.BackwardSignature() names the gradient outputs.
func ExportJoint(m nn.Module, args []*tensor.Tensor, o JointOptions) (*ExportedProgram, error) {
	mod, fwd, err := moduleForward(m)
	if err != nil {
		return nil, err
	}
	if err := checkForward(fwd.Type(), len(args)); err != nil {
		return nil, fmt.Errorf("export: %T.Forward: %w", m, err)
	}
	if err := nonNil(args); err != nil {
		return nil, err
	}
	for _, d := range o.DynamicShapes {
		if len(d) > 0 {
			return nil, fmt.Errorf("export: ExportJoint exports static shapes only; dynamic shapes are not supported")
		}
	}
	names, err := userInputNames(o.InputNames, len(args))
	if err != nil {
		return nil, err
	}
	state := collectState(mod)
	fn, inputs, topts, diff := jointFn(fwd, state, args, o.OutputLossIndex)
	raw, err := compile.Trace(fn, inputs, topts)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	dims, err := resolveDims(args, nil, names)
	if err != nil {
		return nil, err
	}
	ep, err := lift(raw, mod, state, names, dims, o.Options)
	if err != nil {
		return nil, err
	}
	// Label the outputs lift left as user outputs: Forward's results,
	// then one gradient per differentiable input.
	nGrad := len(*diff)
	specs := ep.GraphSignature.OutputSpecs
	var user []int
	for i, s := range specs {
		if s.Kind == UserOutput {
			user = append(user, i)
		}
	}
	nOut := len(user) - nGrad
	if nOut <= o.OutputLossIndex {
		return nil, fmt.Errorf("export: the joint graph returns %d outputs for %d results and %d gradients", len(user), o.OutputLossIndex+1, nGrad)
	}
	specs[user[o.OutputLossIndex]].Kind = LossOutput
	for k, i := range user[nOut:] {
		d := (*diff)[k]
		if d < len(state) {
			specs[i].Kind, specs[i].Target = GradientToParameter, state[d].fqn
		} else {
			specs[i].Kind, specs[i].Target = GradientToUserInput, names[d-len(state)]
		}
	}
	return ep, nil
}

// jointFn is Forward followed by the gradients of its loss with respect to
// the parameters and user inputs that require grad, as a function of the
// state and the user inputs. diff is set, when fn has run, to the index in
// fn's inputs of each gradient fn returns.
func jointFn(fwd reflect.Value, state []stateEntry, args []*tensor.Tensor, lossIdx int) (func(...*tensor.Tensor) []*tensor.Tensor, []*tensor.Tensor, compile.TraceOptions, *[]int) {
	ns := len(state)
	inputs := make([]*tensor.Tensor, 0, ns+len(args))
	names := make([]string, 0, ns+len(args))
	for i, s := range state {
		inputs = append(inputs, s.t)
		names = append(names, "state"+strconv.Itoa(i))
	}
	for i, a := range args {
		inputs = append(inputs, a)
		names = append(names, "arg"+strconv.Itoa(i))
	}
	diffIdx := new([]int)
	fn := func(in ...*tensor.Tensor) []*tensor.Tensor {
		// The backward runs while the state tensors still hold the traced
		// stand-ins: the tensors autograd saved are the module's own.
		restore := swapIn(state, in[:ns])
		defer restore()
		vals := make([]reflect.Value, len(args))
		for i, a := range args {
			// The traced stand-in of an input that requires grad is a leaf
			// that requires grad, as the input is.
			if a.RequiresGrad() && !in[ns+i].RequiresGrad() {
				autograd.SetRequiresGrad(in[ns+i], true)
			}
			vals[i] = reflect.ValueOf(in[ns+i])
		}
		var flat []*tensor.Tensor
		for _, r := range fwd.Call(vals) {
			switch x := r.Interface().(type) {
			case *tensor.Tensor:
				flat = append(flat, x)
			case []*tensor.Tensor:
				flat = append(flat, x...)
			}
		}
		for i, x := range flat {
			if x != nil && x.RequiresGrad() && i != lossIdx {
				tensor.Panicf(`Found an output of the forward that requires gradients, that was not the scalar loss.
We require all outputs to the forward that are not the scalar loss to not require gradient,
because we will only compute a backward graph against the scalar loss.
You can fix this by calling .detach() on each of your forward outputs that is not the loss.
You specified that output index %d is the loss, but we found that
the output at index %d requires gradients.`, lossIdx, i)
			}
		}
		if lossIdx < 0 || lossIdx >= len(flat) {
			tensor.Panicf("tuple index out of range: output_loss_index %d, and Forward returns %d outputs", lossIdx, len(flat))
		}
		loss := flat[lossIdx]
		if loss == nil || !loss.RequiresGrad() {
			tensor.Panicf("The output at index %d was marked as the loss, but it does not require gradients", lossIdx)
		}
		if loss.Numel() != 1 {
			tensor.Panicf("We require the output marked as the loss (at index %d) to be a scalar, but it has shape torch.Size(%s)", lossIdx, tensor.ShapeString(loss.Sizes()))
		}
		var wrt []*tensor.Tensor
		*diffIdx = (*diffIdx)[:0]
		for i, s := range state {
			if s.kind == Parameter && s.t.RequiresGrad() {
				wrt = append(wrt, s.t)
				*diffIdx = append(*diffIdx, i)
			}
		}
		for i, a := range args {
			if a.RequiresGrad() {
				wrt = append(wrt, in[ns+i])
				*diffIdx = append(*diffIdx, ns+i)
			}
		}
		var grads []*tensor.Tensor
		if len(wrt) > 0 {
			grads = autograd.Grad([]*tensor.Tensor{loss}, wrt, nil, autograd.Options{AllowUnused: true})
		}
		for k, g := range grads {
			if g == nil {
				what := "user input " + strconv.Itoa((*diffIdx)[k]-ns)
				if (*diffIdx)[k] < ns {
					what = "parameter " + state[(*diffIdx)[k]].fqn
				}
				tensor.Panicf("Found a parameter that did not receive a gradient.\n"+
					"\"This is most likely a bug, but if this needs to be supported please comment on this Github issue:\n"+
					"https://github.com/pytorch/pytorch/issues/101192\n(%s)", what)
			}
		}
		// A state tensor returned as it is stands for its placeholder.
		for i, t := range flat {
			for j, s := range state {
				if t != nil && t == s.t {
					flat[i] = in[j]
				}
			}
		}
		return append(flat, grads...)
	}
	return fn, inputs, compile.TraceOptions{Mode: compile.Fake, Functionalize: true, ArgNames: names}, diffIdx
}

// JointResult is what a run of a joint program returns.
type JointResult struct {
	// Loss is the LOSS_OUTPUT; Outputs every user output, the loss in its
	// place.
	Loss    *tensor.Tensor
	Outputs []*tensor.Tensor
	// ParamGrads maps parameter names, InputGrads user input placeholder
	// names, to their gradients.
	ParamGrads map[string]*tensor.Tensor
	InputGrads map[string]*tensor.Tensor
}

// RunJoint runs a joint program (ExportJoint's, or one loaded) on the
// user inputs args: see Module.ForwardJoint.
func (ep *ExportedProgram) RunJoint(args ...*tensor.Tensor) (*JointResult, error) {
	return ep.Module().ForwardJoint(args...)
}

// ForwardJoint runs a joint program as Forward runs a program, applying
// its buffer mutations, and returns the loss, the user outputs and the
// gradients by the names the signature's gradient outputs target.
func (m *Module) ForwardJoint(args ...*tensor.Tensor) (*JointResult, error) {
	if m.ep.GraphSignature.BackwardSignature() == nil {
		return nil, fmt.Errorf("export: the program has no LOSS_OUTPUT; it is not a joint graph")
	}
	in := make([]any, len(args))
	for i, a := range args {
		in[i] = a
	}
	var outs fx.Tuple
	var err error
	// The graph computes the gradients itself: its run is not recorded.
	autograd.NoGrad(func() { outs, err = m.run(in) })
	if err != nil {
		return nil, err
	}
	r := &JointResult{ParamGrads: map[string]*tensor.Tensor{}, InputGrads: map[string]*tensor.Tensor{}}
	for i, s := range m.ep.GraphSignature.OutputSpecs {
		v, _ := outs[i].(*tensor.Tensor)
		switch s.Kind {
		case LossOutput:
			r.Loss = v
			r.Outputs = append(r.Outputs, v)
		case UserOutput:
			r.Outputs = append(r.Outputs, v)
		case GradientToParameter:
			r.ParamGrads[s.Target] = v
		case GradientToUserInput:
			r.InputGrads[s.Target] = v
		}
	}
	return r, nil
}
