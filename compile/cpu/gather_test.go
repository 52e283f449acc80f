package cpu

import "testing"

// TestGatherBroadcastRuns: a per-channel value broadcast over planes (runs
// of one value, filled by doubling copies) and a strided operand gather
// the elements a row-major walk of the space reads, from any start and
// for tile lengths that end inside a run.
func TestGatherBroadcastRuns(t *testing.T) {
	src := make([]float32, 64)
	for i := range src {
		src[i] = float32(i + 1)
	}
	for _, c := range []struct {
		space, sizes, strides []int
		at                    func(n, c, i int) int // the src index of space element (n, c, i)
	}{
		{[]int{3, 5, 37}, []int{5, 1}, []int{1, 0}, func(n, c, i int) int { return c }},
		{[]int{2, 4, 16}, []int{4, 1}, []int{1, 0}, func(n, c, i int) int { return c }},
		{[]int{2, 3, 1}, []int{3, 1}, []int{1, 0}, func(n, c, i int) int { return c }},
		{[]int{2, 3, 7}, []int{3, 7}, []int{1, 3}, func(n, c, i int) int { return c + 3*i }},
	} {
		g := newGather(c.space, c.sizes, c.strides)
		total := c.space[0] * c.space[1] * c.space[2]
		want := make([]float32, total)
		for k := range want {
			i := k % c.space[2]
			ch := k / c.space[2] % c.space[1]
			want[k] = src[c.at(k/(c.space[1]*c.space[2]), ch, i)]
		}
		for lo := 0; lo < total; lo += 5 {
			for _, n := range []int{1, 15, 16, 17, 40, total - lo} {
				if lo+n > total {
					continue
				}
				dst := make([]float32, n)
				gatherInto(&g, dst, src, 0, lo)
				for j, v := range dst {
					if v != want[lo+j] {
						t.Fatalf("space %v, lo %d, n %d: element %d = %v, want %v", c.space, lo, n, j, v, want[lo+j])
					}
				}
			}
		}
	}
}
