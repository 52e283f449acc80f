//go:build !purego

#include "textflag.h"

// Register roles of dgemmKernel6x8.
#define kLeft  CX  // depth steps left
#define aPtr   SI  // packed A sliver: 6 doubles per step
#define bPtr   DI  // packed B sliver: 8 doubles per step
#define cRow   DX  // current row of the C tile
#define ldcB   R8  // C row stride in bytes
#define bLo    Y0  // B[p][0:4]
#define bHi    Y1  // B[p][4:8]
#define aEven  Y2  // A[p][i] broadcast, rows 0, 2, 4
#define aOdd   Y3  // A[p][i] broadcast, rows 1, 3, 5
#define c0Lo   Y4  // accumulator C[0][0:4]
#define c0Hi   Y5  // accumulator C[0][4:8]
#define c1Lo   Y6  // C[1][0:4]
#define c1Hi   Y7  // C[1][4:8]
#define c2Lo   Y8  // C[2][0:4]
#define c2Hi   Y9  // C[2][4:8]
#define c3Lo   Y10 // C[3][0:4]
#define c3Hi   Y11 // C[3][4:8]
#define c4Lo   Y12 // C[4][0:4]
#define c4Hi   Y13 // C[4][4:8]
#define c5Lo   Y14 // C[5][0:4]
#define c5Hi   Y15 // C[5][4:8]

// ADDROW adds the accumulators lo, hi to the 8 doubles at cRow, then moves
// cRow one row down.
#define ADDROW(lo, hi) \
	VADDPD  (cRow), lo, lo;   /* lo += C[i][0:4]   */ \
	VMOVUPD lo, (cRow);       /* C[i][0:4] = lo    */ \
	VADDPD  32(cRow), hi, hi; /* hi += C[i][4:8]   */ \
	VMOVUPD hi, 32(cRow);     /* C[i][4:8] = hi    */ \
	ADDQ    ldcB, cRow        /* next row of C     */

// func dgemmKernel6x8(k int, a, b, c *float64, ldc int)
//
// In:  k depth, a packed A (k×6, row i of the tile at a[p*6+i]), b packed B
//      (k×8, b[p*8+j]), c the C tile (6 rows of 8, stride ldc doubles).
// Out: C[i][j] += Σ_p a[p*6+i]·b[p*8+j]; Y0–Y15 clobbered.
TEXT ·dgemmKernel6x8(SB), NOSPLIT, $0-40
	MOVQ    k+0(FP), kLeft         // kLeft = k
	MOVQ    a+8(FP), aPtr          // aPtr = &a[0]
	MOVQ    b+16(FP), bPtr         // bPtr = &b[0]
	MOVQ    c+24(FP), cRow         // cRow = &c[0]
	MOVQ    ldc+32(FP), ldcB       // ldcB = ldc
	SHLQ    $3, ldcB               // ldcB *= 8 bytes
	VXORPD  c0Lo, c0Lo, c0Lo       // c0Lo = 0: zero the 12 accumulators
	VXORPD  c0Hi, c0Hi, c0Hi       // c0Hi = 0
	VXORPD  c1Lo, c1Lo, c1Lo       // c1Lo = 0
	VXORPD  c1Hi, c1Hi, c1Hi       // c1Hi = 0
	VXORPD  c2Lo, c2Lo, c2Lo       // c2Lo = 0
	VXORPD  c2Hi, c2Hi, c2Hi       // c2Hi = 0
	VXORPD  c3Lo, c3Lo, c3Lo       // c3Lo = 0
	VXORPD  c3Hi, c3Hi, c3Hi       // c3Hi = 0
	VXORPD  c4Lo, c4Lo, c4Lo       // c4Lo = 0
	VXORPD  c4Hi, c4Hi, c4Hi       // c4Hi = 0
	VXORPD  c5Lo, c5Lo, c5Lo       // c5Lo = 0
	VXORPD  c5Hi, c5Hi, c5Hi       // c5Hi = 0
	TESTQ   kLeft, kLeft           // k == 0?
	JZ      store                  // then C is left as it is (+0)

loop:
	VMOVUPD      (bPtr), bLo       // bLo = B[p][0:4]
	VMOVUPD      32(bPtr), bHi     // bHi = B[p][4:8]
	VBROADCASTSD (aPtr), aEven     // aEven = A[p][0]
	VBROADCASTSD 8(aPtr), aOdd     // aOdd = A[p][1]
	VFMADD231PD  bLo, aEven, c0Lo  // c0Lo += A[p][0]·bLo
	VFMADD231PD  bHi, aEven, c0Hi  // c0Hi += A[p][0]·bHi
	VFMADD231PD  bLo, aOdd, c1Lo   // c1Lo += A[p][1]·bLo
	VFMADD231PD  bHi, aOdd, c1Hi   // c1Hi += A[p][1]·bHi
	VBROADCASTSD 16(aPtr), aEven   // aEven = A[p][2]
	VBROADCASTSD 24(aPtr), aOdd    // aOdd = A[p][3]
	VFMADD231PD  bLo, aEven, c2Lo  // c2Lo += A[p][2]·bLo
	VFMADD231PD  bHi, aEven, c2Hi  // c2Hi += A[p][2]·bHi
	VFMADD231PD  bLo, aOdd, c3Lo   // c3Lo += A[p][3]·bLo
	VFMADD231PD  bHi, aOdd, c3Hi   // c3Hi += A[p][3]·bHi
	VBROADCASTSD 32(aPtr), aEven   // aEven = A[p][4]
	VBROADCASTSD 40(aPtr), aOdd    // aOdd = A[p][5]
	VFMADD231PD  bLo, aEven, c4Lo  // c4Lo += A[p][4]·bLo
	VFMADD231PD  bHi, aEven, c4Hi  // c4Hi += A[p][4]·bHi
	VFMADD231PD  bLo, aOdd, c5Lo   // c5Lo += A[p][5]·bLo
	VFMADD231PD  bHi, aOdd, c5Hi   // c5Hi += A[p][5]·bHi
	ADDQ         $48, aPtr         // next step of A
	ADDQ         $64, bPtr         // next step of B (8 doubles)
	DECQ         kLeft             // one step done
	JNZ          loop              // until k steps

store:
	ADDROW(c0Lo, c0Hi)             // C row 0 += accumulators
	ADDROW(c1Lo, c1Hi)             // C row 1
	ADDROW(c2Lo, c2Hi)             // C row 2
	ADDROW(c3Lo, c3Hi)             // C row 3
	ADDROW(c4Lo, c4Hi)             // C row 4
	ADDROW(c5Lo, c5Hi)             // C row 5
	VZEROUPPER                     // leave AVX state clean for SSE code
	RET
