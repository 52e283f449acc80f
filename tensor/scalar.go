package tensor

import (
	"math"
	"strconv"
)

type scalarKind uint8

const (
	scalarInt scalarKind = iota
	scalarFloat
	scalarBool
)

// Scalar is a number that is not a tensor: PyTorch's c10::Scalar. It remembers
// whether it is an integer, a float or a bool, because that drives type promotion.
type Scalar struct {
	kind scalarKind
	i    int64
	f    float64
}

// Int makes an integer Scalar.
func Int(v int64) Scalar { return Scalar{kind: scalarInt, i: v} }

// Float makes a floating Scalar.
func Float(v float64) Scalar { return Scalar{kind: scalarFloat, f: v} }

// BoolScalar makes a boolean Scalar.
func BoolScalar(v bool) Scalar {
	if v {
		return Scalar{kind: scalarBool, i: 1}
	}
	return Scalar{kind: scalarBool}
}

// ToScalar converts Go numbers and bools to a Scalar.
func ToScalar(v any) (Scalar, bool) {
	switch x := v.(type) {
	case Scalar:
		return x, true
	case int:
		return Int(int64(x)), true
	case int64:
		return Int(x), true
	case int32:
		return Int(int64(x)), true
	case float64:
		return Float(x), true
	case float32:
		return Float(float64(x)), true
	case bool:
		return BoolScalar(x), true
	}
	return Scalar{}, false
}

// IsFloat reports whether s holds a floating value.
func (s Scalar) IsFloat() bool { return s.kind == scalarFloat }

// IsInt reports whether s holds an integer.
func (s Scalar) IsInt() bool { return s.kind == scalarInt }

// IsBool reports whether s holds a bool.
func (s Scalar) IsBool() bool { return s.kind == scalarBool }

// DType is the dtype a wrapped number of this kind has: int64, float64 or bool.
func (s Scalar) DType() DType {
	switch s.kind {
	case scalarFloat:
		return Float64
	case scalarBool:
		return Bool
	}
	return Int64
}

// Float64 returns the value as a float64.
func (s Scalar) Float64() float64 {
	if s.kind == scalarFloat {
		return s.f
	}
	return float64(s.i)
}

// Int64 returns the value as an int64 (floats are truncated).
func (s Scalar) Int64() int64 {
	if s.kind == scalarFloat {
		return int64(s.f)
	}
	return s.i
}

// Bool returns whether the value is non-zero.
func (s Scalar) Bool() bool {
	if s.kind == scalarFloat {
		return s.f != 0
	}
	return s.i != 0
}

// IsNaN reports whether s is a floating NaN.
func (s Scalar) IsNaN() bool { return s.kind == scalarFloat && math.IsNaN(s.f) }

func (s Scalar) String() string {
	switch s.kind {
	case scalarFloat:
		return formatPyFloat(s.f)
	case scalarBool:
		if s.i != 0 {
			return "True"
		}
		return "False"
	}
	return strconv.FormatInt(s.i, 10)
}

func formatPyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	for _, c := range s {
		if c == '.' || c == 'e' {
			return s
		}
	}
	return s + ".0"
}
