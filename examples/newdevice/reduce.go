package newdevice

import (
	"math"
	"sort"

	gt "github.com/goaten/goaten"
	"github.com/goaten/goaten/device"
	"gonum.org/v1/gonum/floats"
)

// Reductions, scans, softmax and sorting.

// wrapDim turns a possibly negative dim into an index (0-d tensors have one
// pseudo-dim).
func wrapDim(d, rank int) int {
	if d < 0 {
		d += max(rank, 1)
	}
	return d
}

// groups lists, for each output element of a reduction over dims (all dims
// when dims is empty), the input's flat indices it reduces, in row-major
// order.
func groups(sizes []int, dims []int) [][]int {
	if len(sizes) == 0 {
		return [][]int{{0}}
	}
	red := make([]bool, len(sizes))
	for _, d := range dims {
		red[wrapDim(d, len(sizes))] = true
	}
	if len(dims) == 0 {
		for i := range red {
			red[i] = true
		}
	}
	// Output strides over the kept dims.
	ost := make([]int, len(sizes))
	nout := 1
	for i := len(sizes) - 1; i >= 0; i-- {
		if !red[i] {
			ost[i] = nout
			nout *= sizes[i]
		}
	}
	out := make([][]int, nout)
	n := numel(sizes)
	idx := make([]int, len(sizes))
	o := 0
	for k := 0; k < n; k++ {
		out[o] = append(out[o], k)
		for d := len(sizes) - 1; d >= 0; d-- {
			idx[d]++
			o += ost[d]
			if idx[d] < sizes[d] {
				break
			}
			o -= idx[d] * ost[d]
			idx[d] = 0
		}
	}
	return out
}

// reduce applies f to the values of each group of input 0 over dims, in the
// output's dtype.
func reduce(c *device.Call, dims []int, f func(v []float64) float64) Array {
	x := c.Tensor(0)
	out := c.Out[0]
	v := operand(c, 0, out.DType(), x.Sizes())
	if out.DType() == gt.Bool {
		v = vals(x)
	}
	gs := groups(x.Sizes(), dims)
	r := make([]float64, len(gs))
	buf := []float64{}
	for i, g := range gs {
		buf = buf[:0]
		for _, k := range g {
			buf = append(buf, v[k])
		}
		r[i] = f(buf)
	}
	return store(out, r)
}

func sum(v []float64) float64 { return floats.Sum(v) }

func mean(v []float64) float64 { return floats.Sum(v) / float64(len(v)) }

func prod(v []float64) float64 {
	p := 1.0
	for _, x := range v {
		p *= x
	}
	return p
}

func maxOf(v []float64) float64 {
	if len(v) == 0 {
		return math.Inf(-1)
	}
	m := v[0]
	for _, x := range v {
		if x != x {
			return x
		}
		m = math.Max(m, x)
	}
	return m
}

func minOf(v []float64) float64 {
	if len(v) == 0 {
		return math.Inf(1)
	}
	m := v[0]
	for _, x := range v {
		if x != x {
			return x
		}
		m = math.Min(m, x)
	}
	return m
}

func anyOf(v []float64) float64 {
	for _, x := range v {
		if x != 0 {
			return 1
		}
	}
	return 0
}

// argBest returns the position of the first maximum (better(a, b): a beats
// b); NaN beats everything.
func argBest(v []float64, better func(a, b float64) bool) int {
	best := 0
	for i, x := range v {
		if v[best] != v[best] {
			break
		}
		if x != x || better(x, v[best]) {
			best = i
		}
	}
	return best
}

func greater(a, b float64) bool { return a > b }
func less(a, b float64) bool    { return a < b }

func variance(correction float64) func(v []float64) float64 {
	return func(v []float64) float64 {
		m := mean(v)
		s := 0.0
		for _, x := range v {
			s += (x - m) * (x - m)
		}
		return s / math.Max(0, float64(len(v))-correction)
	}
}

// dimsArg reads an int[]? dim argument; an int argument is one dim.
func dimsArg(c *device.Call, i int) []int {
	switch x := c.Args[i].(type) {
	case []int:
		return x
	case int:
		return []int{x}
	}
	return nil
}

func reductions() table {
	t := table{}
	t.add(func(c *device.Call) any { return reduce(c, dimsArg(c, 1), sum) }, "aten::sum.dim_IntList")
	t.add(func(c *device.Call) any { return reduce(c, nil, mean) }, "aten::mean.default")
	t.add(func(c *device.Call) any { return reduce(c, dimsArg(c, 1), mean) }, "aten::mean.dim")
	t.add(func(c *device.Call) any { return reduce(c, nil, prod) }, "aten::prod.default")
	t.add(func(c *device.Call) any { return reduce(c, dimsArg(c, 1), prod) }, "aten::prod.dim_int")
	t.add(func(c *device.Call) any { return reduce(c, dimsArg(c, 1), maxOf) }, "aten::amax.default")
	t.add(func(c *device.Call) any { return reduce(c, dimsArg(c, 1), minOf) }, "aten::amin.default")
	t.add(func(c *device.Call) any { return reduce(c, nil, anyOf) }, "aten::any.default")
	t.add(func(c *device.Call) any { return reduce(c, dimsArg(c, 1), anyOf) }, "aten::any.dim", "aten::any.dims")
	t.add(func(c *device.Call) any {
		corr := 1.0
		if s, ok := c.Scalar(2); ok {
			corr = s.Float64()
		}
		return reduce(c, dimsArg(c, 1), variance(corr))
	}, "aten::var.correction")
	t.add(func(c *device.Call) any {
		return reduce(c, dimsArg(c, 1), variance(b2f(c.Bool(2, true))))
	}, "aten::var.dim")
	arg := func(better func(a, b float64) bool) device.Lowering {
		return func(c *device.Call) any {
			x := c.Tensor(0)
			var gs [][]int
			if c.Args[1] == nil {
				gs = groups([]int{x.Numel()}, nil)
			} else {
				gs = groups(x.Sizes(), dimsArg(c, 1))
			}
			v := vals(x)
			r := make([]float64, len(gs))
			buf := []float64{}
			for i, g := range gs {
				buf = buf[:0]
				for _, k := range g {
					buf = append(buf, v[k])
				}
				r[i] = float64(argBest(buf, better))
			}
			return store(c.Out[0], r)
		}
	}
	t.add(arg(greater), "aten::argmax.default")
	t.add(arg(less), "aten::argmin.default")
	minmax := func(better func(a, b float64) bool) device.Lowering {
		return func(c *device.Call) any {
			x := c.Tensor(0)
			v := vals(x)
			gs := groups(x.Sizes(), dimsArg(c, 1))
			vs, is := make([]float64, len(gs)), make([]float64, len(gs))
			buf := []float64{}
			for i, g := range gs {
				buf = buf[:0]
				for _, k := range g {
					buf = append(buf, v[k])
				}
				j := argBest(buf, better)
				vs[i], is[i] = buf[j], float64(j)
			}
			return []any{store(c.Out[0], vs), store(c.Out[1], is)}
		}
	}
	t.add(minmax(greater), "aten::max.dim")
	t.add(minmax(less), "aten::min.dim")
	t.add(cumsum, "aten::cumsum.default")
	t.add(softmax(false), "aten::_softmax.default")
	t.add(softmax(true), "aten::_log_softmax.default")
	t.add(sortOp, "aten::sort.default")
	t.add(topk, "aten::topk.default")
	return t
}

// lines calls f with the flat indices of every 1-d line of a tensor of the
// given sizes along dim.
func lines(sizes []int, dim int, f func(idx []int)) {
	dim = wrapDim(dim, len(sizes))
	if len(sizes) == 0 {
		f([]int{0})
		return
	}
	n := sizes[dim]
	inner := numel(sizes[dim+1:])
	outer := numel(sizes[:dim])
	idx := make([]int, n)
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; i++ {
			for j := range idx {
				idx[j] = (o*n+j)*inner + i
			}
			f(idx)
		}
	}
}

func cumsum(c *device.Call) any {
	x, out := c.Tensor(0), c.Out[0]
	v := operand(c, 0, out.DType(), x.Sizes())
	r := make([]float64, len(v))
	lines(x.Sizes(), c.Int(1, 0), func(idx []int) {
		s := 0.0
		for _, k := range idx {
			s += v[k]
			r[k] = round(out.DType(), s)
		}
	})
	return store(out, r)
}

func softmax(log bool) device.Lowering {
	return func(c *device.Call) any {
		x, out := c.Tensor(0), c.Out[0]
		v := vals(x)
		r := make([]float64, len(v))
		lines(x.Sizes(), c.Int(1, 0), func(idx []int) {
			m := math.Inf(-1)
			for _, k := range idx {
				m = math.Max(m, v[k])
			}
			s := 0.0
			for _, k := range idx {
				s += math.Exp(v[k] - m)
			}
			for _, k := range idx {
				if log {
					r[k] = v[k] - m - math.Log(s)
				} else {
					r[k] = math.Exp(v[k]-m) / s
				}
			}
		})
		return store(out, r)
	}
}

// sortLine orders the positions of vals stably, NaN greatest.
func sortLine(v []float64, descending bool) []int {
	p := make([]int, len(v))
	for i := range p {
		p[i] = i
	}
	lessF := func(a, b float64) bool {
		if a != a {
			return false
		}
		return b != b || a < b
	}
	sort.SliceStable(p, func(i, j int) bool {
		a, b := v[p[i]], v[p[j]]
		if descending {
			return lessF(b, a)
		}
		return lessF(a, b)
	})
	return p
}

func sortOp(c *device.Call) any {
	x := c.Tensor(0)
	v := vals(x)
	vs, is := make([]float64, len(v)), make([]float64, len(v))
	lines(x.Sizes(), c.Int(1, -1), func(idx []int) {
		line := make([]float64, len(idx))
		for j, k := range idx {
			line[j] = v[k]
		}
		for j, p := range sortLine(line, c.Bool(2, false)) {
			vs[idx[j]], is[idx[j]] = line[p], float64(p)
		}
	})
	return []any{store(c.Out[0], vs), store(c.Out[1], is)}
}

func topk(c *device.Call) any {
	x := c.Tensor(0)
	// The output's metadata says how many (k) to keep along dim.
	dim, largest := c.Int(2, -1), c.Bool(3, true)
	v := vals(x)
	out := c.Out[0]
	vs, is := make([]float64, out.Numel()), make([]float64, out.Numel())
	var oidx [][]int
	lines(out.Sizes(), dim, func(idx []int) { oidx = append(oidx, append([]int(nil), idx...)) })
	li := 0
	lines(x.Sizes(), dim, func(idx []int) {
		line := make([]float64, len(idx))
		for j, q := range idx {
			line[j] = v[q]
		}
		p := sortLine(line, largest)
		for j, o := range oidx[li] {
			vs[o], is[o] = line[p[j]], float64(p[j])
		}
		li++
	})
	return []any{store(out, vs), store(c.Out[1], is)}
}
