// Package cputime reads the process's CPU time and page faults for the
// benchmarks: on a machine shared with other work they move less than wall
// time. Off Linux both read 0 (the metrics are left out).
package cputime

import (
	"syscall"
	"time"
	"unsafe"
)

// Process is the CPU time of the whole process (CLOCK_PROCESS_CPUTIME_ID:
// every thread's, the collector's included, to the nanosecond).
func Process() time.Duration {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 2, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}

// MinorFaults is the process's count of page faults served without I/O.
func MinorFaults() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return int64(ru.Minflt)
}
