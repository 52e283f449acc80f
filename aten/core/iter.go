package core

// TensorIterator's dimension order and coalescing, from sizes and strides
// alone: empty_like's strides for a non-dense input follow the order, and
// device/cpu replays 1.13's loop structure with it where the CPU's rounding
// depends on it (cascade sums, the vectorized loop's elements).

// IterDimOrder is TensorIterator's reorder_dimensions: the dims of shape,
// fastest-varying first, by an insertion sort (last dim first) in which the
// first operand whose strides tell two dims apart decides (a stride of 0
// tells nothing; equal strides put the larger dim outside).
func IterDimOrder(shape []int, strides ...[]int) []int {
	return iterDimOrder(shape, false, strides)
}

// iterDimOrder is IterDimOrder; for a reduction (the first operand the
// output, of stride 0 on the reduced dims) the reduced dims go first.
func iterDimOrder(shape []int, reduction bool, strides [][]int) []int {
	rank := len(shape)
	perm := make([]int, rank)
	for i := range perm {
		perm[i] = rank - 1 - i
	}
	// 1 if dims d0 and d1 must swap (d1 varies faster), -1 if they are in
	// order, 0 if no operand tells.
	shouldSwap := func(d0, d1 int) int {
		for i, st := range strides {
			s0, s1 := st[d0], st[d1]
			if reduction && i == 0 && (s0 == 0) != (s1 == 0) {
				if s1 == 0 {
					return 1
				}
				return -1
			}
			switch {
			case s0 == 0 || s1 == 0:
				continue
			case s0 < s1:
				return -1
			case s0 > s1:
				return 1
			}
			if shape[d0] > shape[d1] {
				return 1
			}
		}
		return 0
	}
	for i := 1; i < rank; i++ {
		d1 := i
		for d0 := i - 1; d0 >= 0; d0-- {
			c := shouldSwap(perm[d0], perm[d1])
			if c > 0 {
				perm[d0], perm[d1] = perm[d1], perm[d0]
				d1 = d0
			} else if c < 0 {
				break
			}
		}
	}
	return perm
}

// IterDims is TensorIterator's loop over shape: its dims in iterDimOrder,
// then adjacent dims coalesced where every operand's strides chain (a
// size-1 dim always merges, its strides replaced by the other dim's). It
// returns the loop's sizes, fastest first, and each operand's strides
// along them; reduction is as in iterDimOrder.
func IterDims(shape []int, reduction bool, strides ...[]int) ([]int, [][]int) {
	perm := iterDimOrder(shape, reduction, strides)
	sizes := make([]int, 0, len(perm))
	st := make([][]int, len(strides))
	for _, d := range perm {
		n := len(sizes)
		merge := n > 0
		if merge && sizes[n-1] != 1 && shape[d] != 1 {
			for i, s := range strides {
				if sizes[n-1]*st[i][n-1] != s[d] {
					merge = false
					break
				}
			}
		}
		switch {
		case !merge:
			sizes = append(sizes, shape[d])
			for i, s := range strides {
				st[i] = append(st[i], s[d])
			}
		case sizes[n-1] == 1:
			sizes[n-1] = shape[d]
			for i, s := range strides {
				st[i][n-1] = s[d]
			}
		default:
			sizes[n-1] *= shape[d]
		}
	}
	return sizes, st
}
