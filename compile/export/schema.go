package export

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/goaten/goaten/tensor"
)

// The JSON form of a program follows PyTorch's export serialization schema
// (torch/_export/serde/schema.py, schema version 8.6) where it fits: unions
// are objects with exactly one field set ({"as_tensor": {"name": "x"}}),
// enums are integers, a graph lists its inputs, nodes (each a call with its
// target, named inputs and outputs) and outputs, and the metadata of every
// tensor value by name. Differences: non-finite floats are the strings
// "Infinity", "-Infinity" and "NaN" (Python writes bare tokens, which are
// not JSON); a node whose name its outputs do not carry (an op returning a
// tuple or nothing) keeps it in metadata["goaten_name"]; the declared Dim
// names are in the graph module's metadata["goaten_dim_names"]; stack
// traces are not saved; a higher-order op's node writes its results as one
// as_tensors output (the getitem values) and keeps its name in
// metadata["goaten_name"]; is_single_tensor_return is read on sub-programs
// only; a plain call_torchbind node (target
// "torch.ops.higher_order.call_torchbind") is written as a higher-order
// op's, its result an as_tensor output or none; with_effects in seed 001's
// spelling keeps it as its target ("torch._higher_order_ops.effects.with_effects").

// Schema version written and read (major must match).
const (
	schemaMajor = 8
	schemaMinor = 6
)

type jProgram struct {
	GraphModule      jGraphModule      `json:"graph_module"`
	OpsetVersion     map[string]int    `json:"opset_version"`
	RangeConstraints map[string]jRange `json:"range_constraints"`
	SchemaVersion    jSchemaVersion    `json:"schema_version"`
	Verifiers        []string          `json:"verifiers"`
	TorchVersion     string            `json:"torch_version"`
}

type jSchemaVersion struct {
	Major int `json:"major"`
	Minor int `json:"minor"`
}

type jRange struct {
	MinVal *int64 `json:"min_val"`
	MaxVal *int64 `json:"max_val"` // null: unbounded
}

type jGraphModule struct {
	Graph           jGraph            `json:"graph"`
	Signature       jSignature        `json:"signature"`
	ModuleCallGraph []json.RawMessage `json:"module_call_graph"`
	Metadata        map[string]string `json:"metadata"`
}

type jGraph struct {
	Inputs               []jArg                     `json:"inputs"`
	Outputs              []jArg                     `json:"outputs"`
	Nodes                []jNode                    `json:"nodes"`
	TensorValues         map[string]jTensorMeta     `json:"tensor_values"`
	SymIntValues         map[string]json.RawMessage `json:"sym_int_values"`
	SymBoolValues        map[string]json.RawMessage `json:"sym_bool_values"`
	IsSingleTensorReturn bool                       `json:"is_single_tensor_return"`
	CustomObjValues      map[string]json.RawMessage `json:"custom_obj_values"`
	SymFloatValues       map[string]json.RawMessage `json:"sym_float_values"`
}

type jNode struct {
	Target                  string            `json:"target"`
	Inputs                  []jNamedArg       `json:"inputs"`
	Outputs                 []jArg            `json:"outputs"`
	Metadata                map[string]string `json:"metadata"`
	IsHopSingleTensorReturn *bool             `json:"is_hop_single_tensor_return"`
}

// Argument kinds of a NamedArgument.
const (
	argPositional = 1
	argKeyword    = 2
)

type jNamedArg struct {
	Name string `json:"name"`
	Arg  jArg   `json:"arg"`
	Kind *int   `json:"kind"`
}

type jName struct {
	Name string `json:"name"`
}

type jDevice struct {
	Type  string `json:"type"`
	Index *int   `json:"index"`
}

// jArg is the Argument union. Its other variants (symbolic floats and
// bools) are refused when read; as_graph and as_operator (with_effects'
// op) are read for higher-order ops only; as_custom_obj names a custom
// (TorchBind) object input.
type jArg struct {
	AsNone            *bool          `json:"as_none,omitempty"`
	AsTensor          *jName         `json:"as_tensor,omitempty"`
	AsTensors         *[]jName       `json:"as_tensors,omitempty"`
	AsInt             *int64         `json:"as_int,omitempty"`
	AsInts            *[]int64       `json:"as_ints,omitempty"`
	AsFloat           *jFloat        `json:"as_float,omitempty"`
	AsFloats          *[]jFloat      `json:"as_floats,omitempty"`
	AsString          *string        `json:"as_string,omitempty"`
	AsStrings         *[]string      `json:"as_strings,omitempty"`
	AsScalarType      *int           `json:"as_scalar_type,omitempty"`
	AsMemoryFormat    *int           `json:"as_memory_format,omitempty"`
	AsLayout          *int           `json:"as_layout,omitempty"`
	AsDevice          *jDevice       `json:"as_device,omitempty"`
	AsBool            *bool          `json:"as_bool,omitempty"`
	AsBools           *[]bool        `json:"as_bools,omitempty"`
	AsOptionalTensors *[]jOptTensor  `json:"as_optional_tensors,omitempty"`
	AsSymInt          *jSymIntArg    `json:"as_sym_int,omitempty"`
	AsSymInts         *[]jSymIntArg  `json:"as_sym_ints,omitempty"`
	AsGraph           *jGraphArg     `json:"as_graph,omitempty"`
	AsCustomObj       *jCustomObjArg `json:"as_custom_obj,omitempty"`
	AsOperator        *string        `json:"as_operator,omitempty"`
}

// jSymIntArg is the SymIntArgument union: a symbolic int value by name, or
// a concrete int.
type jSymIntArg struct {
	AsName *string `json:"as_name,omitempty"`
	AsInt  *int64  `json:"as_int,omitempty"`
}

// jGraphArg is a sub-program argument of a higher-order op: the name of the
// attribute that holds it and its graph, with its own inputs, nodes,
// outputs and tensor values (PyTorch's GraphArgument).
type jGraphArg struct {
	Name  string  `json:"name"`
	Graph *jGraph `json:"graph"`
}

type jOptTensor struct {
	AsTensor *jName `json:"as_tensor,omitempty"`
	AsNone   *bool  `json:"as_none,omitempty"`
}

// setFields counts the non-nil pointer fields of a union struct and returns
// the JSON name of the last one.
func setFields(u any) (int, string) {
	v := reflect.ValueOf(u).Elem()
	n, name := 0, ""
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
			n++
			name = v.Type().Field(i).Tag.Get("json")
		}
	}
	return n, name
}

// jFloat is a float that writes non-finite values as strings.
type jFloat float64

func (f jFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	switch {
	case math.IsNaN(v):
		return []byte(`"NaN"`), nil
	case math.IsInf(v, 1):
		return []byte(`"Infinity"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-Infinity"`), nil
	}
	return json.Marshal(v)
}

func (f *jFloat) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"NaN"`:
		*f = jFloat(math.NaN())
		return nil
	case `"Infinity"`:
		*f = jFloat(math.Inf(1))
		return nil
	case `"-Infinity"`:
		*f = jFloat(math.Inf(-1))
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("a float must be a number or \"Infinity\", \"-Infinity\", \"NaN\", got %.40s", b)
	}
	*f = jFloat(v)
	return nil
}

type jSymExprHint struct {
	AsInt *int64 `json:"as_int,omitempty"`
}

type jSymExpr struct {
	ExprStr string        `json:"expr_str"`
	Hint    *jSymExprHint `json:"hint"`
}

// jSymInt is the SymInt union: a concrete size or a symbol.
type jSymInt struct {
	AsExpr *jSymExpr `json:"as_expr,omitempty"`
	AsInt  *int64    `json:"as_int,omitempty"`
}

type jTensorMeta struct {
	DType         int       `json:"dtype"`
	Sizes         []jSymInt `json:"sizes"`
	RequiresGrad  bool      `json:"requires_grad"`
	Device        jDevice   `json:"device"`
	Strides       []jSymInt `json:"strides"`
	StorageOffset jSymInt   `json:"storage_offset"`
	Layout        int       `json:"layout"`
}

type jSignature struct {
	InputSpecs  []jInputSpec  `json:"input_specs"`
	OutputSpecs []jOutputSpec `json:"output_specs"`
}

type jUserInputSpec struct {
	Arg jArg `json:"arg"`
}

type jParameterSpec struct {
	Arg           jName  `json:"arg"`
	ParameterName string `json:"parameter_name"`
}

type jBufferSpec struct {
	Arg        jName  `json:"arg"`
	BufferName string `json:"buffer_name"`
	Persistent bool   `json:"persistent"`
}

type jTensorConstantSpec struct {
	Arg                jName  `json:"arg"`
	TensorConstantName string `json:"tensor_constant_name"`
}

type jCustomObjArg struct {
	Name     string `json:"name"`
	ClassFQN string `json:"class_fqn"`
}

type jCustomObjSpec struct {
	Arg           jCustomObjArg `json:"arg"`
	CustomObjName string        `json:"custom_obj_name"`
}

type jTokenSpec struct {
	Arg jName `json:"arg"`
}

type jInputSpec struct {
	UserInput      *jUserInputSpec      `json:"user_input,omitempty"`
	Parameter      *jParameterSpec      `json:"parameter,omitempty"`
	Buffer         *jBufferSpec         `json:"buffer,omitempty"`
	TensorConstant *jTensorConstantSpec `json:"tensor_constant,omitempty"`
	CustomObj      *jCustomObjSpec      `json:"custom_obj,omitempty"`
	Token          *jTokenSpec          `json:"token,omitempty"`
	ConstantInput  *json.RawMessage     `json:"constant_input,omitempty"`
}

type jUserOutputSpec struct {
	Arg jArg `json:"arg"`
}

type jArgSpec struct {
	Arg jName `json:"arg"`
}

type jBufferMutationSpec struct {
	Arg        jName  `json:"arg"`
	BufferName string `json:"buffer_name"`
}

type jGradParamSpec struct {
	Arg           jName  `json:"arg"`
	ParameterName string `json:"parameter_name"`
}

type jUserInputNameSpec struct {
	Arg           jName  `json:"arg"`
	UserInputName string `json:"user_input_name"`
}

type jOutputSpec struct {
	UserOutput          *jUserOutputSpec     `json:"user_output,omitempty"`
	LossOutput          *jArgSpec            `json:"loss_output,omitempty"`
	BufferMutation      *jBufferMutationSpec `json:"buffer_mutation,omitempty"`
	GradientToParameter *jGradParamSpec      `json:"gradient_to_parameter,omitempty"`
	GradientToUserInput *jUserInputNameSpec  `json:"gradient_to_user_input,omitempty"`
	UserInputMutation   *jUserInputNameSpec  `json:"user_input_mutation,omitempty"`
	Token               *jArgSpec            `json:"token,omitempty"`
}

// scalarTypes maps dtypes to the schema's ScalarType numbers.
var scalarTypes = map[tensor.DType]int{
	tensor.Uint8: 1, tensor.Int8: 2, tensor.Int16: 3, tensor.Int32: 4, tensor.Int64: 5,
	tensor.Float16: 6, tensor.Float32: 7, tensor.Float64: 8, tensor.Bool: 12, tensor.BFloat16: 13,
}

func dtypeOf(n int) (tensor.DType, bool) {
	for d, k := range scalarTypes {
		if k == n {
			return d, true
		}
	}
	return tensor.Invalid, false
}

// memoryFormats maps memory formats to the schema's MemoryFormat numbers.
var memoryFormats = map[tensor.MemoryFormat]int{
	tensor.ContiguousFormat: 1, tensor.ChannelsLast: 2, tensor.ChannelsLast3d: 3, tensor.PreserveFormat: 4,
}

// layoutStrided is the schema's Layout number of torch.strided.
const layoutStrided = 7

func i64(v int) *int64 {
	x := int64(v)
	return &x
}

func symInt(v int) jSymInt { return jSymInt{AsInt: i64(v)} }

func boolPtr(b bool) *bool { return &b }

// intOf converts a JSON integer to int, refusing what does not fit.
func intOf(v int64) (int, error) {
	if v < math.MinInt || v > math.MaxInt {
		return 0, fmt.Errorf("integer %d does not fit in an int", v)
	}
	return int(v), nil
}

func quote(s string) string { return strconv.Quote(s) }
