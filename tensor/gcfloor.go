package tensor

import (
	"math"
	"os"
	"runtime/debug"
	"strconv"
)

// The collector's floor (issue 25). Go collects when the heap has grown by
// GOGC% of what the last cycle found live, and never below 4 MB: a program
// of small tensor ops, whose live heap is small, allocates that much in
// well under a millisecond (a 64×64 result is 16 KB) and so runs a cycle
// every few hundred ops. Each cycle costs its marking, and with two or
// more Ps the wake-ups and stops it makes other threads take: a small MLP's
// training step took 1.3–1.5 times as long with GOMAXPROCS 2 as with 1.
//
// gcFloor is a block of memory that is never read or written: the
// collector counts it as live, so the heap may grow by that much more
// between cycles, and cycles come several times less often, as PyTorch's
// caching allocator keeps freed blocks for the next results. It is
// pointer-free (never scanned) and never touched, so its pages stay
// unmapped; what it costs is the garbage the later cycles leave, up to
// its size in resident memory. GOATEN_GC_FLOOR_MB sets its size (0: none);
// under a memory limit (GOMEMLIMIT, debug.SetMemoryLimit) below
// 16 times the floor there is none, since it would move the limit's
// collections closer together instead.
var gcFloor = make([]byte, gcFloorBytes(os.LookupEnv("GOATEN_GC_FLOOR_MB")))

// gcFloorMB is the floor's default size in MiB.
const gcFloorMB = 16

// gcFloorBytes is the floor's size for the GOATEN_GC_FLOOR_MB value v
// (set says it is) under the current memory limit.
func gcFloorBytes(v string, set bool) int {
	return gcFloorFor(v, set, debug.SetMemoryLimit(-1))
}

func gcFloorFor(v string, set bool, limit int64) int {
	mb := gcFloorMB
	if set {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			n = gcFloorMB
		}
		mb = n
	}
	b := mb << 20
	if b <= 0 || (limit != math.MaxInt64 && limit < 16*int64(b)) {
		return 0
	}
	return b
}
