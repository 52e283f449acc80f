package cpu

import (
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/internal/parallel"
	"github.com/goaten/goaten/tensor"
)

// A tile program runs one fusion group: its iteration space is R rows of N
// elements (N = 1 for a group of pointwise ops alone; the trailing dims a
// reduction or row op reduces otherwise), cut into tiles of T rows. Each
// value of the group is either full (N elements per row) or a row value
// (one per row). A tile runs the group's instructions in order, each one
// package asm kernel call over the tile (or one per row), on registers —
// scratch slices of a tile's size, one set per worker — or directly on the
// inputs and outputs: contiguous inputs are read in place, the others
// gathered into a register, and the values the rest of the graph reads are
// written straight into their result tensors.

type vkind uint8

const (
	full vkind = iota
	rowv
	colv // a middle reduction's result: one value per kept element, written after the last tile
)

// where a location is.
type where uint8

const (
	wReg      where = iota // a register of the worker
	wIn                    // an input read in place
	wOut                   // an output written in place
	wNone                  // nothing (a discarded layer_norm statistic)
	wScratch               // the worker's spare row register
	wPeriodic              // a periodic input (iBinP reads it; build time only)
)

type loc struct {
	at   where
	kind vkind
	idx  int
}

type opcode uint8

const (
	iUnary      opcode = iota // f1(dst, a)
	iUnaryGo                  // dst[i] = float32(fgo(float64(a[i])))
	iBin                      // f2(dst, a, b)
	iBinS                     // fs(dst, a, scalar s)
	iBinRow                   // per row r: fs(dst_r, a_r, b[r]) (b a row value)
	iExpand                   // dst_r = a[r] repeated (a a row value)
	iAxpy                     // dst = al·b + a
	iGather                   // dst = input in gathered
	iReduce                   // dst[r] = red(a_r)
	iSoftmax                  // dst_r = softmax(a_r)
	iLogSoftmax               // dst_r = log_softmax(a_r)
	iLayerNorm                // dst_r = layer_norm(a_r, w, b); mean[r], rstd[r]
	iClamp                    // dst = min(max(a, lo), hi)
	iBinP                     // f2(dst, a, input in) for an input repeating with period P (swapped: f2(dst, in, a))
	iLoad                     // dst = input in (float16, bfloat16 or float64) as float32
	iStoreN                   // output dst.idx (float16, bfloat16 or float64) = a converted
	iWhere                    // dst = cond (bool input in) ? a (or scalar s) : b (or scalar s2)
	iBinRun                   // per run of one value of input in (a broadcast): fs(dst_run, a_run, value)
	iMidSum                   // rows of middle sum in: [r] = asm.SumF32(a_r) (the blocks are added after the last tile)
)

type instr struct {
	op        opcode
	dst, a, b loc
	d2, d3    loc // layer_norm's mean and rstd
	s         int // scalar index (iBinS)
	in        int // iGather: input; iLayerNorm: weight input (-1: none)
	in2       int // iLayerNorm: bias input (-1: none)
	f1        func(d, x []float32)
	fgo       func(float64) float64
	f2        func(d, x, y []float32)
	fs        func(d, x []float32, s float32)
	al        float32
	red       redOp
	eps       float32
	lo, hi    float32
	swap      bool         // iBinP: the input is the first operand
	dtype     tensor.DType // iLoad, iStoreN: the other dtype
	s2        int          // iWhere: b's scalar
	cost      float64      // iUnary: the kernel's estimated ns per element (tilesize.go)
	sa, sb    bool         // iWhere: a, b are scalars
	text      string
}

// progIn is an input tensor of a group.
type progIn struct {
	slot  int
	kind  vkind // the space it is read over
	mode  inMode
	sizes []int // as planned (checked at run time)
	strd  []int
	g     gatherSpec
	P     int          // mPeriodic
	dtype tensor.DType // of the tensor (mInPlace may convert from float16, bfloat16, float64)
	node  string
}

type inMode uint8

const (
	mInPlace  inMode = iota // contiguous, read at the tile's range
	mGather                 // gathered into a register
	mScalar                 // one element, read once per call
	mWhole                  // a layer_norm weight or bias, read whole
	mPeriodic               // contiguous, repeating with period P over the space (a bias, a mask)
)

// progOut is a value of the group the graph reads.
type progOut struct {
	slot  int
	kind  vkind
	sizes []int
	dtype tensor.DType
	fresh bool // a graph output: new memory, never the arena's
	node  string
	// header ≥ 0: the output's header is the arena's from call to call
	// (arena.headers[header]), given each call's storage (keptHeader).
	header int
}

// tileProg is a compiled group.
type tileProg struct {
	shape     []int
	R, N, T   int
	ins       []progIn
	outs      []progOut
	consts    []float32 // the scalar table (constants; zero where read at run time)
	rtScalars [][2]int  // scalar-table index and input of each scalar read at run time
	code      []instr
	nfull     int
	nrow      int
	where     bool // has iWhere (workers need a mask buffer)
	mids      []midSum
	members   []string
}

// midSum is a middle reduction (kMidSum) of a group: its rows' sums, one
// per row of the space (outer blocks of c rows), are kept in float64 and,
// once every tile has run, added block after block into its output, as
// device/cpu's sumMidF32 adds them.
type midSum struct {
	out, outer, c int
}

// finish writes the groups' middle reductions from their rows' sums.
func (g *tileProg) finish(f *frame) {
	for i, m := range g.mids {
		rows, out := f.mid[i], f.out[m.out]
		for j := range m.c {
			acc := 0.0
			for o := range m.outer {
				acc += rows[o*m.c+j]
			}
			out[j] = float32(acc)
		}
	}
}

func (g *tileProg) fullLen() int { return g.T * g.N }

// frame is a group's per-call state: its inputs and outputs as slices.
type frame struct {
	in      [][]float32 // in place and whole: the tensor's elements; gather: its storage
	inOff   []int       // gather: the storage offset
	out     [][]float32
	scalars []float32
	in16    [][]uint16 // float16 and bfloat16 inputs and outputs
	out16   [][]uint16
	in64    [][]float64 // float64 ones
	out64   [][]float64
	in8     [][]uint8   // bool inputs: in place, the elements; gathered, the storage
	mid     [][]float64 // each middle reduction's row sums (R of them)
}

// worker is one goroutine's registers.
type worker struct {
	slab    []float32
	full    [][]float32
	row     [][]float32
	scratch []float32
	mask    []uint8 // a gathered condition (iWhere)
	splat   [2][]float32
	splatV  [2]float32 // what splat[k] holds, while len(splat[k]) > 0
}

// splatOf returns n copies of v from w's k-th splat buffer, refilled only
// when v's bits or a longer n ask for it (a where's scalar operand is the
// same tile after tile).
func (w *worker) splatOf(k int, v float32, n int) []float32 {
	b := w.splat[k]
	if len(b) >= n && math.Float32bits(w.splatV[k]) == math.Float32bits(v) {
		return b[:n]
	}
	if cap(b) < n {
		b = make([]float32, n)
	}
	b = b[:n]
	asm.Fill(b, v)
	w.splat[k], w.splatV[k] = b, v
	return b
}

// bind carves g's registers out of w's slab.
func (w *worker) bind(g *tileProg) {
	fl, rl := g.fullLen(), g.T
	need := g.nfull*fl + (g.nrow+1)*rl
	if len(w.slab) < need {
		w.slab = make([]float32, need)
	}
	w.full, w.row = w.full[:0], w.row[:0]
	p := 0
	for range g.nfull {
		w.full = append(w.full, w.slab[p:p+fl:p+fl])
		p += fl
	}
	for range g.nrow {
		w.row = append(w.row, w.slab[p:p+rl:p+rl])
		p += rl
	}
	w.scratch = w.slab[p : p+rl : p+rl]
	if g.where && len(w.mask) < fl {
		w.mask = make([]uint8, fl)
	}
}

// tileState is one tile: rows r0..r1.
type tileState struct {
	f      *frame
	w      *worker
	r0, r1 int
	lo, hi int // element range
}

func (t *tileState) slice(l loc) []float32 {
	switch l.at {
	case wReg:
		if l.kind == full {
			return t.w.full[l.idx][:t.hi-t.lo]
		}
		return t.w.row[l.idx][:t.r1-t.r0]
	case wIn:
		if l.kind == full {
			return t.f.in[l.idx][t.lo:t.hi]
		}
		return t.f.in[l.idx][t.r0:t.r1]
	case wOut:
		if l.kind == full {
			return t.f.out[l.idx][t.lo:t.hi]
		}
		return t.f.out[l.idx][t.r0:t.r1]
	case wScratch:
		return t.w.scratch[:t.r1-t.r0]
	}
	return nil
}

// parallelMin is the smallest group (in elements) whose tiles are shared
// among the cores.
const parallelMin = 1 << 15

// run runs every tile of g, on ws (at least one worker; more when the
// group is big enough to share).
func (g *tileProg) run(f *frame, ws func(n int) []*worker) {
	nt := (g.R + g.T - 1) / g.T
	p := 1
	if g.R*g.N >= parallelMin && nt > 1 {
		p = min(parallel.Workers(), nt)
	}
	w := ws(p)
	if p == 1 {
		w[0].bind(g)
		for t := range nt {
			g.tile(f, w[0], t)
		}
		g.finish(f)
		return
	}
	var next atomic.Int64
	parallel.For(p, func(i int) {
		wi := w[i]
		wi.bind(g)
		for {
			t := int(next.Add(1) - 1)
			if t >= nt {
				return
			}
			g.tile(f, wi, t)
		}
	})
	g.finish(f)
}

// tile runs tile number t.
func (g *tileProg) tile(f *frame, w *worker, t int) {
	r0 := t * g.T
	r1 := min(g.R, r0+g.T)
	ts := tileState{f: f, w: w, r0: r0, r1: r1, lo: r0 * g.N, hi: r1 * g.N}
	N := g.N
	for i := range g.code {
		in := &g.code[i]
		switch in.op {
		case iUnary:
			in.f1(ts.slice(in.dst), ts.slice(in.a))
		case iUnaryGo:
			d, a := ts.slice(in.dst), ts.slice(in.a)
			for j, v := range a {
				d[j] = float32(in.fgo(float64(v)))
			}
		case iBin:
			in.f2(ts.slice(in.dst), ts.slice(in.a), ts.slice(in.b))
		case iBinS:
			in.fs(ts.slice(in.dst), ts.slice(in.a), f.scalars[in.s])
		case iBinRow:
			d, a, b := ts.slice(in.dst), ts.slice(in.a), ts.slice(in.b)
			for r, v := range b {
				in.fs(d[r*N:(r+1)*N], a[r*N:(r+1)*N], v)
			}
		case iExpand:
			d, a := ts.slice(in.dst), ts.slice(in.a)
			for r, v := range a {
				row := d[r*N : (r+1)*N]
				for j := range row {
					row[j] = v
				}
			}
		case iBinP:
			d, a := ts.slice(in.dst), ts.slice(in.a)
			p := &g.ins[in.in]
			src, off, P := f.in[in.in], f.inOff[in.in], p.P
			lo := ts.lo
			if p.kind == rowv {
				lo = ts.r0
			}
			for j := 0; j < len(d); {
				pos := (lo + j) % P
				run := min(P-pos, len(d)-j)
				b := src[off+pos : off+pos+run]
				if in.swap {
					in.f2(d[j:j+run], b, a[j:j+run])
				} else {
					in.f2(d[j:j+run], a[j:j+run], b)
				}
				j += run
			}
		case iLoad:
			lo, hi := ts.lo, ts.hi
			if in.dst.kind == rowv {
				lo, hi = ts.r0, ts.r1
			}
			d := ts.slice(in.dst)
			switch in.dtype {
			case tensor.Float16:
				asm.F16ToF32(d, f.in16[in.in][lo:hi])
			case tensor.BFloat16:
				asm.BF16ToF32(d, f.in16[in.in][lo:hi])
			default:
				for j, v := range f.in64[in.in][lo:hi] {
					d[j] = float32(v)
				}
			}
		case iStoreN:
			lo, hi := ts.lo, ts.hi
			if in.a.kind == rowv {
				lo, hi = ts.r0, ts.r1
			}
			a := ts.slice(in.a)
			switch in.dtype {
			case tensor.Float16:
				asm.F32ToF16(f.out16[in.dst.idx][lo:hi], a)
			case tensor.BFloat16:
				asm.F32ToBF16(f.out16[in.dst.idx][lo:hi], a)
			default:
				d := f.out64[in.dst.idx][lo:hi]
				for j, v := range a {
					d[j] = float64(v)
				}
			}
		case iWhere:
			d := ts.slice(in.dst)
			p := &g.ins[in.in]
			lo, hi := ts.lo, ts.hi
			if in.dst.kind == rowv {
				lo, hi = ts.r0, ts.r1
			}
			var c []uint8
			if p.mode == mInPlace {
				c = f.in8[in.in][lo:hi]
			} else {
				c = w.mask[:len(d)]
				gatherInto(&p.g, c, f.in8[in.in], f.inOff[in.in], lo)
			}
			selectRun(d, c, in, &ts, f.scalars)
		case iClamp:
			asm.ClampScalarF32(ts.slice(in.dst), ts.slice(in.a), in.lo, in.hi)
		case iAxpy:
			asm.AxpyF32(ts.slice(in.dst), in.al, ts.slice(in.b), ts.slice(in.a))
		case iGather:
			p := &g.ins[in.in]
			lo, d := ts.lo, ts.slice(in.dst)
			if p.kind == rowv {
				lo = ts.r0
			}
			p.g.gather(d, f.in[in.in], f.inOff[in.in], lo)
		case iBinRun:
			d, a := ts.slice(in.dst), ts.slice(in.a)
			p := &g.ins[in.in]
			lo := ts.lo
			if in.dst.kind == rowv {
				lo = ts.r0
			}
			L := p.g.sizes[len(p.g.sizes)-1]
			var v [1]float32
			for j := 0; j < len(d); {
				run := min(L-(lo+j)%L, len(d)-j)
				p.g.gather(v[:], f.in[in.in], f.inOff[in.in], lo+j)
				in.fs(d[j:j+run], a[j:j+run], v[0])
				j += run
			}
		case iMidSum:
			a, rows := ts.slice(in.a), f.mid[in.in][r0:r1]
			for r := range rows {
				rows[r] = asm.SumF32(a[r*N : (r+1)*N])
			}
		case iReduce:
			d, a := ts.slice(in.dst), ts.slice(in.a)
			for r := range d {
				d[r] = reduceRow(in.red, a[r*N:(r+1)*N])
			}
		case iSoftmax:
			d, a := ts.slice(in.dst), ts.slice(in.a)
			for r := 0; r < len(d); r += N {
				asm.SoftmaxF32(d[r:r+N], a[r:r+N])
			}
		case iLogSoftmax:
			d, a := ts.slice(in.dst), ts.slice(in.a)
			for r := 0; r < len(d); r += N {
				asm.LogSoftmaxF32(d[r:r+N], a[r:r+N])
			}
		case iLayerNorm:
			d, a := ts.slice(in.dst), ts.slice(in.a)
			mean, rstd := ts.slice(in.d2), ts.slice(in.d3)
			var wt, bs []float32
			if in.in >= 0 {
				wt = f.in[in.in]
			}
			if in.in2 >= 0 {
				bs = f.in[in.in2]
			}
			for r := range mean {
				mean[r], rstd[r] = asm.LayerNormF32(d[r*N:(r+1)*N], a[r*N:(r+1)*N], wt, bs, in.eps)
			}
		}
	}
}

// reduceRow is one row of a reduction as device/cpu computes it for a
// contiguous float32 row of at most 65536 elements (one piece): the sum in
// float64 by asm.SumF32, the mean as that sum rounded to float32 and
// divided in float64, amax/amin by AmaxF32/AminF32 for rows of 32 and
// more, else by MaxF32/MinF32's value.
func reduceRow(r redOp, x []float32) float32 {
	switch r {
	case rSum:
		return float32(asm.SumF32(x))
	case rMean:
		return float32(float64(float32(asm.SumF32(x))) / float64(len(x)))
	case rAmax:
		if len(x) >= 32 {
			return asm.AmaxF32(x)
		}
		v, _ := asm.MaxF32(x)
		return v
	default:
		if len(x) >= 32 {
			return asm.AminF32(x)
		}
		v, _ := asm.MinF32(x)
		return v
	}
}

// String lists the program: its space, inputs, outputs and instructions.
func (g *tileProg) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "group %v: %d rows of %d, %d rows a tile, %d+%d registers: %s\n", g.shape, g.R, g.N, g.T, g.nfull, g.nrow, strings.Join(g.members, " "))
	for i, in := range g.ins {
		mode := [...]string{"in place", "gathered", "scalar", "whole", "periodic"}[in.mode]
		fmt.Fprintf(&b, "  in%d %s %v (%s)\n", i, in.node, in.sizes, mode)
	}
	for i, o := range g.outs {
		fresh := ""
		if o.fresh {
			fresh = " (result)"
		}
		fmt.Fprintf(&b, "  out%d %s %v%s\n", i, o.node, o.sizes, fresh)
	}
	for _, in := range g.code {
		fmt.Fprintf(&b, "    %s\n", in.text)
	}
	return b.String()
}

func (l loc) String() string {
	k := ""
	if l.kind == rowv {
		k = "r"
	}
	switch l.at {
	case wReg:
		return fmt.Sprintf("%sreg%d", k, l.idx)
	case wIn:
		return fmt.Sprintf("in%d", l.idx)
	case wOut:
		return fmt.Sprintf("out%d", l.idx)
	case wScratch:
		return "rscratch"
	}
	return "_"
}

// selectRun is where's selection over a tile: raw bits, as device/cpu's
// asm.Select32, from tensors or scalars (a scalar as a run of its copies).
func selectRun(d []float32, c []uint8, in *instr, ts *tileState, scalars []float32) {
	var a, b []float32
	if in.sa {
		a = ts.w.splatOf(0, scalars[in.s], len(d))
	} else {
		a = ts.slice(in.a)
	}
	if in.sb {
		b = ts.w.splatOf(1, scalars[in.s2], len(d))
	} else {
		b = ts.slice(in.b)
	}
	asm.Select32(u32(d), c, u32(a), u32(b))
}

// u32 views float32s as their bits.
func u32(x []float32) []uint32 {
	if len(x) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&x[0])), len(x))
}
