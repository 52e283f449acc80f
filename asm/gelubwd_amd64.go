//go:build !purego

package asm

// geluBwdF32AVX512 is GeluBackwardF32 in one pass (unary512_amd64.s); the
// twin's loop is geluBwdGo1 over the elements.
//
//go:noescape
func geluBwdF32AVX512(d, g, x []float32)

// geluBwdKernel is the one-pass kernel in use, nil for the chunks.
var geluBwdKernel = func() func(d, g, x []float32) {
	if useAVX512 {
		return geluBwdF32AVX512
	}
	return nil
}()
