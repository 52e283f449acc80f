package bench

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"testing"
	"time"
)

// TestOpsPerCall times the op survey's cases call by call:
// OPS_PERCALL=<regexp> selects the cases (by name, as in
// peers/ops_cases.json), each called once to warm up and then 300 times
// singly; it prints the minimum, first quartile and median call in µs.
// On a loaded machine these move far less than BenchmarkOps's means.
// `PEER_PERCALL=1 PEER_FILTER=<regexp> /usr/bin/python3 peers/ops_peers.py`
// prints the same lines for PyTorch.
//
//	OPS_PERCALL='^(cat|clamp)/' go test -run OpsPerCall -v -cpu 1 ./bench/
func TestOpsPerCall(t *testing.T) {
	pat := os.Getenv("OPS_PERCALL")
	if pat == "" {
		t.Skip("a measurement, not a check (it never fails): set OPS_PERCALL to a regexp of case names to time them call by call")
	}
	re := regexp.MustCompile(pat)
	for _, c := range opsCases(t) {
		if !re.MatchString(c.name) {
			continue
		}
		c.f()
		ds := make([]time.Duration, 300)
		for i := range ds {
			t0 := time.Now()
			c.f()
			ds[i] = time.Since(t0)
		}
		slices.Sort(ds)
		us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
		fmt.Printf("%-32s min %9.1f p25 %9.1f med %9.1f us\n", c.name, us(ds[0]), us(ds[len(ds)/4]), us(ds[len(ds)/2]))
	}
}
