package asm

import (
	"os"
	"runtime"

	"github.com/klauspost/cpuid/v2"
)

// CPU features, read once at start-up. They say what the hardware and the
// OS support; the use* switches below say what this package will run.
var (
	hasAVX2    = cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2)   // 256-bit integer and float SIMD, OS saves YMM
	hasFMA     = cpuid.CPU.Supports(cpuid.FMA3)              // VFMADD231PS and friends
	hasF16C    = cpuid.CPU.Supports(cpuid.F16C)              // VCVTPH2PS / VCVTPS2PH
	hasAVX512F = cpuid.CPU.Supports(cpuid.AVX512F)           // 512-bit SIMD, OS saves ZMM and opmask state
	hasASIMD   = runtime.GOARCH == "arm64"                   // NEON is part of the arm64 base ISA
	forceGo    = purego || os.Getenv("GOATEN_PUREGO") == "1" // -tags purego or GOATEN_PUREGO=1
	noAVX512   = os.Getenv("GOATEN_NOAVX512") == "1"         // stay on the AVX2 kernels
	l1d        = cpuid.CPU.Cache.L1D                         // L1 data cache per core in bytes, -1 if unknown
	l2         = cpuid.CPU.Cache.L2                          // L2 cache per core in bytes, -1 if unknown
	l3         = cpuid.CPU.Cache.L3                          // last-level cache in bytes, -1 if unknown
)

// Kernel switches: true when the assembly kernels of that family run.
var (
	useAVX2FMA = !forceGo && runtime.GOARCH == "amd64" && hasAVX2 && hasFMA
	useAVX512  = useAVX2FMA && hasAVX512F && !noAVX512
	useNEON    = !forceGo && runtime.GOARCH == "arm64" && hasASIMD
	useF16C    = !forceGo && runtime.GOARCH == "amd64" && hasAVX2 && hasF16C // float16 conversions
)

// Path names the kernel family in use: "avx512" or "avx2+fma" (amd64),
// "neon" (arm64) or "go" (the pure-Go twins: -tags purego, GOATEN_PUREGO=1,
// a CPU without the features, or another architecture). GOATEN_NOAVX512=1
// keeps an AVX-512 machine on the AVX2 kernels.
func Path() string {
	switch {
	case useAVX512:
		return "avx512"
	case useAVX2FMA:
		return "avx2+fma"
	case useNEON:
		return "neon"
	}
	return "go"
}

// Features lists the CPU features this package looked for and found, for
// logs and benchmark headers, e.g. "avx2 fma f16c".
func Features() string {
	s := ""
	add := func(ok bool, name string) {
		if ok {
			if s != "" {
				s += " "
			}
			s += name
		}
	}
	add(hasAVX2, "avx2")
	add(hasFMA, "fma")
	add(hasF16C, "f16c")
	add(hasAVX512F, "avx512f")
	add(hasASIMD, "asimd")
	return s
}

// CacheSizes returns the sizes in bytes of the L1 data cache and the L2
// cache of one core and of the last-level cache, as read at start-up; -1
// where the CPU does not say. Tiled code (compile/cpu) sizes its tiles from
// them.
func CacheSizes() (l1Data, l2Size, lastLevel int) { return l1d, l2, l3 }
