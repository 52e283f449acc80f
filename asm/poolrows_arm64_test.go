//go:build !purego

package asm

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// The NEON kernels of the pooling and upsampling rows (addrows_arm64.s,
// lerp_arm64.s, maxidx_arm64.s) against their twins, bit for bit, NaN
// payloads included: the twins are called through these variables, out of
// line, in the operand order the kernels copy (an inlined copy may order
// an addition's operands the other way).
var (
	addRowsTwin      = addRowsGo
	lerpTwin         = lerpGo
	maxIndexRowsTwin = maxIndexRowsGo
)

// TestPoolRowsNEONInUse: the kernels in use are the NEON ones (the twins
// with GOATEN_PUREGO=1).
func TestPoolRowsNEONInUse(t *testing.T) {
	ptr := func(f any) uintptr { return reflect.ValueOf(f).Pointer() }
	for _, c := range []struct {
		name            string
		got, neon, twin any
	}{
		{"addRows", addRows, addRowsF32NEON, addRowsGo},
		{"lerp", lerp, lerpF32NEON, lerpGo},
		{"maxIndexRows", maxIndexRows, maxIndexRowsNEON, maxIndexRowsGo},
	} {
		want := c.neon
		if !useNEON {
			want = c.twin
		}
		if ptr(c.got) != ptr(want) {
			t.Errorf("%s: not the kernel expected (NEON %v)", c.name, useNEON)
		}
	}
}

// poolNaNs are NaNs of every kind: quiet and signalling, both signs, with
// payloads; two of them meeting in an addition or a product pick one by
// the operands' order.
var poolNaNs = func() []float32 {
	var v []float32
	for _, s := range rowSpecials {
		if s != s {
			v = append(v, s)
		}
	}
	return v
}()

// poolValues is rowValues with a fifth kind: NaNs half the time.
func poolValues(r *rand.Rand, n, kind int) []float32 {
	if kind < 5 {
		return rowValues(r, n, kind)
	}
	v := rowValues(r, n, 3)
	for i := range v {
		if r.IntN(2) == 0 {
			v[i] = poolNaNs[r.IntN(len(poolNaNs))]
		}
	}
	return v
}

// TestAddRowsNEONBits runs addRowsF32NEON (whole eights) and AddRowsF32
// (tails too) against the twin: 1…6 rows of 0…67, 128 and 129 elements,
// gaps between the rows and guard elements past them (which must stay),
// starts not on a vector's boundary, every kind of values.
func TestAddRowsNEONBits(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 1))
	widths := append(ewLens()[:68], 128, 129)
	for _, w := range widths {
		for k := range 6 {
			rows, off := 1+r.IntN(6), r.IntN(4)
			ldd, lds := w+r.IntN(4), w+r.IntN(5)
			nd, ns := off+(rows-1)*ldd+w+3, off+(rows-1)*lds+w
			d0, src := poolValues(r, nd, k), poolValues(r, ns, (k+1)%6)
			dst, s := d0[off:], src[off:]
			if w8 := w &^ 7; w8 > 0 {
				got, want := slices.Clone(dst), slices.Clone(dst)
				addRowsF32NEON(got, ldd, s, lds, rows, w8)
				addRowsTwin(want, ldd, s, lds, rows, w8)
				rowSameBits(t, "addRowsF32NEON", got, want)
			}
			got, want := slices.Clone(dst), slices.Clone(dst)
			AddRowsF32(got, ldd, s, lds, rows, w)
			addRowsTwin(want, ldd, s, lds, rows, w)
			rowSameBits(t, "AddRowsF32", got, want)
		}
	}
}

// TestLerpNEONBits runs lerpF32NEON (whole eights) and LerpF32 against
// the twin over lengths 0…67, 128, 129 and 1000 at starts off a vector's
// boundary, the weights special now and then, every kind of values.
func TestLerpNEONBits(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 2))
	for _, n := range ewLens() {
		for k := range 6 {
			off := r.IntN(4)
			x, y := poolValues(r, off+n, k)[off:], poolValues(r, off+n, (k+2)%6)[off:]
			a, b := rowScalar(r), rowScalar(r)
			if k == 5 {
				a, b = poolNaNs[r.IntN(len(poolNaNs))], poolNaNs[r.IntN(len(poolNaNs))]
			}
			d0 := poolValues(r, n+3, 0)
			if n8 := n &^ 7; n8 > 0 {
				got, want := slices.Clone(d0), slices.Clone(d0)
				lerpF32NEON(got[:n8], x[:n8], a, y[:n8], b)
				lerpTwin(want[:n8], x[:n8], a, y[:n8], b)
				rowSameBits(t, "lerpF32NEON", got, want)
			}
			got, want := slices.Clone(d0), slices.Clone(d0)
			LerpF32(got[:n], x, a, y, b)
			lerpTwin(want[:n], x, a, y, b)
			rowSameBits(t, "LerpF32", got, want)
		}
	}
}

// TestMaxIndexRowsNEONBits runs maxIndexRowsF32NEON (4 columns and more)
// and MaxIndexRowsF32 against the twin: 1…6 rows of 0…67, 128 and 129
// columns with gaps and guard elements, ties, signed zeros, Infs and NaNs
// of every kind among the candidates and the running maxima, index steps
// that wrap around int32; then the same candidates folded again change
// nothing.
func TestMaxIndexRowsNEONBits(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 3))
	widths := append(ewLens()[:68], 128, 129)
	steps := []int32{0, 1, 2, 3, -1, -7, 1 << 30, math.MaxInt32, math.MinInt32}
	for _, cols := range widths {
		for k := range 6 {
			rows, off := 1+r.IntN(6), r.IntN(4)
			ldm, ldv := cols+r.IntN(4), cols+r.IntN(5)
			i0, cs, rs := int32(r.Uint32()), steps[r.IntN(len(steps))], steps[r.IntN(len(steps))]
			if k < 3 {
				i0, cs, rs = int32(r.IntN(100)), int32(1+r.IntN(3)), int32(ldv)
			}
			nm, nv := off+(rows-1)*ldm+cols+3, off+(rows-1)*ldv+cols
			m0, v := maxIdxCands(r, nm, k), maxIdxCands(r, nv, (k+1)%6)[off:]
			mi0 := make([]int32, nm)
			for i := range mi0 {
				mi0[i] = int32(r.Uint32())
			}
			m0, mi0 = m0[off:], mi0[off:]
			run := func(what string, kernel func(m []float32, mi []int32, ldm int, v []float32, ldv int, rows, cols int, i0, colStep, rowStep int32)) {
				m, mi := slices.Clone(m0), slices.Clone(mi0)
				wm, wmi := slices.Clone(m0), slices.Clone(mi0)
				kernel(m, mi, ldm, v, ldv, rows, cols, i0, cs, rs)
				maxIndexRowsTwin(wm, wmi, ldm, v, ldv, rows, cols, i0, cs, rs)
				rowSameBits(t, what, m, wm)
				if i := slices.Compare(mi, wmi); i != 0 {
					t.Fatalf("%s: %d rows of %d: indices %v, twin %v", what, rows, cols, mi, wmi)
				}
				kernel(m, mi, ldm, v, ldv, rows, cols, i0, cs, rs)
				rowSameBits(t, what+" twice", m, wm)
				if slices.Compare(mi, wmi) != 0 {
					t.Fatalf("%s twice: %d rows of %d: indices %v, twin %v", what, rows, cols, mi, wmi)
				}
			}
			if cols >= 4 {
				run("maxIndexRowsF32NEON", maxIndexRowsF32NEON)
			}
			run("MaxIndexRowsF32", MaxIndexRowsF32)
		}
	}
}

// maxIdxCands draws candidates or running maxima: maxIdxValues (ties and
// specials) for kinds 0–2, poolValues' kinds (NaN payloads) for 3–5.
func maxIdxCands(r *rand.Rand, n, kind int) []float32 {
	if kind < 3 {
		return maxIdxValues(r, n)
	}
	return poolValues(r, n, kind)
}
