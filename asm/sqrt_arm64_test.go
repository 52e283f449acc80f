//go:build !purego

package asm

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// sqrtNEONKernels are the NEON kernels of sqrt_arm64.s and their twins.
var sqrtNEONKernels = []neonKernel{{"sqrt", sqrtF32, sqrtGo1}, {"rsqrt", rsqrtF32, rsqrtGo1}}

// sqrtNEONSpecials are the inputs the kernels' tricks are sensitive to:
// ±0, subnormals (scaled by 2^24) and the boundary to the normals, ±Inf,
// NaNs (quiet and signalling, both signs, with payloads), the largest
// finite, powers of 4 and of 2 with their neighbours (the integer seed's
// extremes; 4^k·(1 + 2^-23), where xs - s'·n is an exact 0), and the
// neighbours of x = m² for midpoints m between two float32 roots, where
// the rounding is decided, in the normal and the subnormal range.
func sqrtNEONSpecials() []float32 {
	bits := []uint32{
		0, 0x80000000, 1, 2, 3, 0x80000001, 0x007fffff, 0x807fffff, 0x00800000, 0x80800000, 0x00400000,
		0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x7fbfffff,
		0xffbfffff, 0x7fc12345, 0xffd54321, 0x7fffffff, 0xffffffff, 0x7f812345, 0xff812345,
		0x7f7fffff, 0xff7fffff,
	}
	var xs []float32
	near := func(b uint32, k uint32) {
		for i := uint32(0); i < k; i++ {
			xs = append(xs, math.Float32frombits(b-i), math.Float32frombits(b+i))
		}
	}
	for _, b := range bits {
		xs = append(xs, math.Float32frombits(b))
	}
	for e := -149; e <= 127; e++ {
		near(math.Float32bits(float32(math.Ldexp(1, e))), 4)
	}
	near(0x00800000, 16) // the subnormals' boundary
	near(0x007fffff, 8)
	near(0x7f7fffff, 8) // the largest finite
	for _, m := range []uint64{1 << 23, 1<<23 + 1, 0xb504f3, 0xb504f4, 0xc00000, 0xfffffe, 1<<24 - 1, 0x9e3779, 0xd1b71} {
		// (m + ½)·2^-23, a midpoint in [1, 2), squared in [1, 4), at
		// scales 4^k down to the subnormals.
		mid := (float64(m) + 0.5) * 0x1p-23
		for _, k := range []int{-74, -72, -70, -64, -63, -50, 0, 1, 40, 63} {
			near(math.Float32bits(float32(math.Ldexp(mid*mid, 2*k))), 3)
		}
	}
	for _, s := range []float32{3, 5, 7, 4095, 4097, 1.5, 1.25, 0x1p-70 * 3, 0x1p-70 * 4095} { // perfect squares
		near(math.Float32bits(s*s), 3)
	}
	return xs
}

// TestSqrtNEON compares the NEON kernels with their twins bit for bit on
// the specials and their negations (the default NaN), at every length up
// to 40 and every start (the vector paths and the one-element tail), and
// in place.
func TestSqrtNEON(t *testing.T) { checkNEONKernels(t, sqrtNEONKernels, sqrtNEONSpecials(), 37) }

// TestSqrtAll compares the NEON kernels with their twins bit for bit on
// every float32 bit pattern, one kernel call per block of 2^16 patterns,
// the blocks shared out among GOMAXPROCS goroutines (under qemu-aarch64,
// each a thread). GOATEN_SQRT_ALL=1 runs all of them (k: every k-th block
// only; 25 to 30 minutes a kernel under qemu on the 2-core machine); unset,
// it checks every 257th block (-short: every 4099th);
// GOATEN_SQRT_ALL_OPS=rsqrt limits it to that kernel.
func TestSqrtAll(t *testing.T) {
	step, _ := strconv.Atoi(os.Getenv("GOATEN_SQRT_ALL"))
	if step < 1 {
		step = 257
		if testing.Short() {
			step = 4099
		}
	}
	const block = 1 << 16
	for _, k := range sqrtNEONKernels {
		if ops := os.Getenv("GOATEN_SQRT_ALL_OPS"); ops != "" && !slices.Contains(strings.Split(ops, ","), k.name) {
			continue
		}
		start := time.Now()
		var next atomic.Int64
		var wg sync.WaitGroup
		errs := make(chan string, runtime.GOMAXPROCS(0))
		for range runtime.GOMAXPROCS(0) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				x, d := make([]float32, block), make([]float32, block)
				for b := next.Add(int64(step)) - int64(step); b < 1<<32/block; b = next.Add(int64(step)) - int64(step) {
					for i := range x {
						x[i] = math.Float32frombits(uint32(b*block + int64(i)))
					}
					k.kernel(d, x)
					for i, v := range x {
						if want := k.twin(v); math.Float32bits(d[i]) != math.Float32bits(want) {
							errs <- fmt.Sprintf("%s(%#x) = %#x, twin %#x", k.name, math.Float32bits(v), math.Float32bits(d[i]), math.Float32bits(want))
							return
						}
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
		t.Logf("%s: every %d-th block of 2^16 patterns in %v", k.name, step, time.Since(start).Round(time.Second))
	}
}
