//go:build purego || !amd64

package asm

// Without the AVX kernel (copy_amd64.s) CopyRowsStream copies with copy.
var copyRowsNT func(dst []byte, ldd int, src []byte, lds int, rows, n int)
