package export

import (
	"fmt"
	"strings"

	"github.com/goaten/goaten/compile/fx"
)

// InputKind says what a graph input stands for (torch.export.graph_signature.InputKind).
type InputKind uint8

// The input kinds, numbered as PyTorch's enum.auto() numbers them.
const (
	UserInput InputKind = iota + 1
	Parameter
	Buffer
	ConstantTensor
	CustomObj
	Token
)

var inputKindNames = [...]string{"", "USER_INPUT", "PARAMETER", "BUFFER", "CONSTANT_TENSOR", "CUSTOM_OBJ", "TOKEN"}

// String returns PyTorch's name of the kind, e.g. "PARAMETER".
func (k InputKind) String() string {
	if int(k) < len(inputKindNames) && k > 0 {
		return inputKindNames[k]
	}
	return fmt.Sprintf("InputKind(%d)", uint8(k))
}

// OutputKind says what a graph output stands for (torch.export.graph_signature.OutputKind).
type OutputKind uint8

// The output kinds, numbered as PyTorch's enum.auto() numbers them.
const (
	UserOutput OutputKind = iota + 1
	LossOutput
	BufferMutation
	GradientToParameter
	GradientToUserInput
	UserInputMutation
	OutputToken
)

var outputKindNames = [...]string{"", "USER_OUTPUT", "LOSS_OUTPUT", "BUFFER_MUTATION",
	"GRADIENT_TO_PARAMETER", "GRADIENT_TO_USER_INPUT", "USER_INPUT_MUTATION", "TOKEN"}

// String returns PyTorch's name of the kind, e.g. "BUFFER_MUTATION".
func (k OutputKind) String() string {
	if int(k) < len(outputKindNames) && k > 0 {
		return outputKindNames[k]
	}
	return fmt.Sprintf("OutputKind(%d)", uint8(k))
}

// ArgumentSpec is what an input or output of the graph is: a
// TensorArgument, SymIntArgument, ConstantArgument, CustomObjArgument or
// TokenArgument.
type ArgumentSpec interface {
	// ArgName is the graph node's name ("" for a ConstantArgument).
	ArgName() string
}

// TensorArgument is a tensor value of the graph, by node name.
type TensorArgument struct{ Name string }

// SymIntArgument is a symbolic integer of the graph, by node name.
type SymIntArgument struct{ Name string }

// ConstantArgument is a constant input or output (an int, float, bool,
// string or nil).
type ConstantArgument struct {
	Name  string
	Value any
}

// CustomObjArgument is a custom (TorchBind) object input.
type CustomObjArgument struct {
	Name     string
	ClassFQN string
}

// TokenArgument is an effect token.
type TokenArgument struct{ Name string }

// ArgName implements ArgumentSpec.
func (a TensorArgument) ArgName() string { return a.Name }

// ArgName implements ArgumentSpec.
func (a SymIntArgument) ArgName() string { return a.Name }

// ArgName implements ArgumentSpec.
func (a ConstantArgument) ArgName() string { return a.Name }

// ArgName implements ArgumentSpec.
func (a CustomObjArgument) ArgName() string { return a.Name }

// ArgName implements ArgumentSpec.
func (a TokenArgument) ArgName() string { return a.Name }

// InputSpec describes one graph input. Target is the fully qualified name of
// the parameter, buffer, constant or custom object the input stands for ("" for
// user inputs and tokens); Persistent is meaningful for buffers only.
type InputSpec struct {
	Kind       InputKind
	Arg        ArgumentSpec
	Target     string
	Persistent bool
}

// String prints the spec as PyTorch does: "p_fc_weight: PARAMETER
// target='fc.weight'", "b_running_mean: BUFFER target='running_mean'
// persistent=True", "x: USER_INPUT".
func (s InputSpec) String() string {
	out := argName(s.Arg) + ": " + s.Kind.String()
	if s.Target != "" {
		out += " target='" + s.Target + "'"
	}
	if s.Kind == Buffer {
		out += " persistent=" + pyBool(s.Persistent)
	}
	return out
}

// OutputSpec describes one graph output. Target names the buffer a
// BUFFER_MUTATION writes, the user input a USER_INPUT_MUTATION writes, the
// parameter or input a gradient is for ("" otherwise).
type OutputSpec struct {
	Kind   OutputKind
	Arg    ArgumentSpec
	Target string
}

// String prints the spec as PyTorch does: "add: BUFFER_MUTATION
// target='running_mean'", "relu: USER_OUTPUT".
func (s OutputSpec) String() string {
	out := argName(s.Arg) + ": " + s.Kind.String()
	if s.Target != "" {
		out += " target='" + s.Target + "'"
	}
	return out
}

func argName(a ArgumentSpec) string {
	if a == nil {
		return "None"
	}
	return a.ArgName()
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// ExportGraphSignature is the calling convention of an exported graph
// (torch.export.ExportGraphSignature): what each placeholder and each
// element of the returned tuple stands for. Inputs are ordered
//
//	[tokens, parameters, buffers, constant tensors, custom objects, user inputs]
//
// and outputs
//
//	[tokens, buffer mutations, user input mutations, user outputs].
type ExportGraphSignature struct {
	InputSpecs  []InputSpec
	OutputSpecs []OutputSpec
}

// String prints the signature as PyTorch's __str__ does:
//
//	# inputs
//	p_fc_weight: PARAMETER target='fc.weight'
//	x: USER_INPUT
//
//	# outputs
//	relu: USER_OUTPUT
//
// with a newline before and after.
func (s *ExportGraphSignature) String() string {
	in := make([]string, len(s.InputSpecs))
	for i, sp := range s.InputSpecs {
		in[i] = sp.String()
	}
	out := make([]string, len(s.OutputSpecs))
	for i, sp := range s.OutputSpecs {
		out[i] = sp.String()
	}
	return "\n# inputs\n" + strings.Join(in, "\n") + "\n\n# outputs\n" + strings.Join(out, "\n") + "\n"
}

func (s *ExportGraphSignature) inputTargets(k InputKind, keep func(InputSpec) bool) []string {
	var out []string
	for _, sp := range s.InputSpecs {
		if sp.Kind == k && sp.Target != "" && (keep == nil || keep(sp)) {
			out = append(out, sp.Target)
		}
	}
	return out
}

// Parameters lists the fully qualified names of the lifted parameters, in
// input order.
func (s *ExportGraphSignature) Parameters() []string { return s.inputTargets(Parameter, nil) }

// Buffers lists the lifted buffers, persistent or not.
func (s *ExportGraphSignature) Buffers() []string { return s.inputTargets(Buffer, nil) }

// NonPersistentBuffers lists the buffers left out of the state dict.
func (s *ExportGraphSignature) NonPersistentBuffers() []string {
	return s.inputTargets(Buffer, func(sp InputSpec) bool { return !sp.Persistent })
}

// LiftedTensorConstants lists the lifted constant tensors.
func (s *ExportGraphSignature) LiftedTensorConstants() []string {
	return s.inputTargets(ConstantTensor, nil)
}

// LiftedCustomObjs lists the lifted custom objects.
func (s *ExportGraphSignature) LiftedCustomObjs() []string { return s.inputTargets(CustomObj, nil) }

// UserInputs lists the placeholder names of the user inputs, in order.
func (s *ExportGraphSignature) UserInputs() []string {
	var out []string
	for _, sp := range s.InputSpecs {
		if sp.Kind == UserInput {
			out = append(out, argName(sp.Arg))
		}
	}
	return out
}

// UserOutputs lists the node names of the user outputs (and of the loss
// output), in order; a constant output is listed by its Python repr
// ("None").
func (s *ExportGraphSignature) UserOutputs() []string {
	var out []string
	for _, sp := range s.OutputSpecs {
		if sp.Kind != UserOutput && sp.Kind != LossOutput {
			continue
		}
		if c, ok := sp.Arg.(ConstantArgument); ok {
			out = append(out, fx.Repr(c.Value))
			continue
		}
		out = append(out, argName(sp.Arg))
	}
	return out
}

func (s *ExportGraphSignature) inputMap(k InputKind) map[string]string {
	out := map[string]string{}
	for _, sp := range s.InputSpecs {
		if sp.Kind == k && sp.Target != "" && sp.Arg != nil {
			out[sp.Arg.ArgName()] = sp.Target
		}
	}
	return out
}

func (s *ExportGraphSignature) outputMap(k OutputKind) map[string]string {
	out := map[string]string{}
	for _, sp := range s.OutputSpecs {
		if sp.Kind == k && sp.Target != "" && sp.Arg != nil {
			out[sp.Arg.ArgName()] = sp.Target
		}
	}
	return out
}

// InputsToParameters maps placeholder names to the parameters they stand for.
func (s *ExportGraphSignature) InputsToParameters() map[string]string { return s.inputMap(Parameter) }

// InputsToBuffers maps placeholder names to the buffers they stand for.
func (s *ExportGraphSignature) InputsToBuffers() map[string]string { return s.inputMap(Buffer) }

// InputsToLiftedTensorConstants maps placeholder names to lifted constants.
func (s *ExportGraphSignature) InputsToLiftedTensorConstants() map[string]string {
	return s.inputMap(ConstantTensor)
}

// InputsToLiftedCustomObjs maps placeholder names to lifted custom objects.
func (s *ExportGraphSignature) InputsToLiftedCustomObjs() map[string]string {
	return s.inputMap(CustomObj)
}

// BuffersToMutate maps output node names to the buffers they are the new
// values of.
func (s *ExportGraphSignature) BuffersToMutate() map[string]string {
	return s.outputMap(BufferMutation)
}

// UserInputsToMutate maps output node names to the user inputs (by
// placeholder name) they are the new values of.
func (s *ExportGraphSignature) UserInputsToMutate() map[string]string {
	return s.outputMap(UserInputMutation)
}

// InputTokens lists the effect-token inputs.
func (s *ExportGraphSignature) InputTokens() []string {
	var out []string
	for _, sp := range s.InputSpecs {
		if sp.Kind == Token {
			out = append(out, argName(sp.Arg))
		}
	}
	return out
}

// OutputTokens lists the effect-token outputs.
func (s *ExportGraphSignature) OutputTokens() []string {
	var out []string
	for _, sp := range s.OutputSpecs {
		if sp.Kind == OutputToken {
			out = append(out, argName(sp.Arg))
		}
	}
	return out
}

// ExportBackwardSignature is the gradient part of a joint graph's signature.
type ExportBackwardSignature struct {
	GradientsToParameters map[string]string
	GradientsToUserInputs map[string]string
	LossOutput            string
}

// BackwardSignature returns the gradient outputs of a joint graph, or nil
// when the graph has no LOSS_OUTPUT.
func (s *ExportGraphSignature) BackwardSignature() *ExportBackwardSignature {
	var loss string
	found := false
	for _, sp := range s.OutputSpecs {
		if sp.Kind == LossOutput {
			loss, found = argName(sp.Arg), true
		}
	}
	if !found {
		return nil
	}
	return &ExportBackwardSignature{
		GradientsToParameters: s.outputMap(GradientToParameter),
		GradientsToUserInputs: s.outputMap(GradientToUserInput),
		LossOutput:            loss,
	}
}

// ReplaceAllUses renames the graph value old to new wherever an input or
// output spec names it.
func (s *ExportGraphSignature) ReplaceAllUses(old, new string) {
	rename := func(a ArgumentSpec) ArgumentSpec {
		switch v := a.(type) {
		case TensorArgument:
			if v.Name == old {
				v.Name = new
			}
			return v
		case SymIntArgument:
			if v.Name == old {
				v.Name = new
			}
			return v
		case CustomObjArgument:
			if v.Name == old {
				v.Name = new
			}
			return v
		case TokenArgument:
			if v.Name == old {
				v.Name = new
			}
			return v
		}
		return a
	}
	for i := range s.InputSpecs {
		s.InputSpecs[i].Arg = rename(s.InputSpecs[i].Arg)
	}
	for i := range s.OutputSpecs {
		s.OutputSpecs[i].Arg = rename(s.OutputSpecs[i].Arg)
	}
}

// clone returns a deep copy of the signature.
func (s *ExportGraphSignature) clone() *ExportGraphSignature {
	return &ExportGraphSignature{
		InputSpecs:  append([]InputSpec(nil), s.InputSpecs...),
		OutputSpecs: append([]OutputSpec(nil), s.OutputSpecs...),
	}
}
