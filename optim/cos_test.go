package optim

import (
	"math"
	"testing"
)

// cos is correctly rounded; math.Cos is within an ulp of it. (Against
// glibc, which Python calls, the scheduler tests check it bit for bit.)
func TestCos(t *testing.T) {
	differ := 0
	for i := -2000; i <= 2000; i++ {
		x := float64(i) * 0.0123
		c, m := cos(x), math.Cos(x)
		if d := math.Abs(float64(int64(math.Float64bits(c)) - int64(math.Float64bits(m)))); d > 1 && math.Abs(c-m) > 1e-300 {
			t.Errorf("cos(%v) = %v, math.Cos %v", x, c, m)
		}
		if c != m {
			differ++
		}
	}
	t.Logf("%d of 4001 differ from math.Cos by an ulp", differ)
	if cos(0) != 1 || cos(math.Pi) != -1 || !math.IsNaN(cos(math.Inf(1))) {
		t.Error("cos(0), cos(π) or cos(inf)")
	}
}

func TestPyIntArith(t *testing.T) {
	for _, c := range [][4]int{{7, 3, 1, 2}, {-7, 3, 2, -3}, {7, -3, -2, -3}, {-7, -3, -1, 2}, {6, 3, 0, 2}, {-6, 3, 0, -2}} {
		if pyMod(c[0], c[1]) != c[2] || pyFloorDiv(c[0], c[1]) != c[3] {
			t.Errorf("%d %% %d = %d, // = %d; want %d, %d", c[0], c[1], pyMod(c[0], c[1]), pyFloorDiv(c[0], c[1]), c[2], c[3])
		}
	}
	if pow(0.5, -2) != 4 || pow(0.1, 3) != 0.0010000000000000002 {
		t.Errorf("pow: %v %v", pow(0.5, -2), pow(0.1, 3))
	}
}

func TestPyFloat(t *testing.T) {
	for v, want := range map[float64]string{
		-0.1: "-0.1", -1: "-1.0", 1e-5: "1e-05", 1e-4: "0.0001", 1e15: "1000000000000000.0", 1e16: "1e+16",
		1.5e300: "1.5e+300", 0: "0.0", 1234.5: "1234.5", -2.5e-8: "-2.5e-08", math.Inf(-1): "-inf",
	} {
		if got := pyFloat(v); got != want {
			t.Errorf("pyFloat(%v) = %q, want %q", v, got, want)
		}
	}
}
