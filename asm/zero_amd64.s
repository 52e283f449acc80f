//go:build !purego

#include "textflag.h"

// Register roles.
#define dPtr  DI // next 64-byte block
#define steps CX // blocks left
#define zero  Y0 // all zeros

// func zeroNT(p unsafe.Pointer, n int)
//
// In:  p 64-byte aligned, n ≥ 1 blocks of 64 bytes. Out: the 64n bytes
// from p are zero, stored past the caches (VMOVNTPS), fenced before the
// return. Clobbers CX, DI, Y0.
TEXT ·zeroNT(SB), NOSPLIT, $0-16
	MOVQ     p+0(FP), dPtr          // dPtr = p
	MOVQ     n+8(FP), steps         // steps = n
	VXORPS   zero, zero, zero       // zero = +0 in every lane
zloop:
	VMOVNTPS zero, (dPtr)           // bytes 0:32 of the block = 0
	VMOVNTPS zero, 32(dPtr)         // bytes 32:64 = 0
	ADDQ     $64, dPtr              // next block
	DECQ     steps                  // one block done
	JNZ      zloop                  // more
	SFENCE                          // the stores are done before we return
	VZEROUPPER
	RET
