//go:build !purego

#include "textflag.h"
#include "neon_arm64.h"

// Rows added into rows, NEON: eight elements (two vectors) a block. A sum
// is d + 1·s (ADDS4): one rounding, as the twin's FADD d, s, and with two
// NaNs the same one wins (d's; TestAddRowsNEONBits holds the twin to it).

// Register roles.
#define dRow  R0  // &dst[r][0]
#define sRow  R1  // &src[r][0]
#define lddB  R2  // dst's row stride in bytes
#define ldsB  R3  // src's row stride in bytes
#define rLeft R4  // rows left
#define wB    R5  // a row's bytes
#define dPtr  R6  // the block's address in dst
#define sPtr  R7  // in src
#define dEnd  R8  // the end of dst's row
#define ones  V31 // 1.0 in every lane

// func addRowsF32NEON(dst []float32, ldd int, src []float32, lds, rows, w int)
// In:  rows ≥ 1 of w elements, w a positive multiple of 8.
// Out: as addRowsGo. R0–R8, V0–V3, V31 clobbered.
TEXT ·addRowsF32NEON(SB), NOSPLIT, $0-80
	MOVD   dst_base+0(FP), dRow     // dRow = &dst[0]
	MOVD   ldd+24(FP), lddB         // lddB = ldd
	LSL    $2, lddB                 // in bytes
	MOVD   src_base+32(FP), sRow    // sRow = &src[0]
	MOVD   lds+56(FP), ldsB         // ldsB = lds
	LSL    $2, ldsB                 // in bytes
	MOVD   rows+64(FP), rLeft       // rLeft = rows
	MOVD   w+72(FP), wB             // wB = w
	LSL    $2, wB                   // in bytes
	FMOVS  $1.0, F31                // ones[0] = 1
	VDUP   V31.S[0], ones.S4        // ones = 1 everywhere
row:
	MOVD   dRow, dPtr               // dPtr = &dst[r][0]
	MOVD   sRow, sPtr               // sPtr = &src[r][0]
	ADD    wB, dRow, dEnd           // dEnd = &dst[r][w]
block:
	VLD1   (dPtr), [V0.S4, V1.S4]   // V0:V1 = dst[r][j:j+8]
	VLD1.P 32(sPtr), [V2.S4, V3.S4] // V2:V3 = src[r][j:j+8]
	ADDS4(V2, V0, ones)             // V0 += V2
	ADDS4(V3, V1, ones)             // V1 += V3
	VST1.P [V0.S4, V1.S4], 32(dPtr) // stored, j += 8
	CMP    dEnd, dPtr               // the row done?
	BNE    block                    // else again
	ADD    lddB, dRow               // the next row of dst
	ADD    ldsB, sRow               // of src
	SUB    $1, rLeft                // a row done
	CBNZ   rLeft, row               // more?
	RET
