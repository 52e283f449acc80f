//go:build !purego

#include "textflag.h"
#include "floatkey_arm64.h"

// Running maxima with their indices, NEON: four elements a block. Go's
// arm64 assembler has no vector float compare, so a lane keeps or takes
// by the order keys of floatkey_arm64.h (MAXKEEP), and VBIF inserts the
// candidate and its index where it is taken. No arithmetic touches the
// floats: the bits taken are v's.

// Register roles.
#define mRow  R0  // &m[r][0]
#define iRow  R1  // &mi[r][0]
#define vRow  R2  // &v[r][0]
#define ldmB  R3  // m's and mi's row stride in bytes
#define ldvB  R4  // v's row stride in bytes
#define rLeft R5  // rows left
#define nCols R6  // a row's elements (cols)
#define rBase R7  // the index of the row's first candidate (int32)
#define rStep R8  // rowStep
#define cStep R9  // colStep
#define mPtr  R10 // the block's address in m
#define iPtr  R11 // in mi
#define vPtr  R12 // in v
#define cLeft R13 // columns left in the row
#define idxV  V24 // the block's candidate indices
#define step4 V25 // 4·colStep in every lane
#define lanes V26 // 0, colStep, 2·colStep, 3·colStep
#define mnan  V27 // 0xff000000 in every lane: a NaN maximum's key (MAXKEEP)
#define vnan  V28 // 0xff000001 in every lane: a NaN candidate's key
#define bias  V29 // 2^23 in every lane: FKEY's bias
#define sign  V30 // 0x80000000 in every lane

// BLOCK folds the four candidates at vPtr into m and mi at mPtr and iPtr
// (indices idxV) and moves the three pointers on by four elements.
#define BLOCK \
	VLD1.P 16(vPtr), [V0.S4];               /* V0 = v               */ \
	VLD1   (mPtr), [V1.S4];                 /* V1 = m               */ \
	VLD1   (iPtr), [V2.S4];                 /* V2 = mi              */ \
	MAXKEEP(V0, V1, V3, V4, V5, sign, bias, vnan, mnan); /* V3 = ones where m stays */ \
	VBIF   V3.B16, V0.B16, V1.B16;          /* m = v elsewhere      */ \
	VBIF   V3.B16, idxV.B16, V2.B16;        /* mi = index elsewhere */ \
	VST1.P [V1.S4], 16(mPtr);               /* m stored             */ \
	VST1.P [V2.S4], 16(iPtr)                // mi stored

// func maxIndexRowsF32NEON(m []float32, mi []int32, ldm int, v []float32, ldv int, rows, cols int, i0, colStep, rowStep int32)
// In:  rows ≥ 1 of cols ≥ 4 elements.
// Out: as maxIndexRowsGo. R0–R14, V0–V5, V24–V30 clobbered.
TEXT ·maxIndexRowsF32NEON(SB), NOSPLIT, $0-116
	MOVD   m_base+0(FP), mRow        // mRow = &m[0]
	MOVD   mi_base+24(FP), iRow      // iRow = &mi[0]
	MOVD   ldm+48(FP), ldmB          // ldmB = ldm
	LSL    $2, ldmB                  // in bytes
	MOVD   v_base+56(FP), vRow       // vRow = &v[0]
	MOVD   ldv+80(FP), ldvB          // ldvB = ldv
	LSL    $2, ldvB                  // in bytes
	MOVD   rows+88(FP), rLeft        // rLeft = rows
	MOVD   cols+96(FP), nCols        // nCols = cols
	MOVWU  i0+104(FP), rBase         // rBase = i0
	MOVWU  colStep+108(FP), cStep    // cStep = colStep
	MOVWU  rowStep+112(FP), rStep    // rStep = rowStep
	MOVW   $0x80000000, R14          // R14 = the sign bit
	VDUP   R14, sign.S4              // sign everywhere
	MOVW   $0x00800000, R14          // R14 = 2^23, FKEY's bias
	VDUP   R14, bias.S4              // bias everywhere
	MOVW   $0xff000001, R14          // R14 = the key above +Inf's
	VDUP   R14, vnan.S4              // vnan everywhere
	MOVW   $0xff000000, R14          // R14 = +Inf's key
	VDUP   R14, mnan.S4              // mnan everywhere
	VEOR   lanes.B16, lanes.B16, lanes.B16 // lanes = 0
	MOVW   cStep, R14                // R14 = colStep
	VMOV   R14, lanes.S[1]           // lanes[1] = colStep
	ADDW   cStep, R14                // R14 = 2·colStep
	VMOV   R14, lanes.S[2]           // lanes[2]
	ADDW   cStep, R14                // R14 = 3·colStep
	VMOV   R14, lanes.S[3]           // lanes[3]
	ADDW   cStep, R14                // R14 = 4·colStep
	VDUP   R14, step4.S4             // step4 everywhere
row:
	MOVD   mRow, mPtr                // mPtr = &m[r][0]
	MOVD   iRow, iPtr                // iPtr = &mi[r][0]
	MOVD   vRow, vPtr                // vPtr = &v[r][0]
	MOVD   nCols, cLeft              // cLeft = cols
	VDUP   rBase, idxV.S4            // idxV = the row's first index everywhere
	VADD   lanes.S4, idxV.S4, idxV.S4 // plus the lanes': the first block's
block:
	BLOCK                            // fold four
	VADD   step4.S4, idxV.S4, idxV.S4 // the next block's indices
	SUB    $4, cLeft                 // four done
	CMP    $4, cLeft                 // four more?
	BGE    block                     // then again
	CBZ    cLeft, next               // the row done?
	MOVD   $4, R14                   // R14 = 4
	SUB    cLeft, R14                // less cLeft: the elements to go back
	LSL    $2, R14                   // in bytes
	SUB    R14, mPtr                 // mPtr = &m[r][cols-4]
	SUB    R14, iPtr                 // iPtr = &mi[r][cols-4]
	SUB    R14, vPtr                 // vPtr = &v[r][cols-4]
	SUB    $4, nCols, R14            // R14 = the last block's column (cols-4)
	MULW   cStep, R14                // · colStep
	ADDW   rBase, R14                // + the row's first index
	VDUP   R14, idxV.S4              // idxV = that everywhere
	VADD   lanes.S4, idxV.S4, idxV.S4 // plus the lanes': the last block's
	BLOCK                            // fold it (again in part)
next:
	ADD    ldmB, mRow                // the next row of m
	ADD    ldmB, iRow                // of mi
	ADD    ldvB, vRow                // of v
	ADDW   rStep, rBase              // its first index
	SUB    $1, rLeft                 // a row done
	CBNZ   rLeft, row                // more?
	RET
