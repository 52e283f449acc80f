//go:build !purego

#include "textflag.h"

// The NEON Sgemv kernels: gemvNF32 (B row-major: x·B for a block of
// columns, B's rows streamed through in order) and gemvTLanesF32 (B transposed: dot products of x
// with rows of B, one row at a time in 32 lanes).

// Register roles of gemvNF32.
#define yBase R0  // &y[0]
#define nLen  R1  // len(y)
#define xp    R2  // &x[p]
#define pLeft R3  // rows of B left
#define wRow  R4  // &b[p][0]
#define ldbB  R5  // B's row stride in bytes
#define yp    R6  // &y[j] to load
#define wp    R7  // &b[p][j]
#define jLeft R8  // columns left in the row
#define yq    R9  // &y[j] to store
#define xv    V24 // x[p] everywhere

// func gemvNF32(y, x, b []float32, ldb int)
// In:  y (len a positive multiple of 8), x (k steps), b row-major, row
//      stride ldb.
// Out: y[j] = Σ_p x[p]·b[p*ldb+j], one FMA a step from +0, as gemvNGo:
//      y is zeroed, then each row of B streams through once, y[j] =
//      x[p]·b[p][j] + y[j] (y stays in L1). V0–V7, V16–V24 clobbered.
TEXT ·gemvNF32(SB), NOSPLIT, $0-80
	MOVD    y_base+0(FP), yBase               // yBase = &y[0]
	MOVD    y_len+8(FP), nLen                 // nLen = len(y)
	MOVD    x_base+24(FP), xp                 // xp = &x[0]
	MOVD    x_len+32(FP), pLeft               // pLeft = len(x)
	MOVD    b_base+48(FP), wRow               // wRow = &b[0][0]
	MOVD    ldb+72(FP), ldbB                  // ldbB = ldb
	LSL     $2, ldbB                          // in bytes
	VEOR    V0.B16, V0.B16, V0.B16            // V0 = +0
	VEOR    V1.B16, V1.B16, V1.B16            // V1 = +0
	MOVD    yBase, yp                         // yp = &y[0]
	MOVD    nLen, jLeft                       // jLeft = len(y)
zero:
	VST1.P  [V0.S4, V1.S4], 32(yp)            // y[j:j+8] = +0; j += 8
	SUBS    $8, jLeft                         // 8 done
	BNE     zero                              // until len(y)
row:
	CBZ     pLeft, done                       // no rows left: finished
	VLD1R.P 4(xp), [xv.S4]                    // xv = x[p] everywhere; p++
	MOVD    yBase, yp                         // yp = &y[0]
	MOVD    yBase, yq                         // yq = &y[0]
	MOVD    wRow, wp                          // wp = &b[p][0]
	MOVD    nLen, jLeft                       // jLeft = len(y)
	CMP     $32, jLeft                        // 32 columns?
	BLT     loop8                             // else eights
loop32:
	VLD1.P  64(yp), [V0.S4, V1.S4, V2.S4, V3.S4]     // y[j:j+16]
	VLD1.P  64(yp), [V4.S4, V5.S4, V6.S4, V7.S4]     // y[j+16:j+32]
	VLD1.P  64(wp), [V16.S4, V17.S4, V18.S4, V19.S4] // b[p][j:j+16]
	VLD1.P  64(wp), [V20.S4, V21.S4, V22.S4, V23.S4] // b[p][j+16:j+32]
	VFMLA   V16.S4, xv.S4, V0.S4              // y[j:j+4] += x[p]·b[p][j:j+4]
	VFMLA   V17.S4, xv.S4, V1.S4              // y[j+4:j+8] += …
	VFMLA   V18.S4, xv.S4, V2.S4              // and so on to 32
	VFMLA   V19.S4, xv.S4, V3.S4
	VFMLA   V20.S4, xv.S4, V4.S4
	VFMLA   V21.S4, xv.S4, V5.S4
	VFMLA   V22.S4, xv.S4, V6.S4
	VFMLA   V23.S4, xv.S4, V7.S4
	VST1.P  [V0.S4, V1.S4, V2.S4, V3.S4], 64(yq) // y[j:j+16] = …
	VST1.P  [V4.S4, V5.S4, V6.S4, V7.S4], 64(yq) // y[j+16:j+32]; j += 32
	SUB     $32, jLeft                        // 32 done
	CMP     $32, jLeft                        // 32 more?
	BGE     loop32                            // then again
	CBZ     jLeft, next                       // no eights: the next row
loop8:
	VLD1.P  32(yp), [V0.S4, V1.S4]            // y[j:j+8]
	VLD1.P  32(wp), [V16.S4, V17.S4]          // b[p][j:j+8]
	VFMLA   V16.S4, xv.S4, V0.S4              // y[j:j+4] += x[p]·b[p][j:j+4]
	VFMLA   V17.S4, xv.S4, V1.S4              // y[j+4:j+8] += …
	VST1.P  [V0.S4, V1.S4], 32(yq)            // y[j:j+8] = …; j += 8
	SUBS    $8, jLeft                         // 8 done
	BNE     loop8                             // until len(y)
next:
	ADD     ldbB, wRow                        // next row of B
	SUB     $1, pLeft                         // one row done
	B       row                               // next row
done:
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
#undef yq
#undef xv

// Register roles of gemvTLanesF32.
#define lPtr  R0  // lanes of the next row
#define rLeft R1  // rows left
#define xPtr  R2  // &x[0]
#define k32   R3  // len(x)/32
#define wBase R4  // &b[r][0]
#define ldbB  R5  // B's row stride in bytes
#define wp    R6  // &b[r][p]
#define xp    R7  // &x[p]
#define pLeft R8  // blocks left
#define k8r   R9  // (len(x)%32)/8
#define ones  V28 // {1, 1, 1, 1}: VFMLA by ones adds, rounded once

// func gemvTLanesF32(lanes, x, b []float32, ldb int)
// In:  lanes (8 per row), x, b (rows ldb apart).
// Out: for each row its eight lanes, as gemvTLanesGo: x·b[r] over the
//      first len(x)&^31 elements in 32 lanes (V0–V7, four each), then the
//      whole eights left into V0, V1, one FMA a step from +0, then
//      (lanes 0–7 + 8–15) + (16–23 + 24–31); the row streams through
//      once. V0–V23, V28 clobbered.
TEXT ·gemvTLanesF32(SB), NOSPLIT, $0-80
	MOVD    lanes_base+0(FP), lPtr            // lPtr = &lanes[0]
	MOVD    lanes_len+8(FP), rLeft            // rLeft = len(lanes)
	LSR     $3, rLeft                         // / 8 = rows
	MOVD    x_base+24(FP), xPtr               // xPtr = &x[0]
	MOVD    x_len+32(FP), k32                 // k32 = len(x)
	AND     $31, k32, k8r                     // k8r = len(x)%32
	LSR     $3, k8r                           // whole eights in it
	LSR     $5, k32                           // k32 = len(x)/32
	MOVD    b_base+48(FP), wBase              // wBase = &b[0][0]
	MOVD    ldb+72(FP), ldbB                  // ldbB = ldb
	LSL     $2, ldbB                          // in bytes
	FMOVS   $1.0, F28                         // ones[0] = 1
	VDUP    V28.S[0], ones.S4                 // ones = {1, 1, 1, 1}
row:
	CBZ     rLeft, done                       // no rows left: finished
	VEOR    V0.B16, V0.B16, V0.B16            // lanes[0:4] = 0
	VEOR    V1.B16, V1.B16, V1.B16            // and so on to 32
	VEOR    V2.B16, V2.B16, V2.B16
	VEOR    V3.B16, V3.B16, V3.B16
	VEOR    V4.B16, V4.B16, V4.B16
	VEOR    V5.B16, V5.B16, V5.B16
	VEOR    V6.B16, V6.B16, V6.B16
	VEOR    V7.B16, V7.B16, V7.B16
	MOVD    wBase, wp                         // wp = &b[r][0]
	MOVD    xPtr, xp                          // xp = &x[0]
	MOVD    k32, pLeft                        // pLeft = len(x)/32
	CBZ     pLeft, eights                     // none: the eights
loop32:
	VLD1.P  64(xp), [V16.S4, V17.S4, V18.S4, V19.S4] // x[p:p+16]
	VLD1.P  64(xp), [V20.S4, V21.S4, V22.S4, V23.S4] // x[p+16:p+32]; p += 32
	VLD1.P  64(wp), [V8.S4, V9.S4, V10.S4, V11.S4]   // b[r][p:p+16]
	VLD1.P  64(wp), [V12.S4, V13.S4, V14.S4, V15.S4] // b[r][p+16:p+32]
	VFMLA   V8.S4, V16.S4, V0.S4              // lanes[0:4] += x·b
	VFMLA   V9.S4, V17.S4, V1.S4              // lanes[4:8]
	VFMLA   V10.S4, V18.S4, V2.S4             // lanes[8:12]
	VFMLA   V11.S4, V19.S4, V3.S4             // lanes[12:16]
	VFMLA   V12.S4, V20.S4, V4.S4             // lanes[16:20]
	VFMLA   V13.S4, V21.S4, V5.S4             // lanes[20:24]
	VFMLA   V14.S4, V22.S4, V6.S4             // lanes[24:28]
	VFMLA   V15.S4, V23.S4, V7.S4             // lanes[28:32]
	SUBS    $1, pLeft                         // 32 steps done
	BNE     loop32                            // until len(x)&^31
eights:
	MOVD    k8r, pLeft                        // pLeft = eights left
	CBZ     pLeft, store                      // none: store
loop8:
	VLD1.P  32(xp), [V16.S4, V17.S4]          // x[p:p+8]; p += 8
	VLD1.P  32(wp), [V8.S4, V9.S4]            // b[r][p:p+8]
	VFMLA   V8.S4, V16.S4, V0.S4              // lanes[0:4] += x·b
	VFMLA   V9.S4, V17.S4, V1.S4              // lanes[4:8]
	SUBS    $1, pLeft                         // 8 steps done
	BNE     loop8                             // until len(x)&^7
store:
	VFMLA   V2.S4, ones.S4, V0.S4             // lanes[0:8] + lanes[8:16]
	VFMLA   V3.S4, ones.S4, V1.S4
	VFMLA   V6.S4, ones.S4, V4.S4             // lanes[16:24] + lanes[24:32]
	VFMLA   V7.S4, ones.S4, V5.S4
	VFMLA   V4.S4, ones.S4, V0.S4             // the two sums added
	VFMLA   V5.S4, ones.S4, V1.S4
	VST1.P  [V0.S4, V1.S4], 32(lPtr)          // row r's eight
	ADD     ldbB, wBase                       // wBase = &b[r+1][0]
	SUB     $1, rLeft                         // one row done
	B       row                               // next row
done:
	RET
