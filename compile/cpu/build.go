package cpu

import (
	"fmt"
	"slices"

	"github.com/goaten/goaten/compile/fx"
	"github.com/goaten/goaten/tensor"
)

// builder turns a group into a tile program: operands resolved (in place,
// gathered, scalars), one instruction per member, registers assigned by
// liveness inside the group (a value dying at an instruction lends its
// register to that instruction's result), and the values the graph reads
// written into their outputs.
type builder struct {
	p    *partition
	g    *group
	prog *tileProg
	mat  map[*fx.Node]bool // members the graph reads outside the group
	res  map[*fx.Node]bool // members that are graph outputs
	slot func(*fx.Node) int

	loc      map[*fx.Node]loc // each member value's location
	last     map[*fx.Node]int // member index of a value's last read in the group
	extLast  map[string]int   // the same for gathered inputs, by key
	extLoc   map[string]loc
	inIdx    map[string]int
	freeFull []int
	freeRow  []int
	scal     []scalarEntry

	cur     int              // the member being compiled
	outIdx  map[*fx.Node]int // each read-outside member's output
	outDef  map[int]int      // output -> member index of the instruction writing it
	outLate map[int]bool     // output written by an instruction that reads its operand after writing (log_softmax)
	outBusy map[int]bool     // output slice holding a temporary
}

type scalarEntry struct {
	c  float32
	in int // -1: the constant c
}

// alloc gives a value of kind k that lives only in the current
// instruction a location.
func (b *builder) alloc(k vkind) loc { return b.allocUntil(k, b.cur) }

// allocUntil gives a value of kind k whose last read is member until a
// location: a full value may borrow the slice of an output that is written
// only after that (so that a chain computes in its result's memory, which
// the first pass over a tile brings into the cache), else a register.
func (b *builder) allocUntil(k vkind, until int) loc {
	if k == full {
		best := -1
		for o, def := range b.outDef {
			if b.outBusy[o] || def <= b.cur || until > def || (until == def && b.outLate[o]) || b.prog.outs[o].kind != full ||
				b.prog.outs[o].dtype != tensor.Float32 {
				continue
			}
			if best < 0 || def < b.outDef[best] || (def == b.outDef[best] && o < best) {
				best = o
			}
		}
		if best >= 0 {
			b.outBusy[best] = true
			return loc{at: wOut, kind: full, idx: best}
		}
	}
	if k == full {
		if n := len(b.freeFull); n > 0 {
			r := b.freeFull[n-1]
			b.freeFull = b.freeFull[:n-1]
			return loc{at: wReg, kind: full, idx: r}
		}
		b.prog.nfull++
		return loc{at: wReg, kind: full, idx: b.prog.nfull - 1}
	}
	if n := len(b.freeRow); n > 0 {
		r := b.freeRow[n-1]
		b.freeRow = b.freeRow[:n-1]
		return loc{at: wReg, kind: rowv, idx: r}
	}
	b.prog.nrow++
	return loc{at: wReg, kind: rowv, idx: b.prog.nrow - 1}
}

func (b *builder) release(l loc) {
	if l.at == wOut {
		b.outBusy[l.idx] = false
		return
	}
	if l.at != wReg {
		return
	}
	if l.kind == full {
		if !slices.Contains(b.freeFull, l.idx) {
			b.freeFull = append(b.freeFull, l.idx)
		}
		return
	}
	if !slices.Contains(b.freeRow, l.idx) {
		b.freeRow = append(b.freeRow, l.idx)
	}
}

// space is the iteration space a member's operands are read over: the
// member's own result shape, the group's for reductions and row ops.
func (b *builder) space(m *fx.Node) []int {
	if sp := b.g.specs[m]; sp.kind == kReduce || sp.kind == kRowOp || sp.kind == kMidSum {
		return b.g.shape
	}
	v, _ := b.p.info(m)
	return v.sizes
}

// opKind is the kind of member m's operands.
func (b *builder) opKind(m *fx.Node) vkind {
	if sp := b.g.specs[m]; sp.kind == kReduce || sp.kind == kRowOp || sp.kind == kMidSum {
		return full
	}
	return b.g.kind[m]
}

// extKey names an external operand read over a space.
func extKey(n *fx.Node, k vkind, space []int) string {
	return fmt.Sprintf("%s/%d/%v", n.Name, k, space)
}

// external resolves an operand from outside the group for a member whose
// value has kind k and shape space; j is the member's index.
// With periodic set, an input that repeats along the space's outer dims
// (a bias, a mask broadcast over a batch) may come back as a wPeriodic
// location, read in place by iBinP.
func (b *builder) external(x *fx.Node, k vkind, space []int, j int, periodic bool) (l loc, scalar int, isScalar bool, code []instr) {
	v, _ := b.p.info(x)
	if readAsScalar(v, space) {
		b.prog.ins = append(b.prog.ins, progIn{slot: b.slot(x), kind: k, mode: mScalar, sizes: v.sizes, strd: v.strides, dtype: v.dtype, node: x.Name})
		b.scal = append(b.scal, scalarEntry{in: len(b.prog.ins) - 1})
		return loc{}, len(b.scal) - 1, true, nil
	}
	if v.dtype == tensor.Float32 && v.contiguous() && flatSame(v.sizes, space) {
		key := extKey(x, k, nil)
		i, ok := b.inIdx[key]
		if !ok {
			b.prog.ins = append(b.prog.ins, progIn{slot: b.slot(x), kind: k, mode: mInPlace, sizes: v.sizes, strd: v.strides, dtype: tensor.Float32, node: x.Name})
			i = len(b.prog.ins) - 1
			b.inIdx[key] = i
		}
		return loc{at: wIn, kind: k, idx: i}, 0, false, nil
	}
	key := extKey(x, k, space)
	if l, ok := b.extLoc[key]; ok {
		return l, 0, false, nil
	}
	g := newGather(space, v.sizes, v.strides)
	if periodic && v.dtype == tensor.Float32 && len(g.sizes) == 2 && g.strides[0] == 0 && g.strides[1] == 1 && g.sizes[1] >= minPeriod {
		key = extKey(x, k, space) + "/p"
		i, ok := b.inIdx[key]
		if !ok {
			b.prog.ins = append(b.prog.ins, progIn{slot: b.slot(x), kind: k, mode: mPeriodic, sizes: v.sizes, strd: v.strides,
				P: g.sizes[1], dtype: tensor.Float32, node: x.Name})
			i = len(b.prog.ins) - 1
			b.inIdx[key] = i
		}
		return loc{at: wPeriodic, kind: k, idx: i}, 0, false, nil
	}
	b.prog.ins = append(b.prog.ins, progIn{slot: b.slot(x), kind: k, mode: mGather, sizes: v.sizes, strd: v.strides,
		g: g, dtype: tensor.Float32, node: x.Name})
	l = b.allocUntil(k, max(j, b.extLast[key]))
	b.extLoc[key] = l
	in := instr{op: iGather, dst: l, in: len(b.prog.ins) - 1}
	in.text = fmt.Sprintf("%s = gather in%d", l, in.in)
	return l, 0, false, []instr{in}
}

// operand resolves member m's operand o (m has kind k).
func (b *builder) operand(m *fx.Node, o operand, k vkind, j int) (l loc, s int, isScalar bool) {
	return b.operandP(m, o, k, j, false)
}

// operandP is operand, which may give a periodic input when periodic is
// set.
func (b *builder) operandP(m *fx.Node, o operand, k vkind, j int, periodic bool) (l loc, s int, isScalar bool) {
	if o.node == nil {
		b.scal = append(b.scal, scalarEntry{c: o.c, in: -1})
		return loc{}, len(b.scal) - 1, true
	}
	if b.g.of(o.node) {
		return b.loc[o.node], 0, false
	}
	l, s, isScalar, code := b.external(o.node, k, b.space(m), j, periodic)
	b.prog.code = append(b.prog.code, code...)
	return l, s, isScalar
}

// minPeriod is the shortest period an input is read in place with (one
// kernel call per period in a tile); shorter ones are gathered.
const minPeriod = 256

// periodic enables periodic inputs (tests turn it off to check gathers).
var periodic = true

// dst gives member m's value a location: its output when the graph reads
// it, else a register.
func (b *builder) dst(m *fx.Node, k vkind) loc {
	if i, ok := b.outIdx[m]; ok {
		return loc{at: wOut, kind: k, idx: i}
	}
	if u, ok := b.last[m]; ok {
		return b.allocUntil(k, u)
	}
	return b.alloc(k)
}

// build compiles the group.
func (b *builder) build(tileElems int) (*tileProg, error) {
	g := b.g
	S := g.shape
	N := 1
	if g.k > 0 {
		N = g.rowLen()
	}
	R := tensor.Numel(S) / N
	b.prog = &tileProg{shape: S, R: R, N: N}
	b.loc, b.last = map[*fx.Node]loc{}, map[*fx.Node]int{}
	b.extLast, b.extLoc, b.inIdx = map[string]int{}, map[string]loc{}, map[string]int{}
	// Last reads, in member order.
	for j, m := range g.members {
		sp := g.specs[m]
		for _, o := range sp.ins {
			if o.node == nil {
				continue
			}
			if g.of(o.node) {
				b.last[o.node] = j
			} else {
				b.extLast[extKey(o.node, b.opKind(m), b.space(m))] = j
			}
		}
		b.prog.members = append(b.prog.members, m.Name)
	}
	items := map[*fx.Node][3]*fx.Node{}
	for _, m := range g.members {
		if sp := g.specs[m]; sp.kind == kItem {
			it := items[sp.ins[0].node]
			it[sp.item] = m
			items[sp.ins[0].node] = it
		}
	}
	// The outputs, and where each is written.
	b.outIdx, b.outDef, b.outLate, b.outBusy = map[*fx.Node]int{}, map[int]int{}, map[int]bool{}, map[int]bool{}
	at := map[*fx.Node]int{}
	for j, m := range g.members {
		at[m] = j
	}
	for j, m := range g.members {
		if !b.mat[m] {
			continue
		}
		v, _ := b.p.info(m)
		sp := g.specs[m]
		def := j
		if sp.kind == kItem {
			def = at[sp.ins[0].node]
		}
		i := len(b.prog.outs)
		b.prog.outs = append(b.prog.outs, progOut{slot: b.slot(m), kind: g.kind[m], sizes: v.sizes, dtype: v.dtype, fresh: b.res[m], node: m.Name})
		b.outIdx[m], b.outDef[i] = i, def
		b.outLate[i] = sp.kind == kRowOp && sp.row == oLogSoftmax
	}
	// dying releases the registers of the values whose last read is
	// member j.
	dying := func(j int) {
		for v, lj := range b.last {
			if lj == j {
				b.release(b.loc[v])
			}
		}
		for key, lj := range b.extLast {
			if lj == j {
				if l, ok := b.extLoc[key]; ok {
					b.release(l)
				}
			}
		}
	}
	for j, m := range g.members {
		sp := g.specs[m]
		k := g.kind[m]
		b.cur = j
		switch sp.kind {
		case kItem:
			continue // placed by its native_layer_norm
		case kUnary, kUnaryGo:
			a, _, _ := b.operand(m, sp.ins[0], k, j)
			dying(j)
			d := b.dst(m, k)
			b.loc[m] = d
			if sp.name == "clone" && d == a {
				break // already there: no copy onto itself
			}
			in := instr{op: iUnary, dst: d, a: a, f1: sp.f1, cost: unaryCost[costName(sp.name)]}
			if in.cost == 0 {
				in.cost = costBinaryOp
			}
			if sp.kind == kUnaryGo {
				in.op, in.f1, in.fgo = iUnaryGo, nil, sp.fgo
			}
			in.text = fmt.Sprintf("%s = %s(%s)", d, sp.name, a)
			b.prog.code = append(b.prog.code, in)
		case kLoad:
			x := sp.ins[0].node
			v, _ := b.p.info(x)
			key := extKey(x, k, nil)
			i, ok := b.inIdx[key]
			if !ok {
				b.prog.ins = append(b.prog.ins, progIn{slot: b.slot(x), kind: k, mode: mInPlace, sizes: v.sizes, strd: v.strides,
					dtype: v.dtype, node: x.Name})
				i = len(b.prog.ins) - 1
				b.inIdx[key] = i
			}
			dying(j)
			d := b.dst(m, k)
			b.prog.code = append(b.prog.code, instr{op: iLoad, dst: d, in: i, dtype: sp.dtype,
				text: fmt.Sprintf("%s = in%d from %s", d, i, sp.dtype)})
			b.loc[m] = d
		case kStore:
			a, _, _ := b.operand(m, sp.ins[0], k, j)
			dying(j)
			if oi, ok := b.outIdx[m]; ok {
				b.prog.code = append(b.prog.code, instr{op: iStoreN, dst: loc{at: wOut, kind: k, idx: oi}, a: a, dtype: sp.dtype,
					text: fmt.Sprintf("out%d = %s to %s", oi, a, sp.dtype)})
			}
			continue
		case kWhere:
			x, xs, xsc := b.operand(m, sp.ins[0], k, j)
			y, ys, ysc := b.operand(m, sp.ins[1], k, j)
			ci := b.condition(sp.cond, k, b.space(m))
			dying(j)
			d := b.dst(m, k)
			in := instr{op: iWhere, dst: d, a: x, b: y, s: xs, s2: ys, sa: xsc, sb: ysc, in: ci}
			an, bn := x.String(), y.String()
			if xsc {
				an = fmt.Sprintf("s%d", xs)
			}
			if ysc {
				bn = fmt.Sprintf("s%d", ys)
			}
			in.text = fmt.Sprintf("%s = where(in%d, %s, %s)", d, ci, an, bn)
			b.prog.code = append(b.prog.code, in)
			b.prog.where = true
			b.loc[m] = d
		case kClamp:
			a, _, _ := b.operand(m, sp.ins[0], k, j)
			dying(j)
			d := b.dst(m, k)
			b.prog.code = append(b.prog.code, instr{op: iClamp, dst: d, a: a, lo: sp.lo, hi: sp.hi,
				text: fmt.Sprintf("%s = clamp(%s, %v, %v)", d, a, sp.lo, sp.hi)})
			b.loc[m] = d
		case kAxpy:
			a, _, _ := b.operand(m, sp.ins[0], k, j)
			y, _, _ := b.operand(m, sp.ins[1], k, j)
			dying(j)
			d := b.dst(m, k)
			b.prog.code = append(b.prog.code, instr{op: iAxpy, dst: d, a: a, b: y, al: sp.alpha,
				text: fmt.Sprintf("%s = %v·%s + %s", d, sp.alpha, y, a)})
			b.loc[m] = d
		case kBinary:
			if in, ok := b.runBinary(m, sp, k, j); ok {
				dying(j)
				d := b.dst(m, k)
				in.dst = d
				in.text = fmt.Sprintf("%s = %s", d, in.text)
				b.prog.code = append(b.prog.code, in)
				b.loc[m] = d
				break
			}
			x, xs, xsc := b.operandP(m, sp.ins[0], k, j, true)
			y, ys, ysc := b.operandP(m, sp.ins[1], k, j, x.at != wPeriodic)
			var in instr
			var tmp *loc
			switch {
			case x.at == wPeriodic && (ysc || y.kind != k):
				x = b.gatherInstead(m, sp.ins[0], k, j)
				in, tmp = b.binary(sp.bin, k, x, xs, xsc, y, ys, ysc, N)
			case y.at == wPeriodic && (xsc || x.kind != k):
				y = b.gatherInstead(m, sp.ins[1], k, j)
				in, tmp = b.binary(sp.bin, k, x, xs, xsc, y, ys, ysc, N)
			case x.at == wPeriodic:
				in = instr{op: iBinP, a: y, in: x.idx, swap: true, f2: binVV[sp.bin]}
				in.text = fmt.Sprintf("%s(in%d periodic, %s)", binNames[sp.bin], x.idx, y)
			case y.at == wPeriodic:
				in = instr{op: iBinP, a: x, in: y.idx, f2: binVV[sp.bin]}
				in.text = fmt.Sprintf("%s(%s, in%d periodic)", binNames[sp.bin], x, y.idx)
			default:
				in, tmp = b.binary(sp.bin, k, x, xs, xsc, y, ys, ysc, N)
			}
			dying(j)
			if tmp != nil {
				b.release(*tmp) // the expanded row values
			}
			d := b.dst(m, k)
			in.dst = d
			in.text = fmt.Sprintf("%s = %s", d, in.text)
			b.prog.code = append(b.prog.code, in)
			b.loc[m] = d
		case kGrad:
			x, _, _ := b.operand(m, sp.ins[0], k, j)
			y, _, _ := b.operand(m, sp.ins[1], k, j)
			dying(j)
			d := b.dst(m, k)
			b.prog.code = append(b.prog.code, instr{op: iBin, dst: d, a: x, b: y, f2: sp.f2,
				text: fmt.Sprintf("%s = %s(%s, %s)", d, sp.name, x, y)})
			b.loc[m] = d
		case kMidSum:
			x, _, _ := b.operand(m, sp.ins[0], full, j)
			dying(j)
			oi, ok := b.outIdx[m]
			if !ok {
				return nil, fmt.Errorf("compile/cpu: %s: a middle sum the graph does not read", m.Name)
			}
			mi := len(b.prog.mids)
			b.prog.mids = append(b.prog.mids, midSum{out: oi, outer: sp.outer, c: sp.c})
			b.prog.code = append(b.prog.code, instr{op: iMidSum, a: x, in: mi, dst: loc{at: wNone, kind: colv},
				text: fmt.Sprintf("mid%d = sum(%s) per row; out%d = sum of mid%d over %d blocks of %d", mi, x, oi, mi, sp.outer, sp.c)})
			b.loc[m] = loc{at: wNone, kind: colv}
		case kReduce:
			x, _, _ := b.operand(m, sp.ins[0], full, j)
			dying(j)
			d := b.dst(m, rowv)
			b.prog.code = append(b.prog.code, instr{op: iReduce, dst: d, a: x, red: sp.red,
				text: fmt.Sprintf("%s = %s(%s) per row", d, sp.name, x)})
			b.loc[m] = d
		case kRowOp:
			x, _, _ := b.operand(m, sp.ins[0], full, j)
			switch sp.row {
			case oSoftmax, oLogSoftmax:
				var d loc
				if sp.row == oLogSoftmax { // reads x after writing dst
					d = b.dst(m, full)
					dying(j)
				} else {
					dying(j)
					d = b.dst(m, full)
				}
				op := iSoftmax
				if sp.row == oLogSoftmax {
					op = iLogSoftmax
				}
				b.prog.code = append(b.prog.code, instr{op: op, dst: d, a: x,
					text: fmt.Sprintf("%s = %s(%s) per row", d, sp.name, x)})
				b.loc[m] = d
			case oLayerNorm:
				in := instr{op: iLayerNorm, a: x, in: -1, in2: -1, eps: sp.eps}
				for i, o := range sp.ins[1:] {
					if o.node == nil {
						continue
					}
					v, _ := b.p.info(o.node)
					b.prog.ins = append(b.prog.ins, progIn{slot: b.slot(o.node), kind: full, mode: mWhole,
						sizes: v.sizes, strd: v.strides, dtype: tensor.Float32, node: o.node.Name})
					if i == 0 {
						in.in = len(b.prog.ins) - 1
					} else {
						in.in2 = len(b.prog.ins) - 1
					}
				}
				dying(j)
				it := items[m]
				dsts := [3]loc{}
				var tmp []loc
				for i, u := range it {
					_, used := b.last[u]
					switch {
					case u != nil && (used || b.mat[u]):
						kk := rowv
						if i == 0 {
							kk = full
						}
						dsts[i] = b.dst(u, kk)
						b.loc[u] = dsts[i]
					case i == 0:
						dsts[i] = b.alloc(full)
						tmp = append(tmp, dsts[i])
					default:
						dsts[i] = loc{at: wScratch, kind: rowv}
					}
				}
				in.dst, in.d2, in.d3 = dsts[0], dsts[1], dsts[2]
				for _, t := range tmp {
					b.release(t)
				}
				in.text = fmt.Sprintf("%s, %s, %s = layer_norm(%s, in%d, in%d) per row", in.dst, in.d2, in.d3, x, in.in, in.in2)
				b.prog.code = append(b.prog.code, in)
			}
		default:
			return nil, fmt.Errorf("compile/cpu: %s: unknown fused node", m.Name)
		}
		if _, used := b.last[m]; !used && (sp.kind != kRowOp || sp.row != oLayerNorm) {
			b.release(b.loc[m]) // a value nothing in the group reads
		}
	}
	for _, e := range b.scal {
		b.prog.consts = append(b.prog.consts, e.c)
		if e.in >= 0 {
			b.prog.rtScalars = append(b.prog.rtScalars, [2]int{len(b.prog.consts) - 1, e.in})
		}
	}
	if tileElems > 0 {
		b.prog.T = min(max(1, tileElems/N), R)
	} else {
		b.prog.T = b.prog.autoTile(DefaultTileElems)
	}
	return b.prog, nil
}

// rowBinary is full op row (swapped: row op full), per row or, for short
// rows, by expanding the row values into a temporary register first.
func (b *builder) rowBinary(o binOp, x, row loc, swapped bool, N int) (instr, *loc) {
	if N < expandBelow {
		t := b.alloc(full)
		b.prog.code = append(b.prog.code, instr{op: iExpand, dst: t, a: row, text: fmt.Sprintf("%s = expand(%s)", t, row)})
		if swapped {
			return instr{op: iBin, a: t, b: x, f2: binVV[o], text: fmt.Sprintf("%s(%s, %s)", binNames[o], t, x)}, &t
		}
		return instr{op: iBin, a: x, b: t, f2: binVV[o], text: fmt.Sprintf("%s(%s, %s)", binNames[o], x, t)}, &t
	}
	if swapped {
		return instr{op: iBinRow, a: x, b: row, fs: binSV[o], text: fmt.Sprintf("%s(%s[r], %s) per row", binNames[o], row, x)}, nil
	}
	return instr{op: iBinRow, a: x, b: row, fs: binVS[o], text: fmt.Sprintf("%s(%s, %s[r]) per row", binNames[o], x, row)}, nil
}

// expandBelow: rows shorter than this are broadcast by expansion (one
// kernel call for the tile) rather than one kernel call per row.
const expandBelow = 64

// binary is the instruction of a binary member on resolved operands.
func (b *builder) binary(o binOp, k vkind, x loc, xs int, xsc bool, y loc, ys int, ysc bool, N int) (instr, *loc) {
	switch {
	case ysc:
		return instr{op: iBinS, a: x, s: ys, fs: binVS[o], text: fmt.Sprintf("%s(%s, s%d)", binNames[o], x, ys)}, nil
	case xsc:
		return instr{op: iBinS, a: y, s: xs, fs: binSV[o], text: fmt.Sprintf("%s(s%d, %s)", binNames[o], xs, y)}, nil
	case k == full && y.kind == rowv:
		return b.rowBinary(o, x, y, false, N)
	case k == full && x.kind == rowv:
		return b.rowBinary(o, y, x, true, N)
	}
	return instr{op: iBin, a: x, b: y, f2: binVV[o], text: fmt.Sprintf("%s(%s, %s)", binNames[o], x, y)}, nil
}

// minRun is the shortest run of one value a broadcast operand is read in
// by iBinRun (one scalar kernel call per run) rather than gathered.
const minRun = 64

// runBinary is binary member m as an iBinRun when one operand comes from
// outside the group and is constant along runs of at least minRun
// elements of the space (a per-channel value over NCHW's planes): each run
// is the scalar kernel with that value, no register filled. The kernels
// compute each element as the vector-vector ones do (x op s).
func (b *builder) runBinary(m *fx.Node, sp *spec, k vkind, j int) (instr, bool) {
	space := b.space(m)
	for side := 1; side >= 0; side-- {
		o, other := sp.ins[side], sp.ins[1-side]
		if o.node == nil || b.g.of(o.node) || other.node == nil {
			continue
		}
		v, _ := b.p.info(o.node)
		if v.dtype != tensor.Float32 || readAsScalar(v, space) || (v.contiguous() && flatSame(v.sizes, space)) {
			continue
		}
		gs := newGather(space, v.sizes, v.strides)
		if last := len(gs.sizes) - 1; gs.strides[last] != 0 || gs.sizes[last] < minRun {
			continue
		}
		if b.g.of(other.node) {
			if b.g.kind[other.node] != k {
				continue
			}
		} else if ov, _ := b.p.info(other.node); readAsScalar(ov, space) {
			continue
		}
		a, _, isScalar := b.operand(m, other, k, j)
		if isScalar || a.kind != k {
			return instr{}, false // not reached: checked above
		}
		key := extKey(o.node, k, space) + "/run"
		idx, ok := b.inIdx[key]
		if !ok {
			b.prog.ins = append(b.prog.ins, progIn{slot: b.slot(o.node), kind: k, mode: mGather, sizes: v.sizes, strd: v.strides,
				g: gs, dtype: tensor.Float32, node: o.node.Name})
			idx = len(b.prog.ins) - 1
			b.inIdx[key] = idx
		}
		in := instr{op: iBinRun, a: a, in: idx}
		if side == 1 {
			in.fs = binVS[sp.bin]
			in.text = fmt.Sprintf("%s(%s, in%d runs)", binNames[sp.bin], a, idx)
		} else {
			in.fs = binSV[sp.bin]
			in.text = fmt.Sprintf("%s(in%d runs, %s)", binNames[sp.bin], idx, a)
		}
		return in, true
	}
	return instr{}, false
}

// gatherInstead resolves an external operand by a gather (where a periodic
// read does not fit the instruction).
func (b *builder) gatherInstead(m *fx.Node, o operand, k vkind, j int) loc {
	l, _, _, code := b.external(o.node, k, b.space(m), j, false)
	b.prog.code = append(b.prog.code, code...)
	return l
}

// condition resolves where's bool input over a space: read in place when
// laid out as the space, else gathered per tile.
func (b *builder) condition(c *fx.Node, k vkind, space []int) int {
	v, _ := b.p.info(c)
	key := extKey(c, k, space) + "/bool"
	if i, ok := b.inIdx[key]; ok {
		return i
	}
	in := progIn{slot: b.slot(c), kind: k, mode: mGather, sizes: v.sizes, strd: v.strides, dtype: tensor.Bool, node: c.Name}
	if v.contiguous() && flatSame(v.sizes, space) {
		in.mode = mInPlace
	} else {
		in.g = newGather(space, v.sizes, v.strides)
	}
	b.prog.ins = append(b.prog.ins, in)
	b.inIdx[key] = len(b.prog.ins) - 1
	return len(b.prog.ins) - 1
}
