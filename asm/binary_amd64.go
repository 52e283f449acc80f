//go:build !purego

package asm

// The AVX2 binary kernels (binary_amd64.s); axpy also needs FMA. Their
// loops are the twins' in binary_generic.go.

//go:noescape
func addVV32(d, x, y []float32)

//go:noescape
func subVV32(d, x, y []float32)

//go:noescape
func mulVV32(d, x, y []float32)

//go:noescape
func divVV32(d, x, y []float32)

//go:noescape
func maxVV32(d, x, y []float32)

//go:noescape
func minVV32(d, x, y []float32)

//go:noescape
func addVS32(d, x []float32, s float32)

//go:noescape
func subVS32(d, x []float32, s float32)

//go:noescape
func mulVS32(d, x []float32, s float32)

//go:noescape
func divVS32(d, x []float32, s float32)

//go:noescape
func maxVS32(d, x []float32, s float32)

//go:noescape
func minVS32(d, x []float32, s float32)

//go:noescape
func subSV32(d []float32, s float32, y []float32)

//go:noescape
func divSV32(d []float32, s float32, y []float32)

//go:noescape
func maxSV32(d []float32, s float32, y []float32)

//go:noescape
func minSV32(d []float32, s float32, y []float32)

//go:noescape
func axpy32(d []float32, a float32, x, y []float32)

//go:noescape
func addVV64(d, x, y []float64)

//go:noescape
func subVV64(d, x, y []float64)

//go:noescape
func mulVV64(d, x, y []float64)

//go:noescape
func divVV64(d, x, y []float64)

//go:noescape
func maxVV64(d, x, y []float64)

//go:noescape
func minVV64(d, x, y []float64)

//go:noescape
func addVS64(d, x []float64, s float64)

//go:noescape
func subVS64(d, x []float64, s float64)

//go:noescape
func mulVS64(d, x []float64, s float64)

//go:noescape
func divVS64(d, x []float64, s float64)

//go:noescape
func maxVS64(d, x []float64, s float64)

//go:noescape
func minVS64(d, x []float64, s float64)

//go:noescape
func subSV64(d []float64, s float64, y []float64)

//go:noescape
func divSV64(d []float64, s float64, y []float64)

//go:noescape
func maxSV64(d []float64, s float64, y []float64)

//go:noescape
func minSV64(d []float64, s float64, y []float64)

//go:noescape
func axpy64(d []float64, a float64, x, y []float64)

//go:noescape
func clampVS32(d, x []float32, lo, hi float32)

//go:noescape
func cubeV32(d, x []float32)

//go:noescape
func sigmoidBwd32(d, g, y []float32)

//go:noescape
func tanhBwd32(d, g, y []float32)

// The row kernels (binary_amd64.s, ROWLOOP): d[r·n+i] = x[r·n+i] op
// y[i] for n = len(y) a positive multiple of a vector, rows ≥ 1, with
// non-temporal stores (d 32-byte aligned) and one fence.

//go:noescape
func addRows32NT(d, x, y []float32, rows int)

//go:noescape
func subRows32NT(d, x, y []float32, rows int)

//go:noescape
func mulRows32NT(d, x, y []float32, rows int)

//go:noescape
func divRows32NT(d, x, y []float32, rows int)

//go:noescape
func addRows64NT(d, x, y []float64, rows int)

//go:noescape
func subRows64NT(d, x, y []float64, rows int)

//go:noescape
func mulRows64NT(d, x, y []float64, rows int)

//go:noescape
func divRows64NT(d, x, y []float64, rows int)

// The streaming variants (non-temporal stores; d 32-byte aligned).

//go:noescape
func sigmoidBwd32NT(d, g, y []float32)

//go:noescape
func tanhBwd32NT(d, g, y []float32)

//go:noescape
func cubeV32NT(d, x []float32)

//go:noescape
func clampVS32NT(d, x []float32, lo, hi float32)

//go:noescape
func addVV32NT(d, x, y []float32)

//go:noescape
func subVV32NT(d, x, y []float32)

//go:noescape
func mulVV32NT(d, x, y []float32)

//go:noescape
func divVV32NT(d, x, y []float32)

//go:noescape
func maxVV32NT(d, x, y []float32)

//go:noescape
func minVV32NT(d, x, y []float32)

//go:noescape
func addVS32NT(d, x []float32, s float32)

//go:noescape
func subVS32NT(d, x []float32, s float32)

//go:noescape
func mulVS32NT(d, x []float32, s float32)

//go:noescape
func divVS32NT(d, x []float32, s float32)

//go:noescape
func maxVS32NT(d, x []float32, s float32)

//go:noescape
func minVS32NT(d, x []float32, s float32)

//go:noescape
func subSV32NT(d []float32, s float32, y []float32)

//go:noescape
func divSV32NT(d []float32, s float32, y []float32)

//go:noescape
func maxSV32NT(d []float32, s float32, y []float32)

//go:noescape
func minSV32NT(d []float32, s float32, y []float32)

//go:noescape
func axpy32NT(d []float32, a float32, x, y []float32)

//go:noescape
func addVV64NT(d, x, y []float64)

//go:noescape
func subVV64NT(d, x, y []float64)

//go:noescape
func mulVV64NT(d, x, y []float64)

//go:noescape
func divVV64NT(d, x, y []float64)

//go:noescape
func maxVV64NT(d, x, y []float64)

//go:noescape
func minVV64NT(d, x, y []float64)

//go:noescape
func addVS64NT(d, x []float64, s float64)

//go:noescape
func subVS64NT(d, x []float64, s float64)

//go:noescape
func mulVS64NT(d, x []float64, s float64)

//go:noescape
func divVS64NT(d, x []float64, s float64)

//go:noescape
func maxVS64NT(d, x []float64, s float64)

//go:noescape
func minVS64NT(d, x []float64, s float64)

//go:noescape
func subSV64NT(d []float64, s float64, y []float64)

//go:noescape
func divSV64NT(d []float64, s float64, y []float64)

//go:noescape
func maxSV64NT(d []float64, s float64, y []float64)

//go:noescape
func minSV64NT(d []float64, s float64, y []float64)

//go:noescape
func axpy64NT(d []float64, a float64, x, y []float64)

var (
	binAVX32 = binTable[float32]{
		vv:    [numBinOps]func(d, x, y []float32){addVV32, subVV32, mulVV32, divVV32, maxVV32, minVV32},
		vs:    [numBinOps]func(d, x []float32, s float32){addVS32, subVS32, mulVS32, divVS32, maxVS32, minVS32},
		sv:    [numBinOps]func(d []float32, s float32, y []float32){nil, subSV32, nil, divSV32, maxSV32, minSV32},
		axpy:  axpy32,
		clamp: clampVS32,
		cube:  cubeV32,
		bwd:   [numBwdOps]func(d, g, y []float32){sigmoidBwd32, tanhBwd32},
		nt: &binTable[float32]{
			rows:  [numBinOps]func(d, x, y []float32, rows int){addRows32NT, subRows32NT, mulRows32NT, divRows32NT},
			vv:    [numBinOps]func(d, x, y []float32){addVV32NT, subVV32NT, mulVV32NT, divVV32NT, maxVV32NT, minVV32NT},
			vs:    [numBinOps]func(d, x []float32, s float32){addVS32NT, subVS32NT, mulVS32NT, divVS32NT, maxVS32NT, minVS32NT},
			sv:    [numBinOps]func(d []float32, s float32, y []float32){nil, subSV32NT, nil, divSV32NT, maxSV32NT, minSV32NT},
			axpy:  axpy32NT,
			clamp: clampVS32NT,
			cube:  cubeV32NT,
			bwd:   [numBwdOps]func(d, g, y []float32){sigmoidBwd32NT, tanhBwd32NT},
		},
	}
	binAVX64 = binTable[float64]{
		vv:   [numBinOps]func(d, x, y []float64){addVV64, subVV64, mulVV64, divVV64, maxVV64, minVV64},
		vs:   [numBinOps]func(d, x []float64, s float64){addVS64, subVS64, mulVS64, divVS64, maxVS64, minVS64},
		sv:   [numBinOps]func(d []float64, s float64, y []float64){nil, subSV64, nil, divSV64, maxSV64, minSV64},
		axpy: axpy64,
		nt: &binTable[float64]{
			rows: [numBinOps]func(d, x, y []float64, rows int){addRows64NT, subRows64NT, mulRows64NT, divRows64NT},
			vv:   [numBinOps]func(d, x, y []float64){addVV64NT, subVV64NT, mulVV64NT, divVV64NT, maxVV64NT, minVV64NT},
			vs:   [numBinOps]func(d, x []float64, s float64){addVS64NT, subVS64NT, mulVS64NT, divVS64NT, maxVS64NT, minVS64NT},
			sv:   [numBinOps]func(d []float64, s float64, y []float64){nil, subSV64NT, nil, divSV64NT, maxSV64NT, minSV64NT},
			axpy: axpy64NT,
		},
	}
)

func binKernels32() *binTable[float32] {
	if useAVX2FMA {
		return &binAVX32
	}
	return &binGo32
}

func binKernels64() *binTable[float64] {
	if useAVX2FMA {
		return &binAVX64
	}
	return &binGo64
}
