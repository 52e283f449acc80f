package asm

import (
	"math"

	"github.com/x448/float16"
)

// Pure-Go twins of the conversion kernels.

func f16to32Go(d []float32, s []uint16) {
	for i, h := range s {
		d[i] = float16.Frombits(h).Float32()
	}
}

func f32to16Go(d []uint16, s []float32) {
	for i, f := range s {
		d[i] = float16.Fromfloat32(f).Bits()
	}
}

func bf16to32Go(d []float32, s []uint16) {
	for i, b := range s {
		d[i] = math.Float32frombits(uint32(b) << 16)
	}
}

// f32tobfGo rounds to nearest even by adding 0x7fff plus the lowest kept
// bit before truncating; a NaN becomes 0x7fc0.
func f32tobfGo(d []uint16, s []float32) {
	for i, f := range s {
		if f != f {
			d[i] = 0x7fc0
			continue
		}
		u := math.Float32bits(f)
		d[i] = uint16((u + 0x7fff + (u>>16)&1) >> 16)
	}
}

var cvtGo = cvtTable{f16to32: f16to32Go, bf16to32: bf16to32Go, f32to16: f32to16Go, f32tobf: f32tobfGo}
