//go:build !purego

package asm

import (
	"math"
	"os"
	"testing"
	"time"
)

// geluNEONWant is what geluF32 gives for x: the twin's result, but for a
// NaN x its NaN with the sign cleared and for -Inf 0xffc00000, as the twin
// on amd64 and the AVX2/AVX-512 kernels give them (the twin compiled for
// arm64 fuses x + g into an FMADD, which keeps a negative NaN's sign, and
// gives the default NaN 0x7fc00000 for -Inf).
func geluNEONWant(x float32) uint32 {
	b := math.Float32bits(x)
	switch {
	case x != x:
		return b&^(1<<31) | 0x00400000
	case b == 0xff800000:
		return 0xffc00000
	}
	return math.Float32bits(geluGo1(x))
}

// TestGeluNEONSpecial checks geluF32 bit for bit, NaN payloads included,
// on the inputs its bit tricks are sensitive to, in every lane of a
// vector and in the one-element tail: ±0, subnormals, t·t underflowing,
// 14.5 (the clamp) and its neighbours, ±Inf, NaNs of both signs, quiet
// and signalling, and the ends of the exp reduction's n.
func TestGeluNEONSpecial(t *testing.T) {
	xs := []float32{0, float32(math.Copysign(0, -1)), 0x1p-149, -0x1p-149, 0x1p-126, -0x1p-126,
		math.Float32frombits(0x007fffff), math.Float32frombits(0x807fffff), 0x1p-70, -0x1p-70, 0x1p-63, -0x1p-64,
		14.5, -14.5, math.Nextafter32(14.5, 0), -math.Nextafter32(14.5, 0), math.Nextafter32(14.5, 20),
		-math.Nextafter32(14.5, 20), 20, -20, math.MaxFloat32, -math.MaxFloat32, 1, -1, 0.5, -0.5,
		float32(math.Inf(1)), float32(math.Inf(-1)), 1.1774, -1.1774, 9.5, -9.5, 13, -13,
	}
	for _, b := range []uint32{0x7f800001, 0x7fbfffff, 0x7fc00000, 0x7fc12345, 0x7fffffff,
		0xff800001, 0xffbfffff, 0xffc00000, 0xffc12345, 0xffffffff} {
		xs = append(xs, math.Float32frombits(b))
	}
	for _, v := range xs {
		want := geluNEONWant(v)
		for n := 1; n <= 5; n++ { // 4: a vector; 1, 5: the tail
			for lane := range n {
				x := make([]float32, n)
				for i := range x {
					x[i] = 0.75 // another value in the other lanes
				}
				x[lane] = v
				d := make([]float32, n)
				geluF32(d, x)
				if got := math.Float32bits(d[lane]); got != want {
					t.Fatalf("gelu(%v = %#x) n=%d lane %d = %#x, want %#x", v, math.Float32bits(v), n, lane, got, want)
				}
				for i := range d {
					if i != lane && d[i] != geluGo1(0.75) {
						t.Fatalf("gelu(%v) n=%d lane %d disturbs lane %d: %v", v, n, lane, i, d[i])
					}
				}
			}
		}
	}
}

// TestGeluNEONAll is TestExpAll for geluF32 under GOATEN_GELU_ALL=1 (on
// arm64 under qemu-aarch64 about as long as TestExpAll's all-blocks run):
// the twin here, its NaNs taken as geluNEONWant's, sums as
// testdata/gelu_crc32.txt (written by the twin on amd64) on the sample
// blocks, and then the kernel on all 2^32 patterns. TestExpAll itself
// stops at its twin check on block 0xff here: the twin compiled for arm64
// keeps a negative NaN's sign (geluNEONWant), the file has it cleared.
func TestGeluNEONAll(t *testing.T) {
	if os.Getenv("GOATEN_GELU_ALL") != "1" {
		t.Skip("GOATEN_GELU_ALL=1 runs it")
	}
	want := readExpAllFile(t, expAllFile(uGelu))
	twin := func(d, x []float32) {
		for i, v := range x {
			d[i] = math.Float32frombits(geluNEONWant(v))
		}
	}
	start := time.Now()
	for i, s := range expAllSums(twin, expAllTwinBlocks) {
		if b := expAllTwinBlocks[i]; s != want[b] {
			t.Fatalf("block %02x: the twin here sums to %08x, the file says %08x", b, s, want[b])
		}
	}
	t.Logf("the twin here agrees with the file on blocks %x (%v)", expAllTwinBlocks, time.Since(start))
	start = time.Now()
	blocks := make([]int, 1<<32/expAllBlock)
	for i := range blocks {
		blocks[i] = i
	}
	for i, s := range expAllSums(geluF32, blocks) {
		if s != want[i] {
			t.Errorf("block %02x: kernel sums to %08x, the file to %08x; first difference %s", i, s, want[i], expAllFirstDiff(uGelu, i))
		}
	}
	t.Logf("geluF32's sums equal the file's on all %d blocks of 2^24 patterns (%v)", len(blocks), time.Since(start))
}
