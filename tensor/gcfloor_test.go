package tensor

import (
	"math"
	"os"
	"testing"
)

// TestGCFloor: the collector's floor is 16 MiB by default, the size
// GOATEN_GC_FLOOR_MB gives (0: none; a value that is not a count keeps the
// default), and none under a memory limit below 16 times it.
func TestGCFloor(t *testing.T) {
	none := int64(math.MaxInt64)
	for _, c := range []struct {
		v     string
		set   bool
		limit int64
		want  int
	}{
		{"", false, none, 16 << 20},
		{"0", true, none, 0},
		{"64", true, none, 64 << 20},
		{"lots", true, none, 16 << 20},
		{"-3", true, none, 16 << 20},
		{"", false, 1 << 30, 16 << 20},
		{"", false, 200 << 20, 0},
		{"4", true, 200 << 20, 4 << 20},
	} {
		if got := gcFloorFor(c.v, c.set, c.limit); got != c.want {
			t.Errorf("GOATEN_GC_FLOOR_MB %q (set %v), limit %d: %d bytes, want %d", c.v, c.set, c.limit, got, c.want)
		}
	}
	if _, set := os.LookupEnv("GOATEN_GC_FLOOR_MB"); !set && len(gcFloor) != 16<<20 {
		t.Errorf("the floor in this process is %d bytes, want 16 MiB", len(gcFloor))
	}
}
