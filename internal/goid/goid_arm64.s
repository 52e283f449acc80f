//go:build !purego

#include "textflag.h"

// func gword(i uintptr) uint64
// g (R28) is the goroutine pointer; R0: the word index, then the word.
TEXT ·gword(SB), NOSPLIT, $0-16
	MOVD i+0(FP), R0      // i
	LSL  $3, R0, R0       // byte offset i*8
	MOVD (g)(R0), R0      // w := ((*[n]uint64)(g))[i]
	MOVD R0, ret+8(FP)    // return w
	RET
