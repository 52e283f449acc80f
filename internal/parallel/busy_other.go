//go:build !linux

package parallel

// cpuPressure has no source off Linux: idle goroutines always spin there.
func cpuPressure() (float64, bool) { return 0, false }
