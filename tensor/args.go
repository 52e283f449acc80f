package tensor

// Helpers for kernels reading canonical boxed arguments (see Op.Bind).

// OptInt returns args[i] as an int, or def when it is None.
func OptInt(v any, def int) int {
	if v == nil {
		return def
	}
	return v.(int)
}

// OptFloat returns v as a float64, or def when it is None.
func OptFloat(v any, def float64) float64 {
	if v == nil {
		return def
	}
	return v.(float64)
}

// OptTensor returns v as a *Tensor, or nil when it is None.
func OptTensor(v any) *Tensor {
	if v == nil {
		return nil
	}
	return v.(*Tensor)
}

// OptDType returns v as a DType, or def when it is None.
func OptDType(v any, def DType) DType {
	if v == nil {
		return def
	}
	return v.(DType)
}

// OptInts returns v as []int, or nil when it is None.
func OptInts(v any) []int {
	if v == nil {
		return nil
	}
	return v.([]int)
}

// OptScalar returns v as a Scalar and whether it was given.
func OptScalar(v any) (Scalar, bool) {
	if v == nil {
		return Scalar{}, false
	}
	return v.(Scalar), true
}

// OptString returns v as a string, or def when it is None.
func OptString(v any, def string) string {
	if v == nil {
		return def
	}
	return v.(string)
}

// OptBool returns v as a bool, or def when it is None.
func OptBool(v any, def bool) bool {
	if v == nil {
		return def
	}
	return v.(bool)
}
