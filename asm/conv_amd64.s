//go:build !purego

#include "textflag.h"
#include "tailmask_amd64.h"

// The depthwise-convolution kernels, AVX2+FMA (8 lanes) and AVX-512 (16
// lanes). Both walk four output rows at a time (then single rows), a vector
// of columns at a time; each tap's weight is broadcast once and added to the
// four rows' sums with one fused multiply-add each, so every output element
// is init + its taps in order, as depthwiseGo computes it. The last vector
// of a row is masked: the loads and stores touch only the columns in range.
//
// Arguments (both): dst, ldd, x, ldx, w, off, rows, cols, init.

// Register roles.
#define dRow  DI  // dst: the first of the rows in hand
#define ldD   DX  // ldd in bytes
#define xRow  SI  // x: the first of the rows in hand
#define ldX   BX  // ldx in bytes
#define ldX3  R13 // 3·ldx in bytes
#define wPtr  R8  // w
#define oPtr  R9  // off
#define nTaps R10 // len(w)
#define nRows R11 // rows left
#define nCols R12 // cols
#define col   R14 // the first column of the vector in hand
#define tap   CX  // the tap in hand

// ARGS loads the arguments into their registers.
#define ARGS \
	MOVQ dst_base+0(FP), dRow;                /* dRow = dst             */ \
	MOVQ ldd+24(FP), ldD;                     /* ldD = ldd              */ \
	SHLQ $2, ldD;                             /* in bytes               */ \
	MOVQ x_base+32(FP), xRow;                 /* xRow = x               */ \
	MOVQ ldx+56(FP), ldX;                     /* ldX = ldx              */ \
	SHLQ $2, ldX;                             /* in bytes               */ \
	LEAQ (ldX)(ldX*2), ldX3;                  /* ldX3 = 3·ldX           */ \
	MOVQ w_base+64(FP), wPtr;                 /* wPtr = w               */ \
	MOVQ w_len+72(FP), nTaps;                 /* nTaps = len(w)         */ \
	MOVQ off_base+88(FP), oPtr;               /* oPtr = off             */ \
	MOVQ rows+112(FP), nRows;                 /* nRows = rows           */ \
	MOVQ cols+120(FP), nCols                  /* nCols = cols           */

// TAPX sets AX to the address of x[row 0 of those in hand][col + off[tap]]
// and broadcasts w[tap] into wv.
#define TAPX(wv) \
	MOVQ         (oPtr)(tap*8), AX;           /* AX = off[tap]          */ \
	ADDQ         col, AX;                     /* + col                  */ \
	LEAQ         (xRow)(AX*4), AX;            /* AX = &x[0][col+off]    */ \
	VBROADCASTSS (wPtr)(tap*4), wv            /* wv = w[tap]            */

// REDO4 goes back to quad with the last four rows in hand when the call has
// four rows or more and 1–3 are left: the rows done twice get the same
// values (dst must not overlap x), and every sum is one of four
// independent chains instead of a lone one.
#define REDO4 \
	CMPQ      rows+112(FP), $4;               /* four rows at all?      */ \
	JLT       10(PC);                         /* no: single rows        */ \
	MOVQ      $4, AX;                         /* AX = 4                 */ \
	SUBQ      nRows, AX;                      /* - left: rows to redo   */ \
	MOVQ      AX, CX;                         /* CX = those rows        */ \
	IMULQ     ldX, CX;                        /* in x's bytes           */ \
	SUBQ      CX, xRow;                       /* x back by them         */ \
	IMULQ     ldD, AX;                        /* in dst's bytes         */ \
	SUBQ      AX, dRow;                       /* dst back by them       */ \
	MOVQ      $4, nRows;                      /* four rows in hand      */ \
	JMP       quad                            /* as a block of four     */

// MASK8 sets Y10 to the lanes of columns col … min(col+8, cols) - 1.
#define MASK8 \
	MOVQ      nCols, AX;                      /* AX = cols              */ \
	SUBQ      col, AX;                        /* - col: columns left    */ \
	MOVQ      $8, CX;                         /* CX = 8                 */ \
	CMPQ      AX, CX;                         /* more than 8?           */ \
	CMOVQGT   CX, AX;                         /* then 8                 */ \
	TAILMASK32(AX, CX, Y10)                   /* Y10 = the lane mask    */

// DWLOOPS(W, MASK, SET4, TAP4, ST4, SET1, TAP1, ST1) is the body of both
// kernels, W lanes per vector: blocks of four rows (the last block redone
// over the last four rows, REDO4), single rows only when there are fewer
// than four; in each, the row's vectors of columns under the lane mask
// MASK sets, the sums set to init (SET), every tap added (TAP), the sums
// stored (ST).
#define DWLOOPS(W, MASK, SET4, TAP4, ST4, SET1, TAP1, ST1) \
quad: \
	CMPQ         nRows, $4;                   /* four rows left?        */ \
	JLT          single;                      /* no: one at a time      */ \
	XORQ         col, col;                    /* col = 0                */ \
quadCol: \
	MASK;                                     /* the columns in range   */ \
	SET4;                                     /* four rows' sums = init */ \
	XORQ         tap, tap;                    /* tap = 0                */ \
quadTap: \
	TAP4;                                     /* four rows += w·x       */ \
	INCQ         tap;                         /* next tap               */ \
	CMPQ         tap, nTaps;                  /* any left?              */ \
	JLT          quadTap;                     /* then add it            */ \
	ST4;                                      /* dst's four rows = sums */ \
	ADDQ         $W, col;                     /* next vector            */ \
	CMPQ         col, nCols;                  /* any columns left?      */ \
	JLT          quadCol;                     /* then do them           */ \
	LEAQ         (xRow)(ldX*4), xRow;         /* x four rows on         */ \
	LEAQ         (dRow)(ldD*4), dRow;         /* dst four rows on       */ \
	SUBQ         $4, nRows;                   /* four rows done         */ \
	JMP          quad;                        /* again                  */ \
single: \
	TESTQ        nRows, nRows;                /* a row left?            */ \
	JZ           done;                        /* finished               */ \
	REDO4;                                    /* four rows at all: redo the last four */ \
	XORQ         col, col;                    /* col = 0                */ \
singleCol: \
	MASK;                                     /* the columns in range   */ \
	SET1;                                     /* the row's sums = init  */ \
	XORQ         tap, tap;                    /* tap = 0                */ \
singleTap: \
	TAP1;                                     /* the row += w·x         */ \
	INCQ         tap;                         /* next tap               */ \
	CMPQ         tap, nTaps;                  /* any left?              */ \
	JLT          singleTap;                   /* then add it            */ \
	ST1;                                      /* dst's row = sums       */ \
	ADDQ         $W, col;                     /* next vector            */ \
	CMPQ         col, nCols;                  /* any columns left?      */ \
	JLT          singleCol;                   /* then do them           */ \
	ADDQ         ldX, xRow;                   /* x a row on             */ \
	ADDQ         ldD, dRow;                   /* dst a row on           */ \
	DECQ         nRows;                       /* a row done             */ \
	JMP          single;                      /* again                  */ \
done: \
	VZEROUPPER;                               /* clean AVX state        */ \
	RET

// The AVX2 steps: Y0–Y3 the four rows' sums, Y4–Y7 their x, Y8 the
// weight, Y9 init, Y10 the lane mask (VMASKMOVPS reads and writes only the
// lanes in range).
#define SET4Y \
	VMOVAPS      Y9, Y0;                      /* row 0 = init           */ \
	VMOVAPS      Y9, Y1;                      /* row 1 = init           */ \
	VMOVAPS      Y9, Y2;                      /* row 2 = init           */ \
	VMOVAPS      Y9, Y3                       /* row 3 = init           */
#define TAP4Y \
	TAPX(Y8);                                 /* AX = &x[0][col+off], Y8 = w */ \
	VMASKMOVPS   (AX), Y10, Y4;               /* Y4 = x row 0           */ \
	VMASKMOVPS   (AX)(ldX*1), Y10, Y5;        /* Y5 = x row 1           */ \
	VMASKMOVPS   (AX)(ldX*2), Y10, Y6;        /* Y6 = x row 2           */ \
	VMASKMOVPS   (AX)(ldX3*1), Y10, Y7;       /* Y7 = x row 3           */ \
	VFMADD231PS  Y4, Y8, Y0;                  /* row 0 += w·x           */ \
	VFMADD231PS  Y5, Y8, Y1;                  /* row 1 += w·x           */ \
	VFMADD231PS  Y6, Y8, Y2;                  /* row 2 += w·x           */ \
	VFMADD231PS  Y7, Y8, Y3                   /* row 3 += w·x           */
#define ST4Y \
	LEAQ         (dRow)(col*4), AX;           /* AX = &dst[0][col]      */ \
	VMASKMOVPS   Y0, Y10, (AX);               /* dst row 0              */ \
	VMASKMOVPS   Y1, Y10, (AX)(ldD*1);        /* dst row 1              */ \
	LEAQ         (AX)(ldD*2), AX;             /* AX = &dst[2][col]      */ \
	VMASKMOVPS   Y2, Y10, (AX);               /* dst row 2              */ \
	VMASKMOVPS   Y3, Y10, (AX)(ldD*1)         /* dst row 3              */
#define SET1Y VMOVAPS Y9, Y0                   /* row = init             */
#define TAP1Y \
	TAPX(Y8);                                 /* AX = &x[0][col+off], Y8 = w */ \
	VMASKMOVPS   (AX), Y10, Y4;               /* Y4 = x                 */ \
	VFMADD231PS  Y4, Y8, Y0                   /* row += w·x             */
#define ST1Y \
	LEAQ         (dRow)(col*4), AX;           /* AX = &dst[0][col]      */ \
	VMASKMOVPS   Y0, Y10, (AX)                /* dst row                */

// func depthwiseF32(dst []float32, ldd int, x []float32, ldx int, w []float32, off []int, rows, cols int, init float32)
TEXT ·depthwiseF32(SB), NOSPLIT, $0-132
	ARGS
	VBROADCASTSS init+128(FP), Y9             // Y9 = init
	DWLOOPS(8, MASK8, SET4Y, TAP4Y, ST4Y, SET1Y, TAP1Y, ST1Y)

// The AVX-512 steps: Z0–Z3 the four rows' sums, Z8 the weight, Z9 init, K1
// the lane mask. The fused multiply-adds read x directly under K1 (masked
// lanes are not read and keep their sum).

// MASK16 sets K1 to the lanes of columns col … min(col+16, cols) - 1.
#define MASK16 \
	MOVQ      nCols, CX;                      /* CX = cols              */ \
	SUBQ      col, CX;                        /* - col: columns left    */ \
	MOVL      $0xffff, AX;                    /* AX = 16 lanes          */ \
	CMPQ      CX, $16;                        /* 16 or more left?       */ \
	JGE       4(PC);                          /* then all of them       */ \
	MOVL      $1, AX;                         /* AX = 1                 */ \
	SHLL      CX, AX;                         /* AX = 1 << left         */ \
	DECL      AX;                             /* AX = left low bits     */ \
	KMOVW     AX, K1                          /* K1 = those lanes       */
#define SET4Z \
	VMOVAPS      Z9, Z0;                      /* row 0 = init           */ \
	VMOVAPS      Z9, Z1;                      /* row 1 = init           */ \
	VMOVAPS      Z9, Z2;                      /* row 2 = init           */ \
	VMOVAPS      Z9, Z3                       /* row 3 = init           */
#define TAP4Z \
	TAPX(Z8);                                 /* AX = &x[0][col+off], Z8 = w */ \
	VFMADD231PS  (AX), Z8, K1, Z0;            /* row 0 += w·x           */ \
	VFMADD231PS  (AX)(ldX*1), Z8, K1, Z1;     /* row 1 += w·x           */ \
	VFMADD231PS  (AX)(ldX*2), Z8, K1, Z2;     /* row 2 += w·x           */ \
	VFMADD231PS  (AX)(ldX3*1), Z8, K1, Z3     /* row 3 += w·x           */
#define ST4Z \
	LEAQ         (dRow)(col*4), AX;           /* AX = &dst[0][col]      */ \
	VMOVUPS      Z0, K1, (AX);                /* dst row 0              */ \
	VMOVUPS      Z1, K1, (AX)(ldD*1);         /* dst row 1              */ \
	LEAQ         (AX)(ldD*2), AX;             /* AX = &dst[2][col]      */ \
	VMOVUPS      Z2, K1, (AX);                /* dst row 2              */ \
	VMOVUPS      Z3, K1, (AX)(ldD*1)          /* dst row 3              */
#define SET1Z VMOVAPS Z9, Z0                   /* row = init             */
#define TAP1Z \
	TAPX(Z8);                                 /* AX = &x[0][col+off], Z8 = w */ \
	VFMADD231PS  (AX), Z8, K1, Z0             /* row += w·x             */
#define ST1Z \
	LEAQ         (dRow)(col*4), AX;           /* AX = &dst[0][col]      */ \
	VMOVUPS      Z0, K1, (AX)                 /* dst row                */

// func depthwiseF32AVX512(dst []float32, ldd int, x []float32, ldx int, w []float32, off []int, rows, cols int, init float32)
TEXT ·depthwiseF32AVX512(SB), NOSPLIT, $0-132
	ARGS
	VBROADCASTSS init+128(FP), Z9             // Z9 = init
	DWLOOPS(16, MASK16, SET4Z, TAP4Z, ST4Z, SET1Z, TAP1Z, ST1Z)
