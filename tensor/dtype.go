package tensor

import "fmt"

// DType is an element type. The order follows PyTorch's ScalarType numbering
// closely enough that promotion can use a small table.
type DType uint8

// The supported dtypes.
const (
	Invalid DType = iota
	Bool
	Uint8
	Int8
	Int16
	Int32
	Int64
	Float16
	BFloat16
	Float32
	Float64
	numDTypes
)

var dtypeNames = [...]string{"invalid", "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"}
var dtypeSizes = [...]int{0, 1, 1, 1, 2, 4, 8, 2, 2, 4, 8}

// AllDTypes lists every supported dtype.
var AllDTypes = []DType{Bool, Uint8, Int8, Int16, Int32, Int64, Float16, BFloat16, Float32, Float64}

// String returns PyTorch's name without the "torch." prefix, e.g. "float32".
func (d DType) String() string {
	if int(d) < len(dtypeNames) {
		return dtypeNames[d]
	}
	return fmt.Sprintf("DType(%d)", uint8(d))
}

// ItemSize is the size of one element in bytes.
func (d DType) ItemSize() int { return dtypeSizes[d] }

// IsFloat reports whether d is a floating-point dtype.
func (d DType) IsFloat() bool { return d >= Float16 && d <= Float64 }

// IsIntegral reports whether d is an integer dtype; includeBool also counts bool.
func (d DType) IsIntegral(includeBool bool) bool {
	return (d >= Uint8 && d <= Int64) || (includeBool && d == Bool)
}

// IsSigned reports whether values of d can be negative.
func (d DType) IsSigned() bool { return d != Bool && d != Uint8 }

// IsReduced reports whether d is a 16-bit float computed through float32.
func (d DType) IsReduced() bool { return d == Float16 || d == BFloat16 }

// ParseDType turns a name such as "float32", "float", "long" or "torch.int64" into a DType.
func ParseDType(s string) (DType, bool) {
	if len(s) > 6 && s[:6] == "torch." {
		s = s[6:]
	}
	switch s {
	case "float", "float32":
		return Float32, true
	case "double", "float64":
		return Float64, true
	case "half", "float16":
		return Float16, true
	case "bfloat16":
		return BFloat16, true
	case "long", "int64":
		return Int64, true
	case "int", "int32":
		return Int32, true
	case "short", "int16":
		return Int16, true
	case "int8":
		return Int8, true
	case "uint8":
		return Uint8, true
	case "bool":
		return Bool, true
	}
	return Invalid, false
}

// DefaultFloat is the default floating dtype (torch.get_default_dtype()).
const DefaultFloat = Float32

// PromoteTypes returns the smallest dtype both a and b convert to without
// losing category, as torch.promote_types does.
func PromoteTypes(a, b DType) DType {
	if a == b {
		return a
	}
	if a == Invalid {
		return b
	}
	if b == Invalid {
		return a
	}
	if a == Bool {
		return b
	}
	if b == Bool {
		return a
	}
	af, bf := a.IsFloat(), b.IsFloat()
	switch {
	case af && bf:
		if (a == Float16 && b == BFloat16) || (a == BFloat16 && b == Float16) {
			return Float32
		}
		return max(a, b)
	case af:
		return a
	case bf:
		return b
	}
	// Both integral.
	if a == Uint8 || b == Uint8 {
		o := a
		if a == Uint8 {
			o = b
		}
		if o == Int8 {
			return Int16
		}
		return o
	}
	return max(a, b)
}
