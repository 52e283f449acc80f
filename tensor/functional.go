package tensor

// functionalValue returns the current inner value of a tensor carrying
// KeyFunctionalize (nil until package functional sets it).
var functionalValue func(t *Tensor) *Tensor

// SetFunctionalValue installs the function that reads a functional tensor's
// current value: package functional calls it from init, so that CPUView (and
// so Item, Float64s, printing) sees a functionalized tensor's data after
// pending updates are applied.
func SetFunctionalValue(f func(t *Tensor) *Tensor) { functionalValue = f }
