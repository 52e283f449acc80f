//go:build !purego

#include "textflag.h"

// The small-convolution kernels, AVX-512 (16 lanes).
//
// convBlockF32AVX512 computes a block of eight output channels for two
// rows at a time, a vector of 16 columns at a time: per tap, the two rows'
// x are loaded once and each channel's weight broadcast once into two
// fused multiply-adds, so every output element is its taps in order from
// zero, then the bias, as convBlockGo computes it. Z16–Z23 hold the first
// row's channels, Z24–Z31 the second's; Z0, Z1 the rows' x; Z2–Z9 the
// weights. The last vector of a row is masked (K1): loads and stores touch
// only the columns in range. An odd row count (three or more) redoes the
// last pair.
//
// convWGradF32AVX512 keeps the eighteen sums (two output channels × nine
// taps) of an image in Z14–Z31, one lane per column mod 16, across its
// rows and vectors of columns: per vector, the two channels' gy (Z12, Z13)
// and the nine taps' x (Z0–Z8) are loaded once, zero past the row's end,
// and multiplied pairwise into the sums. After each image the sums are
// widened to float64, added to the lanes in memory and cleared.

// MASK16 sets K1 to the lanes of columns col … min(col+16, cols) - 1
// (through AX and CX).
#define MASK16(col, nCols) \
	MOVQ      nCols, CX;                      /* CX = cols              */ \
	SUBQ      col, CX;                        /* - col: columns left    */ \
	MOVL      $0xffff, AX;                    /* AX = 16 lanes          */ \
	CMPQ      CX, $16;                        /* 16 or more left?       */ \
	JGE       4(PC);                          /* then all of them       */ \
	MOVL      $1, AX;                         /* AX = 1                 */ \
	SHLL      CX, AX;                         /* AX = 1 << left         */ \
	DECL      AX;                             /* AX = left low bits     */ \
	KMOVW     AX, K1                          /* K1 = those lanes       */

// Register roles of convBlockF32AVX512.
#define dRow  DI  // dst: the first of the two rows in hand
#define xRow  SI  // x: the first of the two rows in hand
#define ldD   DX  // ldd in bytes
#define ldX   BX  // ldx in bytes
#define wBase R8  // wp
#define oPtr  R9  // off
#define nK    R10 // len(off)
#define nRows R11 // rows left
#define nCols R12 // cols
#define col   R13 // the first column of the vector in hand
#define wPtr  R14 // wp at the tap in hand; dPlane in bytes when storing
#define tap   CX  // the tap in hand; channels left when storing

// CHAN(o, wv, a0, a1) adds channel o's weight of the tap (broadcast into
// wv) times the rows' x into its sums a0, a1.
#define CHAN(o, wv, a0, a1) \
	VBROADCASTSS (o*4)(wPtr), wv;             /* wv = wp[8k+o]          */ \
	VFMADD231PS  Z0, wv, a0;                  /* row 0 += w·x           */ \
	VFMADD231PS  Z1, wv, a1                   /* row 1 += w·x           */

// BIAS(o, a0, a1) adds bias[o] (AX: bias) to channel o's sums.
#define BIAS(o, a0, a1) \
	VBROADCASTSS (o*4)(AX), Z2;               /* Z2 = bias[o]           */ \
	VADDPS       Z2, a0, a0;                  /* row 0 += bias          */ \
	VADDPS       Z2, a1, a1                   /* row 1 += bias          */

// STORE(a0, a1) stores a channel's two rows at AX, AX+ldd under K1, and
// ends the stores after the last channel (tap counts them down), else moves
// AX to the next channel's plane.
#define STORE(a0, a1) \
	VMOVUPS      a0, K1, (AX);                /* row 0                  */ \
	VMOVUPS      a1, K1, (AX)(ldD*1);         /* row 1                  */ \
	DECQ         tap;                         /* a channel done         */ \
	JZ           stored;                      /* the last one?          */ \
	ADDQ         wPtr, AX                     /* next channel's plane   */

// func convBlockF32AVX512(dst []float32, dPlane, ldd int, x []float32, ldx int, wp []float32, off []int, m, rows, cols int, bias []float32, hasBias int)
TEXT ·convBlockF32AVX512(SB), NOSPLIT, $0-176
	MOVQ         dst_base+0(FP), dRow         // dRow = dst
	MOVQ         ldd+32(FP), ldD              // ldD = ldd
	SHLQ         $2, ldD                      // in bytes
	MOVQ         x_base+40(FP), xRow          // xRow = x
	MOVQ         ldx+64(FP), ldX              // ldX = ldx
	SHLQ         $2, ldX                      // in bytes
	MOVQ         wp_base+72(FP), wBase        // wBase = wp
	MOVQ         off_base+96(FP), oPtr        // oPtr = off
	MOVQ         off_len+104(FP), nK          // nK = len(off)
	MOVQ         rows+128(FP), nRows          // nRows = rows (2 or more)
	MOVQ         cols+136(FP), nCols          // nCols = cols

pair:
	CMPQ         nRows, $2                    // a pair left?
	JGE          rowsReady                    // then do it
	TESTQ        nRows, nRows                 // a row left?
	JZ           done                         // no: finished
	SUBQ         ldX, xRow                    // x back a row
	SUBQ         ldD, dRow                    // dst back a row
	MOVQ         $2, nRows                    // redo the last pair

rowsReady:
	XORQ         col, col                     // col = 0

colLoop:
	MASK16(col, nCols)                        // K1 = the columns in range
	VPXORD       Z16, Z16, Z16                // the sums = 0
	VPXORD       Z17, Z17, Z17
	VPXORD       Z18, Z18, Z18
	VPXORD       Z19, Z19, Z19
	VPXORD       Z20, Z20, Z20
	VPXORD       Z21, Z21, Z21
	VPXORD       Z22, Z22, Z22
	VPXORD       Z23, Z23, Z23
	VPXORD       Z24, Z24, Z24
	VPXORD       Z25, Z25, Z25
	VPXORD       Z26, Z26, Z26
	VPXORD       Z27, Z27, Z27
	VPXORD       Z28, Z28, Z28
	VPXORD       Z29, Z29, Z29
	VPXORD       Z30, Z30, Z30
	VPXORD       Z31, Z31, Z31
	MOVQ         wBase, wPtr                  // wPtr = wp
	XORQ         tap, tap                     // tap = 0
	TESTQ        nK, nK                       // any taps?
	JZ           sums                         // no: the sums stay 0

tapLoop:
	MOVQ         (oPtr)(tap*8), AX            // AX = off[k]
	ADDQ         col, AX                      // + col
	LEAQ         (xRow)(AX*4), AX             // AX = &x[0][col+off[k]]
	VMOVUPS.Z    (AX), K1, Z0                 // Z0 = x row 0
	VMOVUPS.Z    (AX)(ldX*1), K1, Z1          // Z1 = x row 1
	CHAN(0, Z2, Z16, Z24)                     // channel 0
	CHAN(1, Z3, Z17, Z25)                     // channel 1
	CHAN(2, Z4, Z18, Z26)                     // channel 2
	CHAN(3, Z5, Z19, Z27)                     // channel 3
	CHAN(4, Z6, Z20, Z28)                     // channel 4
	CHAN(5, Z7, Z21, Z29)                     // channel 5
	CHAN(6, Z8, Z22, Z30)                     // channel 6
	CHAN(7, Z9, Z23, Z31)                     // channel 7
	ADDQ         $32, wPtr                    // next tap's weights
	INCQ         tap                          // next tap
	CMPQ         tap, nK                      // any left?
	JLT          tapLoop                      // then add it

sums:
	CMPQ         hasBias+168(FP), $0          // a bias?
	JEQ          store                        // no
	MOVQ         bias_base+144(FP), AX        // AX = bias
	BIAS(0, Z16, Z24)
	BIAS(1, Z17, Z25)
	BIAS(2, Z18, Z26)
	BIAS(3, Z19, Z27)
	BIAS(4, Z20, Z28)
	BIAS(5, Z21, Z29)
	BIAS(6, Z22, Z30)
	BIAS(7, Z23, Z31)

store:
	LEAQ         (dRow)(col*4), AX            // AX = &dst[0][0][col]
	MOVQ         dPlane+24(FP), wPtr          // wPtr = dPlane
	SHLQ         $2, wPtr                     // in bytes
	MOVQ         m+120(FP), tap               // tap = m: channels to store
	STORE(Z16, Z24)
	STORE(Z17, Z25)
	STORE(Z18, Z26)
	STORE(Z19, Z27)
	STORE(Z20, Z28)
	STORE(Z21, Z29)
	STORE(Z22, Z30)
	VMOVUPS      Z23, K1, (AX)                // channel 7, row 0
	VMOVUPS      Z31, K1, (AX)(ldD*1)         // channel 7, row 1

stored:
	ADDQ         $16, col                     // next vector
	CMPQ         col, nCols                   // any columns left?
	JLT          colLoop                      // then do them
	LEAQ         (xRow)(ldX*2), xRow          // x two rows on
	LEAQ         (dRow)(ldD*2), dRow          // dst two rows on
	SUBQ         $2, nRows                    // two rows done
	JMP          pair                         // again

done:
	VZEROUPPER                                // clean AVX state
	RET

#undef dRow
#undef xRow
#undef ldX
#undef oPtr
#undef nRows
#undef nCols
#undef col

// Register roles of convWGradF32AVX512.
#define gRow  DI  // gy: the row in hand of the first channel
#define xRow  SI  // x: the row in hand
#define ldG   DX  // ldg in bytes
#define ldX   BX  // ldx in bytes
#define gNext R8  // from past an image's last row of gy to its next image, bytes
#define oPtr  R9  // off
#define gPl   R10 // gPlane in bytes
#define nRows R11 // rows left
#define nCols R12 // cols
#define col   R13 // the first column of the vector in hand
#define xNext R14 // from past an image's last row of x to its next image, bytes

// TAPX(t, zt) loads tap t's x (AX: &x[row][col]) into zt under K1, zero
// past the row's end.
#define TAPX(t, zt) \
	MOVQ         (t*8)(oPtr), CX;             /* CX = off[t]            */ \
	VMOVUPS.Z    (AX)(CX*4), K1, zt           /* zt = x at the tap      */

// FLUSH(y, z, o) adds the sixteen float32 lanes of z (y: its low half) to
// the float64 lanes at o(AX), o+64(AX), and clears z.
#define FLUSH(y, z, o) \
	VCVTPS2PD     y, Z0;                      /* Z0 = lanes 0–7 widened */ \
	VEXTRACTF64X4 $1, z, Y1;                  /* Y1 = lanes 8–15        */ \
	VCVTPS2PD     Y1, Z1;                     /* Z1 = them widened      */ \
	VADDPD        o(AX), Z0, Z0;              /* + the lanes so far     */ \
	VADDPD        o+64(AX), Z1, Z1;                                        \
	VMOVUPD       Z0, o(AX);                  /* the lanes              */ \
	VMOVUPD       Z1, o+64(AX);                                            \
	VPXORD        z, z, z                     /* z = 0                  */

// PAIR(zt, a0, a1) adds the tap's x times each channel's gy to its sums.
#define PAIR(zt, a0, a1) \
	VFMADD231PS  zt, Z12, a0;                 /* channel 0 += gy·x      */ \
	VFMADD231PS  zt, Z13, a1                  /* channel 1 += gy·x      */

// func convWGradF32AVX512(lanes []float64, gy []float32, gPlane, gImg, ldg int, x []float32, xImg, ldx int, off []int, n, rows, cols int)
TEXT ·convWGradF32AVX512(SB), NOSPLIT, $8-160
	MOVQ         gy_base+24(FP), gRow         // gRow = gy
	MOVQ         gPlane+48(FP), gPl           // gPl = gPlane
	SHLQ         $2, gPl                      // in bytes
	MOVQ         ldg+64(FP), ldG              // ldG = ldg
	SHLQ         $2, ldG                      // in bytes
	MOVQ         x_base+72(FP), xRow          // xRow = x
	MOVQ         ldx+104(FP), ldX             // ldX = ldx
	SHLQ         $2, ldX                      // in bytes
	MOVQ         off_base+112(FP), oPtr       // oPtr = off
	MOVQ         cols+152(FP), nCols          // nCols = cols
	MOVQ         rows+144(FP), AX             // AX = rows
	MOVQ         gImg+56(FP), gNext           // gNext = gImg
	SHLQ         $2, gNext                    // in bytes
	MOVQ         AX, CX                       // CX = rows
	IMULQ        ldG, CX                      // · ldg bytes
	SUBQ         CX, gNext                    // gNext = gImg - rows·ldg
	MOVQ         xImg+96(FP), xNext           // xNext = xImg
	SHLQ         $2, xNext                    // in bytes
	IMULQ        ldX, AX                      // AX = rows · ldx bytes
	SUBQ         AX, xNext                    // xNext = xImg - rows·ldx
	MOVQ         n+136(FP), AX                // AX = n
	MOVQ         AX, imgs-8(SP)               // images left
	VPXORD       Z14, Z14, Z14                // the sums = 0
	VPXORD       Z15, Z15, Z15
	VPXORD       Z16, Z16, Z16
	VPXORD       Z17, Z17, Z17
	VPXORD       Z18, Z18, Z18
	VPXORD       Z19, Z19, Z19
	VPXORD       Z20, Z20, Z20
	VPXORD       Z21, Z21, Z21
	VPXORD       Z22, Z22, Z22
	VPXORD       Z23, Z23, Z23
	VPXORD       Z24, Z24, Z24
	VPXORD       Z25, Z25, Z25
	VPXORD       Z26, Z26, Z26
	VPXORD       Z27, Z27, Z27
	VPXORD       Z28, Z28, Z28
	VPXORD       Z29, Z29, Z29
	VPXORD       Z30, Z30, Z30
	VPXORD       Z31, Z31, Z31

img:
	MOVQ         rows+144(FP), nRows          // nRows = rows

row:
	XORQ         col, col                     // col = 0

colv:
	MASK16(col, nCols)                        // K1 = the columns in range
	LEAQ         (gRow)(col*4), AX            // AX = &gy[0][row][col]
	VMOVUPS.Z    (AX), K1, Z12                // Z12 = channel 0's gy
	VMOVUPS.Z    (AX)(gPl*1), K1, Z13         // Z13 = channel 1's gy
	LEAQ         (xRow)(col*4), AX            // AX = &x[row][col]
	TAPX(0, Z0)
	TAPX(1, Z1)
	TAPX(2, Z2)
	TAPX(3, Z3)
	TAPX(4, Z4)
	TAPX(5, Z5)
	TAPX(6, Z6)
	TAPX(7, Z7)
	TAPX(8, Z8)
	PAIR(Z0, Z14, Z23)
	PAIR(Z1, Z15, Z24)
	PAIR(Z2, Z16, Z25)
	PAIR(Z3, Z17, Z26)
	PAIR(Z4, Z18, Z27)
	PAIR(Z5, Z19, Z28)
	PAIR(Z6, Z20, Z29)
	PAIR(Z7, Z21, Z30)
	PAIR(Z8, Z22, Z31)
	ADDQ         $16, col                     // next vector
	CMPQ         col, nCols                   // any columns left?
	JLT          colv                         // then do them
	ADDQ         ldG, gRow                    // gy a row on
	ADDQ         ldX, xRow                    // x a row on
	DECQ         nRows                        // a row done
	JNZ          row                          // any left?

	MOVQ         lanes_base+0(FP), AX         // AX = lanes
	FLUSH(Y14, Z14, 0)                        // the image's sums into the lanes
	FLUSH(Y15, Z15, 128)
	FLUSH(Y16, Z16, 256)
	FLUSH(Y17, Z17, 384)
	FLUSH(Y18, Z18, 512)
	FLUSH(Y19, Z19, 640)
	FLUSH(Y20, Z20, 768)
	FLUSH(Y21, Z21, 896)
	FLUSH(Y22, Z22, 1024)
	FLUSH(Y23, Z23, 1152)
	FLUSH(Y24, Z24, 1280)
	FLUSH(Y25, Z25, 1408)
	FLUSH(Y26, Z26, 1536)
	FLUSH(Y27, Z27, 1664)
	FLUSH(Y28, Z28, 1792)
	FLUSH(Y29, Z29, 1920)
	FLUSH(Y30, Z30, 2048)
	FLUSH(Y31, Z31, 2176)
	ADDQ         gNext, gRow                  // gy's next image
	ADDQ         xNext, xRow                  // x's next image
	DECQ         imgs-8(SP)                   // an image done
	JNZ          img                          // any left?
	VZEROUPPER                                // clean AVX state
	RET

#undef gRow
#undef xRow
#undef ldG
#undef ldX
#undef gNext
#undef oPtr
#undef gPl
#undef nRows
#undef nCols
#undef col
#undef xNext

// convWGrad3F32AVX512 is convWGradF32AVX512 for taps that are three rows of
// three, a row of x apart (off[3i+j] = off[j] + i·ldx), and rows of at
// most 16 columns (one vector, K1): the rows go in pairs, and each x row's
// three shifts are loaded once for both rows of the pair (12 loads for 36
// fused multiply-adds rather than 18), each sum still taking its rows in
// order. Z9, Z10 hold the channels' gy of the pair's first row, Z11, Z12
// of its second; Z0–Z2 an x row's shifts; the sums as convWGradF32AVX512.

// Register roles of convWGrad3F32AVX512.
#define gRow  DI  // gy: the first row in hand of the first channel
#define xRow  SI  // x: the first row in hand
#define ldG   DX  // ldg in bytes
#define ldX   BX  // ldx in bytes
#define gNext R8  // from past an image's last row of gy to its next image, bytes
#define c0    R9  // off[0] in bytes
#define gPl   R10 // gPlane in bytes
#define nRows R11 // rows left
#define c1    R12 // off[1] in bytes
#define c2    R13 // off[2] in bytes
#define xNext R14 // from past an image's last row of x to its next image, bytes

// func convWGrad3F32AVX512(lanes []float64, gy []float32, gPlane, gImg, ldg int, x []float32, xImg, ldx int, off []int, n, rows, cols int)
TEXT ·convWGrad3F32AVX512(SB), NOSPLIT, $8-160
	MOVQ         gy_base+24(FP), gRow         // gRow = gy
	MOVQ         gPlane+48(FP), gPl           // gPl = gPlane
	SHLQ         $2, gPl                      // in bytes
	MOVQ         ldg+64(FP), ldG              // ldG = ldg
	SHLQ         $2, ldG                      // in bytes
	MOVQ         x_base+72(FP), xRow          // xRow = x
	MOVQ         ldx+104(FP), ldX             // ldX = ldx
	SHLQ         $2, ldX                      // in bytes
	MOVQ         off_base+112(FP), AX         // AX = off
	MOVQ         0(AX), c0                    // c0 = off[0]
	SHLQ         $2, c0                       // in bytes
	MOVQ         8(AX), c1                    // c1 = off[1]
	SHLQ         $2, c1                       // in bytes
	MOVQ         16(AX), c2                   // c2 = off[2]
	SHLQ         $2, c2                       // in bytes
	MOVQ         cols+152(FP), CX             // CX = cols (1 to 16)
	MOVL         $1, AX                       // AX = 1
	SHLL         CX, AX                       // AX = 1 << cols
	DECL         AX                           // AX = cols low bits
	KMOVW        AX, K1                       // K1 = the columns in range
	MOVQ         rows+144(FP), AX             // AX = rows
	MOVQ         gImg+56(FP), gNext           // gNext = gImg
	SHLQ         $2, gNext                    // in bytes
	MOVQ         AX, CX                       // CX = rows
	IMULQ        ldG, CX                      // · ldg bytes
	SUBQ         CX, gNext                    // gNext = gImg - rows·ldg
	MOVQ         xImg+96(FP), xNext           // xNext = xImg
	SHLQ         $2, xNext                    // in bytes
	IMULQ        ldX, AX                      // AX = rows · ldx bytes
	SUBQ         AX, xNext                    // xNext = xImg - rows·ldx
	MOVQ         n+136(FP), AX                // AX = n
	MOVQ         AX, imgs-8(SP)               // images left
	VPXORD       Z14, Z14, Z14                // the sums = 0
	VPXORD       Z15, Z15, Z15
	VPXORD       Z16, Z16, Z16
	VPXORD       Z17, Z17, Z17
	VPXORD       Z18, Z18, Z18
	VPXORD       Z19, Z19, Z19
	VPXORD       Z20, Z20, Z20
	VPXORD       Z21, Z21, Z21
	VPXORD       Z22, Z22, Z22
	VPXORD       Z23, Z23, Z23
	VPXORD       Z24, Z24, Z24
	VPXORD       Z25, Z25, Z25
	VPXORD       Z26, Z26, Z26
	VPXORD       Z27, Z27, Z27
	VPXORD       Z28, Z28, Z28
	VPXORD       Z29, Z29, Z29
	VPXORD       Z30, Z30, Z30
	VPXORD       Z31, Z31, Z31

img3:
	MOVQ         rows+144(FP), nRows          // nRows = rows

pair3:
	CMPQ         nRows, $2                    // a pair of rows left?
	JLT          last3                        // no
	VMOVUPS.Z    (gRow), K1, Z9               // Z9 = channel 0's gy, row r
	VMOVUPS.Z    (gRow)(gPl*1), K1, Z10       // Z10 = channel 1's, row r
	LEAQ         (gRow)(ldG*1), AX            // AX = &gy[0][r+1]
	VMOVUPS.Z    (AX), K1, Z11                // Z11 = channel 0's gy, row r+1
	VMOVUPS.Z    (AX)(gPl*1), K1, Z12         // Z12 = channel 1's, row r+1
	MOVQ         xRow, AX                     // AX = x row r
	VMOVUPS.Z    (AX)(c0*1), K1, Z0           // Z0 = the x row at column shift 0
	VMOVUPS.Z    (AX)(c1*1), K1, Z1           // Z1 = at shift 1
	VMOVUPS.Z    (AX)(c2*1), K1, Z2           // Z2 = at shift 2
	VFMADD231PS  Z0, Z9, Z14                  // channel 0, tap (0, 0) += gy·x, output row r
	VFMADD231PS  Z1, Z9, Z15                  // channel 0, tap (0, 1) += gy·x, output row r
	VFMADD231PS  Z2, Z9, Z16                  // channel 0, tap (0, 2) += gy·x, output row r
	VFMADD231PS  Z0, Z10, Z23                 // channel 1, tap (0, 0) += gy·x, output row r
	VFMADD231PS  Z1, Z10, Z24                 // channel 1, tap (0, 1) += gy·x, output row r
	VFMADD231PS  Z2, Z10, Z25                 // channel 1, tap (0, 2) += gy·x, output row r
	ADDQ         ldX, AX                      // next x row
	VMOVUPS.Z    (AX)(c0*1), K1, Z0           // Z0 = the x row at column shift 0
	VMOVUPS.Z    (AX)(c1*1), K1, Z1           // Z1 = at shift 1
	VMOVUPS.Z    (AX)(c2*1), K1, Z2           // Z2 = at shift 2
	VFMADD231PS  Z0, Z9, Z17                  // channel 0, tap (1, 0) += gy·x, output row r
	VFMADD231PS  Z1, Z9, Z18                  // channel 0, tap (1, 1) += gy·x, output row r
	VFMADD231PS  Z2, Z9, Z19                  // channel 0, tap (1, 2) += gy·x, output row r
	VFMADD231PS  Z0, Z10, Z26                 // channel 1, tap (1, 0) += gy·x, output row r
	VFMADD231PS  Z1, Z10, Z27                 // channel 1, tap (1, 1) += gy·x, output row r
	VFMADD231PS  Z2, Z10, Z28                 // channel 1, tap (1, 2) += gy·x, output row r
	VFMADD231PS  Z0, Z11, Z14                 // channel 0, tap (0, 0) += gy·x, output row r+1
	VFMADD231PS  Z1, Z11, Z15                 // channel 0, tap (0, 1) += gy·x, output row r+1
	VFMADD231PS  Z2, Z11, Z16                 // channel 0, tap (0, 2) += gy·x, output row r+1
	VFMADD231PS  Z0, Z12, Z23                 // channel 1, tap (0, 0) += gy·x, output row r+1
	VFMADD231PS  Z1, Z12, Z24                 // channel 1, tap (0, 1) += gy·x, output row r+1
	VFMADD231PS  Z2, Z12, Z25                 // channel 1, tap (0, 2) += gy·x, output row r+1
	ADDQ         ldX, AX                      // next x row
	VMOVUPS.Z    (AX)(c0*1), K1, Z0           // Z0 = the x row at column shift 0
	VMOVUPS.Z    (AX)(c1*1), K1, Z1           // Z1 = at shift 1
	VMOVUPS.Z    (AX)(c2*1), K1, Z2           // Z2 = at shift 2
	VFMADD231PS  Z0, Z9, Z20                  // channel 0, tap (2, 0) += gy·x, output row r
	VFMADD231PS  Z1, Z9, Z21                  // channel 0, tap (2, 1) += gy·x, output row r
	VFMADD231PS  Z2, Z9, Z22                  // channel 0, tap (2, 2) += gy·x, output row r
	VFMADD231PS  Z0, Z10, Z29                 // channel 1, tap (2, 0) += gy·x, output row r
	VFMADD231PS  Z1, Z10, Z30                 // channel 1, tap (2, 1) += gy·x, output row r
	VFMADD231PS  Z2, Z10, Z31                 // channel 1, tap (2, 2) += gy·x, output row r
	VFMADD231PS  Z0, Z11, Z17                 // channel 0, tap (1, 0) += gy·x, output row r+1
	VFMADD231PS  Z1, Z11, Z18                 // channel 0, tap (1, 1) += gy·x, output row r+1
	VFMADD231PS  Z2, Z11, Z19                 // channel 0, tap (1, 2) += gy·x, output row r+1
	VFMADD231PS  Z0, Z12, Z26                 // channel 1, tap (1, 0) += gy·x, output row r+1
	VFMADD231PS  Z1, Z12, Z27                 // channel 1, tap (1, 1) += gy·x, output row r+1
	VFMADD231PS  Z2, Z12, Z28                 // channel 1, tap (1, 2) += gy·x, output row r+1
	ADDQ         ldX, AX                      // next x row
	VMOVUPS.Z    (AX)(c0*1), K1, Z0           // Z0 = the x row at column shift 0
	VMOVUPS.Z    (AX)(c1*1), K1, Z1           // Z1 = at shift 1
	VMOVUPS.Z    (AX)(c2*1), K1, Z2           // Z2 = at shift 2
	VFMADD231PS  Z0, Z11, Z20                 // channel 0, tap (2, 0) += gy·x, output row r+1
	VFMADD231PS  Z1, Z11, Z21                 // channel 0, tap (2, 1) += gy·x, output row r+1
	VFMADD231PS  Z2, Z11, Z22                 // channel 0, tap (2, 2) += gy·x, output row r+1
	VFMADD231PS  Z0, Z12, Z29                 // channel 1, tap (2, 0) += gy·x, output row r+1
	VFMADD231PS  Z1, Z12, Z30                 // channel 1, tap (2, 1) += gy·x, output row r+1
	VFMADD231PS  Z2, Z12, Z31                 // channel 1, tap (2, 2) += gy·x, output row r+1
	LEAQ         (gRow)(ldG*2), gRow          // gy two rows on
	LEAQ         (xRow)(ldX*2), xRow          // x two rows on
	SUBQ         $2, nRows                    // two rows done
	JMP          pair3                        // again

last3:
	TESTQ        nRows, nRows                 // a row left?
	JZ           flush3                       // no: the image is done
	VMOVUPS.Z    (gRow), K1, Z9               // Z9 = channel 0's gy
	VMOVUPS.Z    (gRow)(gPl*1), K1, Z10       // Z10 = channel 1's
	MOVQ         xRow, AX                     // AX = x row r
	VMOVUPS.Z    (AX)(c0*1), K1, Z0           // Z0 = the x row at column shift 0
	VMOVUPS.Z    (AX)(c1*1), K1, Z1           // Z1 = at shift 1
	VMOVUPS.Z    (AX)(c2*1), K1, Z2           // Z2 = at shift 2
	VFMADD231PS  Z0, Z9, Z14                  // channel 0, tap (0, 0) += gy·x, output row r
	VFMADD231PS  Z1, Z9, Z15                  // channel 0, tap (0, 1) += gy·x, output row r
	VFMADD231PS  Z2, Z9, Z16                  // channel 0, tap (0, 2) += gy·x, output row r
	VFMADD231PS  Z0, Z10, Z23                 // channel 1, tap (0, 0) += gy·x, output row r
	VFMADD231PS  Z1, Z10, Z24                 // channel 1, tap (0, 1) += gy·x, output row r
	VFMADD231PS  Z2, Z10, Z25                 // channel 1, tap (0, 2) += gy·x, output row r
	ADDQ         ldX, AX                      // next x row
	VMOVUPS.Z    (AX)(c0*1), K1, Z0           // Z0 = the x row at column shift 0
	VMOVUPS.Z    (AX)(c1*1), K1, Z1           // Z1 = at shift 1
	VMOVUPS.Z    (AX)(c2*1), K1, Z2           // Z2 = at shift 2
	VFMADD231PS  Z0, Z9, Z17                  // channel 0, tap (1, 0) += gy·x, output row r
	VFMADD231PS  Z1, Z9, Z18                  // channel 0, tap (1, 1) += gy·x, output row r
	VFMADD231PS  Z2, Z9, Z19                  // channel 0, tap (1, 2) += gy·x, output row r
	VFMADD231PS  Z0, Z10, Z26                 // channel 1, tap (1, 0) += gy·x, output row r
	VFMADD231PS  Z1, Z10, Z27                 // channel 1, tap (1, 1) += gy·x, output row r
	VFMADD231PS  Z2, Z10, Z28                 // channel 1, tap (1, 2) += gy·x, output row r
	ADDQ         ldX, AX                      // next x row
	VMOVUPS.Z    (AX)(c0*1), K1, Z0           // Z0 = the x row at column shift 0
	VMOVUPS.Z    (AX)(c1*1), K1, Z1           // Z1 = at shift 1
	VMOVUPS.Z    (AX)(c2*1), K1, Z2           // Z2 = at shift 2
	VFMADD231PS  Z0, Z9, Z20                  // channel 0, tap (2, 0) += gy·x, output row r
	VFMADD231PS  Z1, Z9, Z21                  // channel 0, tap (2, 1) += gy·x, output row r
	VFMADD231PS  Z2, Z9, Z22                  // channel 0, tap (2, 2) += gy·x, output row r
	VFMADD231PS  Z0, Z10, Z29                 // channel 1, tap (2, 0) += gy·x, output row r
	VFMADD231PS  Z1, Z10, Z30                 // channel 1, tap (2, 1) += gy·x, output row r
	VFMADD231PS  Z2, Z10, Z31                 // channel 1, tap (2, 2) += gy·x, output row r
	ADDQ         ldG, gRow                    // gy a row on
	ADDQ         ldX, xRow                    // x a row on

flush3:
	MOVQ         lanes_base+0(FP), AX         // AX = lanes
	FLUSH(Y14, Z14, 0)
	FLUSH(Y15, Z15, 128)
	FLUSH(Y16, Z16, 256)
	FLUSH(Y17, Z17, 384)
	FLUSH(Y18, Z18, 512)
	FLUSH(Y19, Z19, 640)
	FLUSH(Y20, Z20, 768)
	FLUSH(Y21, Z21, 896)
	FLUSH(Y22, Z22, 1024)
	FLUSH(Y23, Z23, 1152)
	FLUSH(Y24, Z24, 1280)
	FLUSH(Y25, Z25, 1408)
	FLUSH(Y26, Z26, 1536)
	FLUSH(Y27, Z27, 1664)
	FLUSH(Y28, Z28, 1792)
	FLUSH(Y29, Z29, 1920)
	FLUSH(Y30, Z30, 2048)
	FLUSH(Y31, Z31, 2176)
	ADDQ         gNext, gRow                  // gy's next image
	ADDQ         xNext, xRow                  // x's next image
	DECQ         imgs-8(SP)                   // an image done
	JNZ          img3                         // any left?
	VZEROUPPER                                // clean AVX state
	RET
