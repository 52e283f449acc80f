package cpu

import (
	"strings"

	"github.com/goaten/goaten/asm"
	"github.com/goaten/goaten/tensor"
)

// Tile sizes. A tile program runs its first instructions on data that
// streams from memory and its later ones on data in the cache; on one core
// the two overlap only where the hardware's prefetcher runs ahead of the
// program (which stops at a 4 KiB page's end). Measured on issue 24's
// chains and more (bench/README.md, "Tile sizes"), the best tile depends on
// the group's balance of work:
//
//   - a group whose kernels take about as long as moving its bytes, or
//     longer (a transcendental kernel: sigmoid, gelu, exp, softmax), runs
//     fastest in page tiles, one 4 KiB page of each operand (1024 float32
//     elements, rounded to whole rows): 6-14% faster than 64K-element
//     tiles on gelu, softmax and exp(x)·x, 0-8% on the sigmoid chain;
//   - a group that mostly moves bytes (a residual add and layer_norm, an
//     add feeding a sigmoid) runs fastest in long tiles that fill the L2
//     cache (DefaultTileElems), where each input streams at the memory's
//     speed: 5-20% faster than page tiles there.
//
// computeRatio estimates the first against the second from the kernels'
// throughputs on data in L1 (measured on the project machine, ns per
// element) and the bytes each element of the space moves to or from
// memory (at 45 GB/s, one core's stream rate there): page tiles from
// pageTileMin on. Only the ratio matters, so one machine's figures serve
// as an estimate for the others. A group that moves less than half the
// last-level cache keeps long tiles: its operands likely come from the
// cache, there is no memory phase to hide, and page tiles only add calls
// (the sigmoid chain, gelu and softmax on 64K-256K elements: 0-4% slower
// in page tiles; on 1M-2M, within 5% either way).

// pageTileElems is a page tile: 4 KiB of float32.
const pageTileElems = 1024

// pageTileBytes is the least a group moves (its operands' bytes) for page
// tiles: half the last-level cache (16 MiB where unknown), where package
// asm's elementwise kernels turn to non-temporal stores for the same
// reason.
var pageTileBytes = halfL3()

func halfL3() int {
	_, _, l3 := asm.CacheSizes()
	if l3 <= 0 {
		return 16 << 20
	}
	return l3 / 2
}

// pageTileMin is the least computeRatio that takes page tiles: between
// the add-and-sigmoid chain (0.73, faster in long tiles) and exp(x)·x
// (0.86, faster in page tiles).
const pageTileMin = 0.8

// nsPerByte is the time one core takes to stream a byte from or to memory
// (45 GB/s).
const nsPerByte = 1 / 45.0

// unaryCost is ns per element of the unary kernels on data in L1 (AVX-512
// on the project machine, 8K-element slices, best of 15); pow's cost is
// that of a multiply, the element-by-element float64 loops' (kUnaryGo) a
// guess well above every kernel's.
var unaryCost = map[string]float64{
	"abs": 0.038, "neg": 0.039, "relu": 0.039, "reciprocal": 0.040, "pow": 0.051,
	"sqrt": 0.066, "rsqrt": 0.093, "exp": 0.102, "sigmoid": 0.145, "tanh": 0.227,
	"gelu": 0.248, "sin": 0.495, "cos": 0.498, "log": 0.609, "gelu_tanh": 0.643,
	"erf": 1.045,
}

// Costs of the other instructions, ns per element of their space.
const (
	costScalarOp = 0.037 // a binary op with a scalar, a reduction, clamp
	costBinaryOp = 0.051 // a binary op of two slices, where, axpy, a conversion
	costGather   = 0.1   // a strided gather (besides its bytes)
	costSoftmax  = 0.25  // softmax and log_softmax rows
	costNorm     = 0.113 // a layer_norm row
	costGoLoop   = 2.0   // a float64 loop of package math, per element
)

// instrCost is in's estimated time per element of the group's space.
func (g *tileProg) instrCost(in *instr) float64 {
	var c float64
	switch in.op {
	case iUnary:
		c = in.cost
	case iUnaryGo:
		c = costGoLoop
	case iBinS, iBinRow, iBinRun, iExpand, iReduce, iClamp, iMidSum:
		c = costScalarOp
	case iBin, iBinP, iAxpy, iWhere, iLoad, iStoreN:
		c = costBinaryOp
	case iGather:
		c = costGather
	case iSoftmax, iLogSoftmax:
		c = costSoftmax
	case iLayerNorm:
		c = costNorm
	}
	if in.dst.kind == rowv && in.op != iReduce {
		c /= float64(g.N) // one value per row
	}
	return c
}

// computeRatio is the group's estimated kernel time over the time its
// bytes take to stream, per element of its space, and the bytes its
// operands hold.
func (g *tileProg) computeRatio() (ratio float64, total int) {
	var compute, bytes float64
	for i := range g.code {
		compute += g.instrCost(&g.code[i])
	}
	per := func(kind vkind, dt tensor.DType) float64 {
		b := float64(dt.ItemSize())
		switch kind {
		case rowv:
			b /= float64(g.N)
		case colv:
			b = 0 // written once, after the tiles
		}
		return b
	}
	for _, p := range g.ins {
		switch p.mode {
		case mInPlace, mGather:
			bytes += per(p.kind, p.dtype)
		}
	}
	for _, o := range g.outs {
		bytes += per(o.kind, o.dtype)
	}
	total = int(bytes * float64(g.R*g.N))
	if bytes == 0 {
		return 0, 0
	}
	return compute / (bytes * nsPerByte), total
}

// autoTile is the tile, in rows, of a group built with no TileElems given:
// page tiles for the groups that compute more than they move and move
// more than the cache holds, long ones (l2Elems elements) for the others.
func (g *tileProg) autoTile(l2Elems int) int {
	elems := l2Elems
	if r, total := g.computeRatio(); r >= pageTileMin && total >= pageTileBytes {
		elems = pageTileElems
	}
	return min(max(1, elems/g.N), g.R)
}

// costName is the unaryCost key of an op's name.
func costName(name string) string { return strings.TrimPrefix(name, "aten::") }
