package cputime

import (
	"runtime"
	"testing"
)

// TestProcess: on Linux the process's CPU time grows with work done and
// the fault count never goes down; elsewhere both read 0.
func TestProcess(t *testing.T) {
	c0, f0 := Process(), MinorFaults()
	x := 0
	for i := range 20_000_000 {
		x += i % 7
	}
	buf := make([]byte, 8<<20)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = byte(x)
	}
	c1, f1 := Process(), MinorFaults()
	if runtime.GOOS != "linux" {
		if c0 != 0 || c1 != 0 || f0 != 0 || f1 != 0 {
			t.Fatalf("off Linux: %v %v %d %d, want zeros", c0, c1, f0, f1)
		}
		return
	}
	if c1 <= c0 || f1 < f0 {
		t.Fatalf("CPU time %v -> %v, faults %d -> %d", c0, c1, f0, f1)
	}
	runtime.KeepAlive(buf)
}
