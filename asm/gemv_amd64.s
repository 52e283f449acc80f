//go:build !purego

#include "textflag.h"

// The AVX2+FMA Sgemv kernels: gemvNF32 (B row-major: x·B for a block of
// columns, B's rows streamed through in order) and gemvTLanesF32 (B transposed: dot products of x
// with rows of B, one row at a time in 32 lanes).

// Register roles of gemvNF32.
#define yBase DI  // &y[0]
#define nLen  CX  // len(y)
#define xp    SI  // &x[p]
#define pLeft BX  // rows of B left
#define wRow  DX  // &b[p][0]
#define ldbB  R8  // B's row stride in bytes
#define yp    R9  // &y[j]
#define wp    R10 // &b[p][j]
#define jLeft R11 // columns left in the row
#define pfOff R12 // prefetch distance in bytes
#define xv    Y15 // x[p] everywhere

// func gemvNF32(y, x, b []float32, ldb, pf int)
// In:  y (len a positive multiple of 8), x (k steps), b row-major, row
//      stride ldb; pf, how far ahead of its loads in B to prefetch, in
//      bytes.
// Out: y[j] = Σ_p x[p]·b[p*ldb+j], one FMA a step from +0, as gemvNGo:
//      y is zeroed, then each row of B streams through once, y[j] =
//      x[p]·b[p][j] + y[j] (y stays in L1). Y0–Y3, Y15 clobbered.
TEXT ·gemvNF32(SB), NOSPLIT, $0-88
	MOVQ         y_base+0(FP), yBase         // yBase = &y[0]
	MOVQ         y_len+8(FP), nLen           // nLen = len(y)
	MOVQ         x_base+24(FP), xp           // xp = &x[0]
	MOVQ         x_len+32(FP), pLeft         // pLeft = len(x)
	MOVQ         b_base+48(FP), wRow         // wRow = &b[0][0]
	MOVQ         ldb+72(FP), ldbB            // ldbB = ldb
	SHLQ         $2, ldbB                    // in bytes
	MOVQ         pf+80(FP), pfOff            // pfOff = pf
	VXORPS       Y0, Y0, Y0                  // Y0 = +0
	MOVQ         yBase, yp                   // yp = &y[0]
	MOVQ         nLen, jLeft                 // jLeft = len(y)
zero:
	VMOVUPS      Y0, (yp)                    // y[j:j+8] = +0
	ADDQ         $32, yp                     // j += 8
	SUBQ         $8, jLeft                   // 8 done
	JNZ          zero                        // until len(y)
row:
	TESTQ        pLeft, pLeft                // rows of B left?
	JZ           done                        // finished
	VBROADCASTSS (xp), xv                    // xv = x[p] everywhere
	MOVQ         yBase, yp                   // yp = &y[0]
	MOVQ         wRow, wp                    // wp = &b[p][0]
	MOVQ         nLen, jLeft                 // jLeft = len(y)
	CMPQ         jLeft, $32                  // 32 columns?
	JLT          loop8                       // else eights
loop32:
	PREFETCHNTA  (wp)(pfOff*1)               // the two lines pf bytes on
	PREFETCHNTA  64(wp)(pfOff*1)
	VMOVUPS      (yp), Y0                    // Y0:Y3 = y[j:j+32]
	VMOVUPS      32(yp), Y1
	VMOVUPS      64(yp), Y2
	VMOVUPS      96(yp), Y3
	VFMADD231PS  (wp), xv, Y0                // y[j:j+8] += x[p]·b[p][j:j+8]
	VFMADD231PS  32(wp), xv, Y1              // y[j+8:j+16] += …
	VFMADD231PS  64(wp), xv, Y2              // y[j+16:j+24] += …
	VFMADD231PS  96(wp), xv, Y3              // y[j+24:j+32] += …
	VMOVUPS      Y0, (yp)                    // y[j:j+32] = Y0:Y3
	VMOVUPS      Y1, 32(yp)
	VMOVUPS      Y2, 64(yp)
	VMOVUPS      Y3, 96(yp)
	ADDQ         $128, yp                    // j += 32
	ADDQ         $128, wp                    // along the row
	SUBQ         $32, jLeft                  // 32 done
	CMPQ         jLeft, $32                  // 32 more?
	JGE          loop32                      // then again
	TESTQ        jLeft, jLeft                // eights left?
	JZ           next                        // else the next row
loop8:
	VMOVUPS      (yp), Y0                    // Y0 = y[j:j+8]
	VFMADD231PS  (wp), xv, Y0                // += x[p]·b[p][j:j+8]
	VMOVUPS      Y0, (yp)                    // y[j:j+8] = Y0
	ADDQ         $32, yp                     // j += 8
	ADDQ         $32, wp                     // along the row
	SUBQ         $8, jLeft                   // 8 done
	JNZ          loop8                       // until len(y)
next:
	ADDQ         $4, xp                      // p++
	ADDQ         ldbB, wRow                  // next row of B
	DECQ         pLeft                       // one row done
	JMP          row                         // next row
done:
	VZEROUPPER
	RET

#undef yBase
#undef nLen
#undef xp
#undef pLeft
#undef wRow
#undef ldbB
#undef yp
#undef wp
#undef jLeft
#undef pfOff
#undef xv

// gemvTAhead is how far ahead of its loads gemvTLanesF32 prefetches, in
// bytes (gemvAhead in gemv_amd64.go): a row and the next are adjacent when
// ldb = len(x) (a weight as stored), so this stays one stream across rows.
#define gemvTAhead 4096

// Register roles of gemvTLanesF32.
#define lPtr  DI  // lanes of the next row
#define rLeft CX  // rows left
#define xPtr  SI  // &x[0]
#define k32   BX  // len(x)/32
#define k8r   R12 // (len(x)%32)/8
#define ldbB  R8  // B's row stride in bytes
#define wBase DX  // &b[r][0]
#define wp    R9  // &b[r][p]
#define xp    R10 // &x[p]
#define pLeft R11 // blocks left

// func gemvTLanesF32(lanes, x, b []float32, ldb int)
// In:  lanes (8 per row), x, b (rows ldb apart).
// Out: for each row its eight lanes, as gemvTLanesGo: x·b[r] over the
//      first len(x)&^31 elements in 32 lanes (Y0–Y3), then the whole
//      eights left into Y0, one FMA a step from +0, then (Y0+Y1)+(Y2+Y3);
//      the row streams through once. Y0–Y7 clobbered.
TEXT ·gemvTLanesF32(SB), NOSPLIT, $0-80
	MOVQ         lanes_base+0(FP), lPtr      // lPtr = &lanes[0]
	MOVQ         lanes_len+8(FP), rLeft      // rLeft = len(lanes)
	SHRQ         $3, rLeft                   // / 8 = rows
	MOVQ         x_base+24(FP), xPtr         // xPtr = &x[0]
	MOVQ         x_len+32(FP), k32           // k32 = len(x)
	MOVQ         k32, k8r                    // k8r = len(x)
	SHRQ         $5, k32                     // k32 = len(x)/32
	ANDQ         $31, k8r                    // k8r = len(x)%32
	SHRQ         $3, k8r                     // whole eights in it
	MOVQ         b_base+48(FP), wBase        // wBase = &b[0][0]
	MOVQ         ldb+72(FP), ldbB            // ldbB = ldb
	SHLQ         $2, ldbB                    // in bytes
row:
	TESTQ        rLeft, rLeft                // rows left?
	JZ           done                        // finished
	VXORPS       Y0, Y0, Y0                  // lanes[0:8] = 0
	VXORPS       Y1, Y1, Y1                  // lanes[8:16] = 0
	VXORPS       Y2, Y2, Y2                  // lanes[16:24] = 0
	VXORPS       Y3, Y3, Y3                  // lanes[24:32] = 0
	MOVQ         wBase, wp                   // wp = &b[r][0]
	MOVQ         xPtr, xp                    // xp = &x[0]
	MOVQ         k32, pLeft                  // pLeft = len(x)/32
	TESTQ        pLeft, pLeft                // none?
	JZ           eights                      // then the eights
loop32:
	PREFETCHNTA  gemvTAhead(wp)              // both lines gemvTAhead bytes on
	PREFETCHNTA  (gemvTAhead+64)(wp)         // (past the row: the next rows)
	VMOVUPS      (xp), Y4                    // Y4:Y7 = x[p:p+32]
	VMOVUPS      32(xp), Y5
	VMOVUPS      64(xp), Y6
	VMOVUPS      96(xp), Y7
	VFMADD231PS  (wp), Y4, Y0                // lanes[0:8] += x·b[r][p:p+8]
	VFMADD231PS  32(wp), Y5, Y1              // lanes[8:16] += …
	VFMADD231PS  64(wp), Y6, Y2              // lanes[16:24]
	VFMADD231PS  96(wp), Y7, Y3              // lanes[24:32]
	ADDQ         $128, xp                    // p += 32
	ADDQ         $128, wp                    // along the row
	DECQ         pLeft                       // 32 steps done
	JNZ          loop32                      // until len(x)&^31
eights:
	MOVQ         k8r, pLeft                  // pLeft = eights left
	TESTQ        pLeft, pLeft                // none?
	JZ           store                       // then store
loop8:
	VMOVUPS      (xp), Y4                    // Y4 = x[p:p+8]
	VFMADD231PS  (wp), Y4, Y0                // lanes[0:8] += x·b[r][p:p+8]
	ADDQ         $32, xp                     // p += 8
	ADDQ         $32, wp                     // along the row
	DECQ         pLeft                       // 8 steps done
	JNZ          loop8                       // until len(x)&^7
store:
	VADDPS       Y1, Y0, Y0                  // lanes[0:8] + lanes[8:16]
	VADDPS       Y3, Y2, Y2                  // lanes[16:24] + lanes[24:32]
	VADDPS       Y2, Y0, Y0                  // the two sums added
	VMOVUPS      Y0, (lPtr)                  // row r's eight
	ADDQ         $32, lPtr                   // next row's
	ADDQ         ldbB, wBase                 // wBase = &b[r+1][0]
	DECQ         rLeft                       // one row done
	JMP          row                         // next row
done:
	VZEROUPPER
	RET
