//go:build !purego

package asm

import "unsafe"

// zeroNT stores zeros to the n 64-byte blocks from p (64-byte aligned) with
// non-temporal stores; the twin is clear.
//
//go:noescape
func zeroNT(p unsafe.Pointer, n int)
