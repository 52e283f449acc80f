package asm

import (
	"syscall"
	"time"
	"unsafe"
)

// processCPU is the CPU time of the whole process (CLOCK_PROCESS_CPUTIME_ID:
// every thread, to the nanosecond).
func processCPU() time.Duration {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 2, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}
