//go:build race

package cpu_test

// raceEnabled: the race detector drops sync.Pool entries at random, so
// kernels that pool their scratch (the GEMM packing buffers) allocate
// more, and allocation counts mean nothing.
const raceEnabled = true
