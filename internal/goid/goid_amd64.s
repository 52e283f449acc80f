//go:build !purego

#include "textflag.h"

// func gword(i uintptr) uint64
// AX: the g pointer (from the TLS slot), BX: the word index.
TEXT ·gword(SB), NOSPLIT, $0-16
	MOVQ (TLS), AX        // g := getg()
	MOVQ i+0(FP), BX      // i
	MOVQ (AX)(BX*8), AX   // w := ((*[n]uint64)(g))[i]
	MOVQ AX, ret+8(FP)    // return w
	RET
