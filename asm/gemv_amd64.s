//go:build !purego

#include "textflag.h"

// The AVX2+FMA Sgemv kernels: gemvNF32 (B row-major, one row of A against
// column blocks of B) and gemvTLanesF32 (B transposed: dot products of x
// with rows of B, four rows at a time, eight lanes each).

// Register roles of gemvNF32.
#define yPtr  DI  // next 32 (or 8) results
#define xPtr  SI  // &x[0]
#define wCol  DX  // &b[0][j] for the block's first column j
#define nLeft CX  // columns left
#define kLen  BX  // len(x)
#define ldbB  R8  // B's row stride in bytes
#define wRow  R9  // &b[p][j]
#define xp    R10 // &x[p]
#define pLeft R11 // steps left

// func gemvNF32(y, x, b []float32, ldb int)
// In:  y (len a multiple of 8), x (k steps), b row-major, row stride ldb.
// Out: y[j] = Σ_p x[p]·b[p*ldb+j], one FMA a step from +0; Y0–Y4 clobbered.
TEXT ·gemvNF32(SB), NOSPLIT, $0-80
	MOVQ         y_base+0(FP), yPtr          // yPtr = &y[0]
	MOVQ         y_len+8(FP), nLeft          // nLeft = len(y)
	MOVQ         x_base+24(FP), xPtr         // xPtr = &x[0]
	MOVQ         x_len+32(FP), kLen          // kLen = len(x)
	MOVQ         b_base+48(FP), wCol         // wCol = &b[0]
	MOVQ         ldb+72(FP), ldbB            // ldbB = ldb
	SHLQ         $2, ldbB                    // in bytes
block32:
	CMPQ         nLeft, $32                  // 32 columns left?
	JLT          block8                      // else eights
	VXORPS       Y0, Y0, Y0                  // sums[0:8] = 0
	VXORPS       Y1, Y1, Y1                  // sums[8:16] = 0
	VXORPS       Y2, Y2, Y2                  // sums[16:24] = 0
	VXORPS       Y3, Y3, Y3                  // sums[24:32] = 0
	MOVQ         wCol, wRow                  // wRow = &b[0][j]
	MOVQ         xPtr, xp                    // xp = &x[0]
	MOVQ         kLen, pLeft                 // pLeft = k
	TESTQ        pLeft, pLeft                // no steps?
	JZ           store32                     // then zeros
loop32:
	VBROADCASTSS (xp), Y4                    // Y4 = x[p] everywhere
	VFMADD231PS  (wRow), Y4, Y0              // sums[0:8] += x[p]·b[p][j:j+8]
	VFMADD231PS  32(wRow), Y4, Y1            // sums[8:16] += x[p]·b[p][j+8:j+16]
	VFMADD231PS  64(wRow), Y4, Y2            // sums[16:24] += …
	VFMADD231PS  96(wRow), Y4, Y3            // sums[24:32] += …
	ADDQ         $4, xp                      // p++
	ADDQ         ldbB, wRow                  // next row of B
	DECQ         pLeft                       // one step done
	JNZ          loop32                      // until k
store32:
	VMOVUPS      Y0, (yPtr)                  // y[j:j+8] = sums[0:8]
	VMOVUPS      Y1, 32(yPtr)                // y[j+8:j+16] = sums[8:16]
	VMOVUPS      Y2, 64(yPtr)                // y[j+16:j+24] = sums[16:24]
	VMOVUPS      Y3, 96(yPtr)                // y[j+24:j+32] = sums[24:32]
	ADDQ         $128, yPtr                  // j += 32
	ADDQ         $128, wCol                  // wCol too
	SUBQ         $32, nLeft                  // 32 done
	JMP          block32                     // next block
block8:
	CMPQ         nLeft, $8                   // 8 columns left?
	JLT          done                        // finished
	VXORPS       Y0, Y0, Y0                  // sums = 0
	MOVQ         wCol, wRow                  // wRow = &b[0][j]
	MOVQ         xPtr, xp                    // xp = &x[0]
	MOVQ         kLen, pLeft                 // pLeft = k
	TESTQ        pLeft, pLeft                // no steps?
	JZ           store8                      // then zeros
loop8:
	VBROADCASTSS (xp), Y4                    // Y4 = x[p] everywhere
	VFMADD231PS  (wRow), Y4, Y0              // sums += x[p]·b[p][j:j+8]
	ADDQ         $4, xp                      // p++
	ADDQ         ldbB, wRow                  // next row of B
	DECQ         pLeft                       // one step done
	JNZ          loop8                       // until k
store8:
	VMOVUPS      Y0, (yPtr)                  // y[j:j+8] = sums
	ADDQ         $32, yPtr                   // j += 8
	ADDQ         $32, wCol                   // wCol too
	SUBQ         $8, nLeft                   // 8 done
	JMP          block8                      // next eight
done:
	VZEROUPPER
	RET

#undef yPtr
#undef xPtr
#undef kLen
#undef ldbB
#undef xp
#undef pLeft

// Register roles of gemvTLanesF32.
#define lPtr  DI  // lanes of the next row
#define rLeft CX  // rows left
#define xPtr  SI  // &x[0]
#define k8    BX  // len(x)&^7
#define ldbB  R8  // B's row stride in bytes
#define w0    R9  // &b[r][p]
#define w1    R10 // &b[r+1][p]
#define w2    R11 // &b[r+2][p]
#define w3    R12 // &b[r+3][p]
#define xp    R13 // &x[p]
#define pLeft R14 // steps of 8 left
#define wBase DX  // &b[r][0]

// func gemvTLanesF32(lanes, x, b []float32, ldb int)
// In:  lanes (8 per row, rows a multiple of 4), x, b (rows ldb apart).
// Out: lanes[r*8+l] = Σ_{p<k8, p%8==l} x[p]·b[r*ldb+p], one FMA a step
//      from +0; Y0–Y4 clobbered.
TEXT ·gemvTLanesF32(SB), NOSPLIT, $0-80
	MOVQ         lanes_base+0(FP), lPtr      // lPtr = &lanes[0]
	MOVQ         lanes_len+8(FP), rLeft      // rLeft = len(lanes)
	SHRQ         $3, rLeft                   // / 8 = rows
	MOVQ         x_base+24(FP), xPtr         // xPtr = &x[0]
	MOVQ         x_len+32(FP), k8            // k8 = len(x)
	SHRQ         $3, k8                      // in steps of 8
	MOVQ         b_base+48(FP), wBase        // wBase = &b[0][0]
	MOVQ         ldb+72(FP), ldbB            // ldbB = ldb
	SHLQ         $2, ldbB                    // in bytes
group:
	CMPQ         rLeft, $4                   // 4 rows left?
	JLT          done                        // finished
	VXORPS       Y0, Y0, Y0                  // lanes of row r = 0
	VXORPS       Y1, Y1, Y1                  // row r+1
	VXORPS       Y2, Y2, Y2                  // row r+2
	VXORPS       Y3, Y3, Y3                  // row r+3
	MOVQ         wBase, w0                   // w0 = &b[r][0]
	LEAQ         (w0)(ldbB*1), w1            // w1 = &b[r+1][0]
	LEAQ         (w1)(ldbB*1), w2            // w2 = &b[r+2][0]
	LEAQ         (w2)(ldbB*1), w3            // w3 = &b[r+3][0]
	MOVQ         xPtr, xp                    // xp = &x[0]
	MOVQ         k8, pLeft                   // pLeft = k8/8
	TESTQ        pLeft, pLeft                // no steps?
	JZ           store                       // then zeros
loop:
	VMOVUPS      (xp), Y4                    // Y4 = x[p:p+8]
	PREFETCHT0   512(w0)                     // row r, 8 lines ahead
	PREFETCHT0   512(w1)                     // row r+1
	PREFETCHT0   512(w2)                     // row r+2
	PREFETCHT0   512(w3)                     // row r+3
	VFMADD231PS  (w0), Y4, Y0                // row r's lanes += x·b[r][p:p+8]
	VFMADD231PS  (w1), Y4, Y1                // row r+1's
	VFMADD231PS  (w2), Y4, Y2                // row r+2's
	VFMADD231PS  (w3), Y4, Y3                // row r+3's
	ADDQ         $32, xp                     // p += 8
	ADDQ         $32, w0                     // along row r
	ADDQ         $32, w1                     // row r+1
	ADDQ         $32, w2                     // row r+2
	ADDQ         $32, w3                     // row r+3
	DECQ         pLeft                       // 8 steps done
	JNZ          loop                        // until k8
store:
	VMOVUPS      Y0, (lPtr)                  // lanes of row r
	VMOVUPS      Y1, 32(lPtr)                // row r+1
	VMOVUPS      Y2, 64(lPtr)                // row r+2
	VMOVUPS      Y3, 96(lPtr)                // row r+3
	ADDQ         $128, lPtr                  // next 4 rows' lanes
	LEAQ         (wBase)(ldbB*4), wBase      // wBase = &b[r+4][0]
	SUBQ         $4, rLeft                   // 4 rows done
	JMP          group                       // next group
done:
	VZEROUPPER
	RET
