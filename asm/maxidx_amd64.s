//go:build !purego

#include "textflag.h"

// Running maxima with their indices, AVX2: eight elements a block. A lane
// takes the candidate where v > m (ordered: a NaN m keeps its place) or v
// is NaN, the blend choosing both the value and the index by the mask.

// laneIdx<> are the lane offsets 0…7, as int32.
DATA laneIdx<>+0(SB)/4, $0
DATA laneIdx<>+4(SB)/4, $1
DATA laneIdx<>+8(SB)/4, $2
DATA laneIdx<>+12(SB)/4, $3
DATA laneIdx<>+16(SB)/4, $4
DATA laneIdx<>+20(SB)/4, $5
DATA laneIdx<>+24(SB)/4, $6
DATA laneIdx<>+28(SB)/4, $7
GLOBL laneIdx<>(SB), RODATA|NOPTR, $32

// Register roles.
#define mRow  DI  // &m[r][0]
#define iRow  SI  // &mi[r][0]
#define vRow  DX  // &v[r][0]
#define ldmB  R8  // m's and mi's row stride in bytes
#define ldvB  R9  // v's row stride in bytes
#define rLeft R10 // rows left
#define colsB R11 // a row's bytes
#define rBase R12 // the index of the row's first candidate
#define rStep R13 // rowStep
#define off   BX  // the block's byte offset in the row
#define idxV  Y10 // the block's candidate indices
#define lanes Y12 // 0, colStep, …, 7·colStep
#define step8 Y11 // 8·colStep everywhere

// BLOCK folds the eight candidates at off into m and mi.
#define BLOCK \
	VMOVUPS   (vRow)(off*1), Y0;             /* Y0 = v                 */ \
	VMOVUPS   (mRow)(off*1), Y1;             /* Y1 = m                 */ \
	VCMPPS    $0x1e, Y1, Y0, Y2;             /* Y2 = v > m             */ \
	VCMPPS    $3, Y0, Y0, Y3;                /* Y3 = v is NaN          */ \
	VORPS     Y3, Y2, Y2;                    /* Y2 = the lanes taken   */ \
	VBLENDVPS Y2, Y0, Y1, Y1;                /* m = v where taken      */ \
	VMOVDQU   (iRow)(off*1), Y4;             /* Y4 = mi                */ \
	VBLENDVPS Y2, idxV, Y4, Y4;              /* mi = index where taken */ \
	VMOVUPS   Y1, (mRow)(off*1);             /* m stored               */ \
	VMOVDQU   Y4, (iRow)(off*1)              // mi stored

// func maxIndexRowsF32AVX2(m []float32, mi []int32, ldm int, v []float32, ldv int, rows, cols int, i0, colStep, rowStep int32)
// In:  rows ≥ 1 of cols ≥ 8 elements.
// Out: as maxIndexRowsGo. Y0–Y4, Y9–Y13 clobbered.
TEXT ·maxIndexRowsF32AVX2(SB), NOSPLIT, $0-116
	MOVQ         m_base+0(FP), mRow          // mRow = &m[0]
	MOVQ         mi_base+24(FP), iRow        // iRow = &mi[0]
	MOVQ         ldm+48(FP), ldmB            // ldmB = ldm
	SHLQ         $2, ldmB                    // in bytes
	MOVQ         v_base+56(FP), vRow         // vRow = &v[0]
	MOVQ         ldv+80(FP), ldvB            // ldvB = ldv
	SHLQ         $2, ldvB                    // in bytes
	MOVQ         rows+88(FP), rLeft          // rLeft = rows
	MOVQ         cols+96(FP), colsB          // colsB = cols
	SHLQ         $2, colsB                   // in bytes
	MOVLQZX      i0+104(FP), rBase           // rBase = i0
	MOVLQZX      rowStep+112(FP), rStep      // rStep = rowStep
	MOVLQZX      colStep+108(FP), AX         // AX = colStep
	MOVQ         AX, X13                     // X13 = colStep
	VPBROADCASTD X13, Y13                    // Y13 = colStep everywhere
	VPMULLD      laneIdx<>(SB), Y13, lanes     // lanes = 0, colStep, …
	VPSLLD       $3, Y13, step8              // step8 = 8·colStep
row:
	MOVQ         rBase, X9                   // X9 = the row's first index
	VPBROADCASTD X9, idxV                    // everywhere
	VPADDD       lanes, idxV, idxV           // idxV = the first block's
	XORQ         off, off                    // off = 0
block:
	LEAQ         32(off), AX                 // AX = the block's end
	CMPQ         AX, colsB                   // past the row?
	JGT          tail                        // then the last block
	BLOCK                                    // fold it
	VPADDD       step8, idxV, idxV           // the next block's indices
	MOVQ         AX, off                     // off += 32
	JMP          block                       // again
tail:
	CMPQ         off, colsB                  // the row done?
	JEQ          next                        // then the next row
	MOVQ         colsB, off                  // off = the row's
	SUBQ         $32, off                    // last eight elements
	MOVQ         off, AX                     // AX = their first column
	SHRQ         $2, AX                      // (cols - 8)
	IMULL        colStep+108(FP), AX         // · colStep
	ADDL         rBase, AX                   // + the row's first index
	MOVQ         AX, X9                      // X9 = that index
	VPBROADCASTD X9, idxV                    // everywhere
	VPADDD       lanes, idxV, idxV           // idxV = the last block's
	BLOCK                                    // fold it (again in part)
next:
	ADDQ         ldmB, mRow                  // the next row of m
	ADDQ         ldmB, iRow                  // of mi
	ADDQ         ldvB, vRow                  // of v
	ADDL         rStep, rBase                // its first index
	DECQ         rLeft                       // a row done
	JNZ          row                         // more?
	VZEROUPPER                               // clean AVX state
	RET
