package asm

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// checkCopyRowsStream runs CopyRowsStream and its twin over rows of n bytes with
// the given strides, dst starting off bytes past a 64-byte boundary, and
// compares every byte of the two destinations, including the gaps between
// rows and guard bytes after the last one.
func checkCopyRowsStream(t testing.TB, r *rand.Rand, rows, n, ldd, lds, off int) {
	t.Helper()
	srcLen := 0
	if rows > 0 && n > 0 {
		srcLen = (rows-1)*lds + n
	}
	dstLen := 64
	if rows > 0 && n > 0 {
		dstLen += (rows-1)*ldd + n
	}
	src := make([]byte, srcLen)
	for i := range src {
		src[i] = byte(r.Uint32())
	}
	mk := func() []byte {
		b := make([]byte, dstLen+off+128)
		a := int(uintptr(unsafe.Pointer(&b[0])) % 64)
		b = b[(64-a)%64+off:][:dstLen+64]
		for i := range b {
			b[i] = 0xa5
		}
		return b
	}
	got, want := mk(), mk()
	CopyRowsStream(got, ldd, src, lds, rows, n)
	if rows > 0 && n > 0 {
		copyRowsGo(want, ldd, src, lds, rows, n)
	}
	if !bytes.Equal(got, want) {
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("rows=%d n=%d ldd=%d lds=%d off=%d: byte %d = %#x, twin %#x", rows, n, ldd, lds, off, i, got[i], want[i])
			}
		}
	}
	// The twin itself against the definition, and nothing past the rows.
	for i := 0; i < rows && n > 0; i++ {
		if !bytes.Equal(want[i*ldd:][:n], src[i*lds:][:n]) {
			t.Fatalf("rows=%d n=%d: twin row %d differs from the source", rows, n, i)
		}
	}
	if rows > 0 && n > 0 {
		for i := (rows-1)*ldd + n; i < len(want); i++ {
			if want[i] != 0xa5 {
				t.Fatalf("rows=%d n=%d: byte %d past the last row written", rows, n, i)
			}
		}
	}
}

// TestCopyRowsStream: the streaming kernel (where it runs: aligned rows
// of whole 32-byte vectors) and the copy fallback (odd widths, strides and
// starts) equal the twin, over widths 0..67 vectors' worth and tails, dst
// strides with gaps, src strides shorter and longer than dst's.
func TestCopyRowsStream(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, n := range []int{0, 1, 31, 32, 33, 64, 96, 128, 160, 224, 256, 288, 1000, 2144, 4096} {
		for _, rows := range []int{0, 1, 2, 3, 7} {
			for _, gap := range []int{0, 32, 5, 96} {
				for _, off := range []int{0, 32, 8, 1} {
					checkCopyRowsStream(t, r, rows, n, n+gap, n+gap/2+3, off)
					checkCopyRowsStream(t, r, rows, n, n+gap, n, off)
				}
			}
		}
	}
	for v := range 68 { // 0..67 vectors per row, past 4× the unroll
		checkCopyRowsStream(t, r, 3, 32*v, 32*v+64, 32*v+1, 0)
	}
}

func TestCopyRowsStreamPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("rows past the end of dst: no panic")
		}
	}()
	CopyRowsStream(make([]byte, 100), 64, make([]byte, 200), 64, 2, 64)
}

func FuzzCopyRowsStream(f *testing.F) {
	f.Add(uint8(3), uint16(128), uint16(32), uint16(5), uint8(0), uint64(1))
	f.Add(uint8(1), uint16(4096), uint16(0), uint16(0), uint8(32), uint64(2))
	f.Fuzz(func(t *testing.T, rows uint8, n, gapD, gapS uint16, off uint8, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 7))
		nn, gd, gs := int(n%5000), int(gapD%300), int(gapS%300)
		checkCopyRowsStream(t, r, int(rows%9), nn, nn+gd, nn+gs, int(off%64))
	})
}

// TestFill: Fill sets every element, for lengths around its first stores
// and its block, and nothing past the slice.
func TestFill(t *testing.T) {
	for _, n := range []int{0, 1, 15, 16, 17, 33, 1000, 1023, 1024, 1025, 5000, 70001} {
		buf := make([]uint32, n+3)
		Fill(buf[:n], 0xdeadbeef)
		for i, v := range buf {
			if want := uint32(0xdeadbeef); i < n && v != want || i >= n && v != 0 {
				t.Fatalf("n=%d: element %d = %#x", n, i, v)
			}
		}
		b8 := make([]uint8, n)
		Fill(b8, 7)
		for i, v := range b8 {
			if v != 7 {
				t.Fatalf("n=%d bytes: element %d = %d", n, i, v)
			}
		}
	}
}
