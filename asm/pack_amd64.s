//go:build !purego

#include "textflag.h"

// Packing of six rows side by side for the GEMM drivers (gemm.go's
// interleave): d[p*stride+i] = alpha·src[i*ld+p] for i < 6. Each step loads
// a run of every row, transposes the 6×W block in registers and stores each
// column's six values with a 16-byte and an 8-byte (float32) or three
// 16-byte (float64) stores, so nothing is written between the columns when
// stride > 6 (the AVX-512 tile's 12 rows are packed as two halves).

// Register roles.
#define dPtr  DI // column p of d
#define row0  SI // rows 0 and 1: (row0), (row0)(ldB*1)
#define row2  R8 // rows 2 and 3
#define row4  R9 // rows 4 and 5
#define ldB   DX // row stride of src in bytes
#define strB  R10 // column stride of d in bytes
#define steps CX // steps left
#define alphaY Y15 // alpha in every lane

// ROWS loads the six rows' next 32 bytes times alpha into Y0–Y5 and moves
// the row pointers on. MUL is VMULPS or VMULPD.
#define ROWS(MUL) \
	MUL  (row0), alphaY, Y0;        /* Y0 = alpha·row 0 */ \
	MUL  (row0)(ldB*1), alphaY, Y1; /* Y1 = alpha·row 1 */ \
	MUL  (row2), alphaY, Y2;        /* Y2 = alpha·row 2 */ \
	MUL  (row2)(ldB*1), alphaY, Y3; /* Y3 = alpha·row 3 */ \
	MUL  (row4), alphaY, Y4;        /* Y4 = alpha·row 4 */ \
	MUL  (row4)(ldB*1), alphaY, Y5; /* Y5 = alpha·row 5 */ \
	ADDQ $32, row0;                 /* next run of rows 0, 1 */ \
	ADDQ $32, row2;                 /* rows 2, 3 */ \
	ADDQ $32, row4                  /* rows 4, 5 */

// ARGS loads the arguments shared by both routines: the row pointers,
// strides and the step count.
#define ARGS(SHIFT) \
	MOVQ d+0(FP), dPtr;             /* dPtr = &d[0] */ \
	MOVQ src+8(FP), row0;           /* row0 = &src[0] */ \
	MOVQ ld+16(FP), ldB;            /* ldB = ld */ \
	SHLQ $SHIFT, ldB;               /* in bytes */ \
	MOVQ n+24(FP), steps;           /* steps = n */ \
	MOVQ stride+32(FP), strB;       /* strB = stride */ \
	SHLQ $SHIFT, strB;              /* in bytes */ \
	LEAQ (row0)(ldB*2), row2;       /* row2 = row 2 */ \
	LEAQ (row2)(ldB*2), row4        /* row4 = row 4 */

// Eight-row packing (pack8F32) adds rows 6 and 7.
#define row6  R11 // rows 6 and 7

// HALVES loads four columns of the eight rows, from byte offset off: the
// Y registers y0–y3 (x0–x3 their low halves) hold rows 0–3 in their low and
// rows 4–7 in their high lanes.
#define HALVES(off, x0, y0, x1, y1, x2, y2, x3, y3) \
	VMOVUPS     off(row0), x0;                 /* y0 = row 0 */ \
	VINSERTF128 $1, off(row4), y0, y0;         /* | row 4 */ \
	VMOVUPS     off(row0)(ldB*1), x1;          /* y1 = row 1 */ \
	VINSERTF128 $1, off(row4)(ldB*1), y1, y1;  /* | row 5 */ \
	VMOVUPS     off(row2), x2;                 /* y2 = row 2 */ \
	VINSERTF128 $1, off(row6), y2, y2;         /* | row 6 */ \
	VMOVUPS     off(row2)(ldB*1), x3;          /* y3 = row 3 */ \
	VINSERTF128 $1, off(row6)(ldB*1), y3, y3   /* | row 7 */

// T4 transposes the 4×4 blocks in each lane of y0–y3 (rows in, columns
// out) through Y8–Y11.
#define T4(y0, y1, y2, y3) \
	VUNPCKLPS y1, y0, Y8;                 /* Y8 = r0,r1 of columns 0,1 */ \
	VUNPCKHPS y1, y0, Y9;                 /* Y9 = r0,r1 of columns 2,3 */ \
	VUNPCKLPS y3, y2, Y10;                /* Y10 = r2,r3 of columns 0,1 */ \
	VUNPCKHPS y3, y2, Y11;                /* Y11 = r2,r3 of columns 2,3 */ \
	VSHUFPS   $0x44, Y10, Y8, y0;         /* y0 = column 0, rows 0:4 | 4:8 */ \
	VSHUFPS   $0xEE, Y10, Y8, y1;         /* y1 = column 1 */ \
	VSHUFPS   $0x44, Y11, Y9, y2;         /* y2 = column 2 */ \
	VSHUFPS   $0xEE, Y11, Y9, y3          /* y3 = column 3 */

// COL stores one column's eight floats and moves dPtr to the next column.
#define COL(y) \
	VMOVUPS y, (dPtr);                    /* column, rows 0:8 */ \
	ADDQ    strB, dPtr                    /* next column */

// ROWARGS loads the arguments of copyRows64 and copyRows128: DI the next
// row of d, SI of s, DX the row stride of s, CX the rows left.
#define ROWARGS \
	MOVQ d+0(FP), DI;               /* DI = &d */ \
	MOVQ s+8(FP), SI;               /* SI = &s */ \
	MOVQ ld+16(FP), DX;             /* DX = ld */ \
	MOVQ n+24(FP), CX               /* CX = n */

// func pack6F32(d, src *float32, ld, n, stride int, alpha float32)
//
// In:  src six rows ld floats apart, 8n floats each; d 8n columns stride
//      floats apart, six floats each; n ≥ 1.
// Out: d[p*stride+i] = alpha·src[i*ld+p], p < 8n, i < 6. Clobbers CX, DX,
//      SI, DI, R8–R10, Y0–Y11, Y15. Needs AVX.
TEXT ·pack6F32(SB), NOSPLIT, $0-44
	ARGS(2)                         // pointers, strides, steps
	VBROADCASTSS alpha+40(FP), alphaY // alphaY = alpha
loop:
	ROWS(VMULPS)                    // Y0–Y5 = alpha·rows[p:p+8]
	VUNPCKLPS Y1, Y0, Y6            // Y6 = r0,r1 of columns 0,1 | 4,5
	VUNPCKHPS Y1, Y0, Y7            // Y7 = r0,r1 of columns 2,3 | 6,7
	VUNPCKLPS Y3, Y2, Y8            // Y8 = r2,r3 of columns 0,1 | 4,5
	VUNPCKHPS Y3, Y2, Y9            // Y9 = r2,r3 of columns 2,3 | 6,7
	VUNPCKLPS Y5, Y4, Y10           // Y10 = r4,r5 of columns 0,1 | 4,5
	VUNPCKHPS Y5, Y4, Y11           // Y11 = r4,r5 of columns 2,3 | 6,7
	VSHUFPS   $0x44, Y8, Y6, Y0     // Y0 = r0:r4 of column 0 | 4
	VSHUFPS   $0xEE, Y8, Y6, Y1     // Y1 = r0:r4 of column 1 | 5
	VSHUFPS   $0x44, Y9, Y7, Y2     // Y2 = r0:r4 of column 2 | 6
	VSHUFPS   $0xEE, Y9, Y7, Y3     // Y3 = r0:r4 of column 3 | 7
	VMOVUPS   X0, (dPtr)            // column 0, rows 0:4
	VMOVLPS   X10, 16(dPtr)         // rows 4:6
	ADDQ      strB, dPtr            // column 1
	VMOVUPS   X1, (dPtr)            // rows 0:4
	VMOVHPS   X10, 16(dPtr)         // rows 4:6
	ADDQ      strB, dPtr            // column 2
	VMOVUPS   X2, (dPtr)            // rows 0:4
	VMOVLPS   X11, 16(dPtr)         // rows 4:6
	ADDQ      strB, dPtr            // column 3
	VMOVUPS   X3, (dPtr)            // rows 0:4
	VMOVHPS   X11, 16(dPtr)         // rows 4:6
	ADDQ      strB, dPtr            // column 4
	VEXTRACTF128 $1, Y10, X10       // X10 = r4,r5 of columns 4, 5
	VEXTRACTF128 $1, Y11, X11       // X11 = r4,r5 of columns 6, 7
	VEXTRACTF128 $1, Y0, (dPtr)     // column 4, rows 0:4
	VMOVLPS   X10, 16(dPtr)         // rows 4:6
	ADDQ      strB, dPtr            // column 5
	VEXTRACTF128 $1, Y1, (dPtr)     // rows 0:4
	VMOVHPS   X10, 16(dPtr)         // rows 4:6
	ADDQ      strB, dPtr            // column 6
	VEXTRACTF128 $1, Y2, (dPtr)     // rows 0:4
	VMOVLPS   X11, 16(dPtr)         // rows 4:6
	ADDQ      strB, dPtr            // column 7
	VEXTRACTF128 $1, Y3, (dPtr)     // rows 0:4
	VMOVHPS   X11, 16(dPtr)         // rows 4:6
	ADDQ      strB, dPtr            // column 8
	DECQ      steps                 // one step done
	JNZ       loop                  // more steps
	VZEROUPPER
	RET

// func pack6F64(d, src *float64, ld, n, stride int, alpha float64)
//
// In:  src six rows ld floats apart, 4n floats each; d 4n columns stride
//      floats apart, six floats each; n ≥ 1.
// Out: d[p*stride+i] = alpha·src[i*ld+p], p < 4n, i < 6. Clobbers CX, DX,
//      SI, DI, R8–R10, Y0–Y11, Y15. Needs AVX.
TEXT ·pack6F64(SB), NOSPLIT, $0-48
	ARGS(3)                         // pointers, strides, steps
	VBROADCASTSD alpha+40(FP), alphaY // alphaY = alpha
loop:
	ROWS(VMULPD)                    // Y0–Y5 = alpha·rows[p:p+4]
	VUNPCKLPD Y1, Y0, Y6            // Y6 = r0,r1 of column 0 | 2
	VUNPCKHPD Y1, Y0, Y7            // Y7 = r0,r1 of column 1 | 3
	VUNPCKLPD Y3, Y2, Y8            // Y8 = r2,r3 of column 0 | 2
	VUNPCKHPD Y3, Y2, Y9            // Y9 = r2,r3 of column 1 | 3
	VUNPCKLPD Y5, Y4, Y10           // Y10 = r4,r5 of column 0 | 2
	VUNPCKHPD Y5, Y4, Y11           // Y11 = r4,r5 of column 1 | 3
	VMOVUPD   X6, (dPtr)            // column 0, rows 0:2
	VMOVUPD   X8, 16(dPtr)          // rows 2:4
	VMOVUPD   X10, 32(dPtr)         // rows 4:6
	ADDQ      strB, dPtr            // column 1
	VMOVUPD   X7, (dPtr)            // rows 0:2
	VMOVUPD   X9, 16(dPtr)          // rows 2:4
	VMOVUPD   X11, 32(dPtr)         // rows 4:6
	ADDQ      strB, dPtr            // column 2
	VEXTRACTF128 $1, Y6, (dPtr)     // rows 0:2
	VEXTRACTF128 $1, Y8, 16(dPtr)   // rows 2:4
	VEXTRACTF128 $1, Y10, 32(dPtr)  // rows 4:6
	ADDQ      strB, dPtr            // column 3
	VEXTRACTF128 $1, Y7, (dPtr)     // rows 0:2
	VEXTRACTF128 $1, Y9, 16(dPtr)   // rows 2:4
	VEXTRACTF128 $1, Y11, 32(dPtr)  // rows 4:6
	ADDQ      strB, dPtr            // column 4
	DECQ      steps                 // one step done
	JNZ       loop                  // more steps
	VZEROUPPER
	RET

// func pack8F32(d, src *float32, ld, n, stride int)
//
// In:  src eight rows ld floats apart, 8n floats each; d 8n columns stride
//      floats apart, eight floats each; n ≥ 1.
// Out: d[p*stride+i] = src[i*ld+p], p < 8n, i < 8: each step transposes an
//      8×8 block (rows 0–3 and 4–7 loaded into the two lanes, a 4×4
//      transpose per lane) and stores whole 32-byte columns. Clobbers CX,
//      DX, SI, DI, R8–R11, Y0–Y11. Needs AVX.
TEXT ·pack8F32(SB), NOSPLIT, $0-40
	MOVQ d+0(FP), dPtr              // dPtr = &d[0]
	MOVQ src+8(FP), row0            // row0 = &src[0]
	MOVQ ld+16(FP), ldB             // ldB = ld
	SHLQ $2, ldB                    // in bytes
	MOVQ n+24(FP), steps            // steps = n
	MOVQ stride+32(FP), strB        // strB = stride
	SHLQ $2, strB                   // in bytes
	LEAQ (row0)(ldB*2), row2        // row2 = row 2
	LEAQ (row2)(ldB*2), row4        // row4 = row 4
	LEAQ (row4)(ldB*2), row6        // row6 = row 6
loop8:
	HALVES(0, X0, Y0, X1, Y1, X2, Y2, X3, Y3)  // Y0–Y3 = columns 0:4 of rows 0–3 | 4–7
	HALVES(16, X4, Y4, X5, Y5, X6, Y6, X7, Y7) // Y4–Y7 = columns 4:8
	T4(Y0, Y1, Y2, Y3)              // Y0–Y3 = columns 0–3
	T4(Y4, Y5, Y6, Y7)              // Y4–Y7 = columns 4–7
	COL(Y0); COL(Y1); COL(Y2); COL(Y3) // columns 0–3
	COL(Y4); COL(Y5); COL(Y6); COL(Y7) // columns 4–7
	ADDQ $32, row0                  // next 8 columns of rows 0, 1
	ADDQ $32, row2                  // rows 2, 3
	ADDQ $32, row4                  // rows 4, 5
	ADDQ $32, row6                  // rows 6, 7
	DECQ steps                      // one step done
	JNZ  loop8                      // more steps
	VZEROUPPER
	RET

// func copyRows64(d, s unsafe.Pointer, ld, n int)
//
// In:  n ≥ 1 rows of 64 bytes at s, ld bytes apart; d holds 64n bytes.
// Out: the rows back to back at d (B's slivers of 16 float32 or 8 float64
//      per step). Clobbers CX, DX, SI, DI, Y0, Y1. Needs AVX.
TEXT ·copyRows64(SB), NOSPLIT, $0-32
	ROWARGS                         // DI = d, SI = s, DX = ld, CX = n
rows64:
	VMOVUPS (SI), Y0                // Y0, Y1 = the row
	VMOVUPS 32(SI), Y1
	VMOVUPS Y0, (DI)                // stored at d
	VMOVUPS Y1, 32(DI)
	ADDQ    DX, SI                  // next row of s
	ADDQ    $64, DI                 // of d
	DECQ    CX                      // one row done
	JNZ     rows64                  // more
	VZEROUPPER
	RET

// func copyRows128(d, s unsafe.Pointer, ld, n int)
//
// In:  n ≥ 1 rows of 128 bytes at s, ld bytes apart; d holds 128n bytes.
// Out: the rows back to back at d (32 float32 or 16 float64 per step).
//      Clobbers CX, DX, SI, DI, Y0–Y3. Needs AVX.
TEXT ·copyRows128(SB), NOSPLIT, $0-32
	ROWARGS                         // DI = d, SI = s, DX = ld, CX = n
rows128:
	VMOVUPS (SI), Y0                // Y0–Y3 = the row
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	VMOVUPS Y0, (DI)                // stored at d
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    DX, SI                  // next row of s
	ADDQ    $128, DI                // of d
	DECQ    CX                      // one row done
	JNZ     rows128                 // more
	VZEROUPPER
	RET

// func gatherRows128(d, s unsafe.Pointer, base int, offs *int, n, scale int)
//
// In:  n ≥ 1 element offsets offs[0:n]; rows of 128 bytes at
//      s + (base + offs[p])·scale (scale the element size, 4 or 8); d holds
//      128n bytes.
// Out: the rows back to back at d (a GEMM sliver of 32 float32 or 16
//      float64 gathered from rows at any offsets). Clobbers AX, BX, CX, DX,
//      DI, SI, R8, Y0–Y3. Needs AVX.
TEXT ·gatherRows128(SB), NOSPLIT, $0-48
	MOVQ d+0(FP), DI                // DI = &d
	MOVQ s+8(FP), SI                // SI = &s
	MOVQ base+16(FP), DX            // DX = base
	MOVQ offs+24(FP), R8            // R8 = &offs[0]
	MOVQ n+32(FP), CX               // CX = n
	MOVQ scale+40(FP), BX           // BX = scale
gather128:
	MOVQ    (R8), AX                // AX = offs[p]
	ADDQ    DX, AX                  // + base
	IMULQ   BX, AX                  // in bytes
	VMOVUPS (SI)(AX*1), Y0          // Y0–Y3 = the row
	VMOVUPS 32(SI)(AX*1), Y1
	VMOVUPS 64(SI)(AX*1), Y2
	VMOVUPS 96(SI)(AX*1), Y3
	VMOVUPS Y0, (DI)                // stored at d
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    $8, R8                  // next offset
	ADDQ    $128, DI                // next row of d
	DECQ    CX                      // one row done
	JNZ     gather128               // more
	VZEROUPPER
	RET

// func copyRowsAny(d, s unsafe.Pointer, ldd, lds, rows, n int)
//
// In:  rows ≥ 1 rows of n ≥ 32 bytes at s, lds bytes apart, to d, ldd bytes
//      apart (not overlapping). The row moves 32 bytes at a time and its
//      last 32 bytes once more (overlapping the previous move when n is not
//      a multiple of 32). Clobbers AX, CX, DX, DI, SI, R8, R9, R10, Y0.
//      Needs AVX.
TEXT ·copyRowsAny(SB), NOSPLIT, $0-48
	MOVQ d+0(FP), DI                // DI = d's row
	MOVQ s+8(FP), SI                // SI = s's row
	MOVQ ldd+16(FP), R8             // R8 = ldd
	MOVQ lds+24(FP), R9             // R9 = lds
	MOVQ rows+32(FP), CX            // CX = rows left
	MOVQ n+40(FP), DX               // DX = n
	LEAQ -32(DX), R10               // R10 = offset of the last 32 bytes
anyRow:
	XORQ AX, AX                     // AX = offset in the row
anyVec:
	CMPQ    AX, R10                 // past the last whole vector?
	JGE     anyTail
	VMOVUPS (SI)(AX*1), Y0          // 32 bytes
	VMOVUPS Y0, (DI)(AX*1)
	ADDQ    $32, AX
	JMP     anyVec
anyTail:
	VMOVUPS (SI)(R10*1), Y0         // the last 32 bytes
	VMOVUPS Y0, (DI)(R10*1)
	ADDQ    R8, DI                  // next row of d
	ADDQ    R9, SI                  // of s
	DECQ    CX                      // one row done
	JNZ     anyRow
	VZEROUPPER
	RET

// func copyRowsAddF32(d, s unsafe.Pointer, ldd, lds, rows, n int, b float32)
//
// In:  as copyRowsAny (n ≥ 32 bytes, rows ≥ 1), float32 elements.
// Out: d's rows = s's rows + b, each element rounded once (the last 32
//      bytes of a row redone, as copyRowsAny). Clobbers AX, CX, DX, DI,
//      SI, R8, R9, R10, Y0, Y1. Needs AVX.
TEXT ·copyRowsAddF32(SB), NOSPLIT, $0-52
	MOVQ         d+0(FP), DI        // DI = d's row
	MOVQ         s+8(FP), SI        // SI = s's row
	MOVQ         ldd+16(FP), R8     // R8 = ldd
	MOVQ         lds+24(FP), R9     // R9 = lds
	MOVQ         rows+32(FP), CX    // CX = rows left
	MOVQ         n+40(FP), DX       // DX = n
	VBROADCASTSS b+48(FP), Y1       // Y1 = b in every lane
	LEAQ         -32(DX), R10       // R10 = offset of the last 32 bytes
addRow:
	XORQ AX, AX                     // AX = offset in the row
addVec:
	CMPQ    AX, R10                 // past the last whole vector?
	JGE     addTail
	VADDPS  (SI)(AX*1), Y1, Y0      // 8 elements + b
	VMOVUPS Y0, (DI)(AX*1)
	ADDQ    $32, AX
	JMP     addVec
addTail:
	VADDPS  (SI)(R10*1), Y1, Y0     // the last 8 + b
	VMOVUPS Y0, (DI)(R10*1)
	ADDQ    R8, DI                  // next row of d
	ADDQ    R9, SI                  // of s
	DECQ    CX                      // one row done
	JNZ     addRow
	VZEROUPPER
	RET
