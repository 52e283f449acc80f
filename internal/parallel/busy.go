package parallel

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// An idle pool goroutine spins (poll) only while the machine has CPU time
// to spare. On a machine shared with other work, a spinning thread takes
// CPU time from threads that have work, among them this process's own: with
// Linux's autogroup (or cgroup) scheduling a process's threads share one
// weight, so a spinning worker slows the goroutine that runs the op's
// serial part. Measured on the project's 2-core VM under
// load (bench/README.md, "Two cores no slower than one"): with spinning,
// two cores ran conv2d's backward 20% and relu 16M 45% slower than one;
// without it, at one core's time.
//
// GOATEN_SPIN=0 never spins (and, counting as pressure, keeps small pieces
// on the caller, see SmallPiece), GOATEN_SPIN=1 always spins (as before
// this check); otherwise the CPU pressure decides.
var spinMode atomic.Int32 // spinAuto, spinNever or spinAlways

const (
	spinAuto = iota
	spinNever
	spinAlways
)

func init() {
	switch os.Getenv("GOATEN_SPIN") {
	case "0":
		spinMode.Store(spinNever)
	case "1":
		spinMode.Store(spinAlways)
	}
}

// pressureLimit is the CPU pressure (the share of recent time in which some
// runnable thread waited for a CPU, in percent) above which idle goroutines
// do not spin. On the project machine it reads 0–5 when quiet and 45–75
// under the other sessions' builds.
const pressureLimit = 20

// pressureEvery is how often busy reads the pressure again.
const pressureEvery = 100 * time.Millisecond

var pressure struct {
	mu   sync.Mutex
	next atomic.Int64 // time (UnixNano) of the next reading
	high atomic.Bool
}

// busy reports whether idle goroutines should not spin now.
func busy() bool {
	switch spinMode.Load() {
	case spinNever:
		return true
	case spinAlways:
		return false
	}
	now := time.Now().UnixNano()
	if now < pressure.next.Load() || !pressure.mu.TryLock() {
		return pressure.high.Load()
	}
	defer pressure.mu.Unlock()
	pressure.next.Store(now + int64(pressureEvery))
	p, ok := cpuPressure()
	pressure.high.Store(ok && p > pressureLimit)
	return pressure.high.Load()
}

// parseAvg10 reads the number after the first "avg10=" in b (the "some"
// line comes first in /proc/pressure/cpu).
func parseAvg10(b []byte) (float64, bool) {
	i := bytes.Index(b, []byte("avg10="))
	if i < 0 {
		return 0, false
	}
	b = b[i+len("avg10="):]
	if j := bytes.IndexByte(b, ' '); j >= 0 {
		b = b[:j]
	}
	v, err := strconv.ParseFloat(string(b), 64)
	return v, err == nil
}
