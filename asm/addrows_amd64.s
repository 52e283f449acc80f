//go:build !purego

#include "textflag.h"

// Rows added into rows, AVX2: eight elements a block.

// Register roles.
#define dRow  DI  // &dst[r][0]
#define sRow  SI  // &src[r][0]
#define lddB  R8  // dst's row stride in bytes
#define ldsB  R9  // src's row stride in bytes
#define rLeft R10 // rows left
#define wB    R11 // a row's bytes
#define off   BX  // the block's byte offset in the row

// func addRowsF32AVX2(dst []float32, ldd int, src []float32, lds, rows, w int)
// In:  rows ≥ 1 of w elements, w a positive multiple of 8.
// Out: as addRowsGo. Y0, Y1 clobbered.
TEXT ·addRowsF32AVX2(SB), NOSPLIT, $0-80
	MOVQ    dst_base+0(FP), dRow   // dRow = &dst[0]
	MOVQ    ldd+24(FP), lddB       // lddB = ldd
	SHLQ    $2, lddB               // in bytes
	MOVQ    src_base+32(FP), sRow  // sRow = &src[0]
	MOVQ    lds+56(FP), ldsB       // ldsB = lds
	SHLQ    $2, ldsB               // in bytes
	MOVQ    rows+64(FP), rLeft     // rLeft = rows
	MOVQ    w+72(FP), wB           // wB = w
	SHLQ    $2, wB                 // in bytes
row:
	XORQ    off, off               // off = 0
block:
	VMOVUPS (dRow)(off*1), Y0      // Y0 = dst[r][j:j+8]
	VADDPS  (sRow)(off*1), Y0, Y0  // += src[r][j:j+8]
	VMOVUPS Y0, (dRow)(off*1)      // stored
	ADDQ    $32, off               // j += 8
	CMPQ    off, wB                // the row done?
	JLT     block                  // else again
	ADDQ    lddB, dRow             // the next row of dst
	ADDQ    ldsB, sRow             // of src
	DECQ    rLeft                  // a row done
	JNZ     row                    // more?
	VZEROUPPER                     // clean AVX state
	RET
