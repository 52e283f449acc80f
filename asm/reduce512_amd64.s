//go:build !purego

#include "textflag.h"
#include "elementwise_amd64.h"

// AVX-512 versions of the sums and of the affine steps of layer norm. The
// 16 float64 running sums are Z0 (sums 0–7) and Z1 (sums 8–15): element i
// goes to sum i mod 16 in the same order as the AVX2 kernels and the twins
// (reduce_generic.go), so the results are the same bits.

// Register roles.
#define xPtr   SI  // next element of x
#define dPtr   DI  // next element of dst
#define wPtr   R12 // next element of w
#define bPtr   R13 // next element of b
#define nLeft  CX  // elements left
#define tailK  K7  // lanes of the last partial vector

// low8<> maps a lane count 0…8 to its mask: (1 << count) - 1.
DATA low8<>+0(SB)/8, $0x7f3f1f0f07030100
DATA low8<>+8(SB)/1, $0xff
GLOBL low8<>(SB), RODATA|NOPTR, $9

// MASK8(k, c): k = the lanes of chunk c (8 elements) of the last nLeft < 32,
// that is min(max(nLeft - 8c, 0), 8) low bits. Clobbers AX, DX, R8, R9.
#define MASK8(k, c) \
	MOVQ     nLeft, R8;                      /* R8 = nLeft             */ \
	SUBQ     $(8*c), R8;                     /* minus the chunks before */ \
	MOVQ     $0, DX;                         /* DX = 0                 */ \
	CMPQ     R8, DX;                         /* negative?              */ \
	CMOVQLT  DX, R8;                         /* then 0                 */ \
	MOVQ     $8, DX;                         /* DX = 8                 */ \
	CMPQ     R8, DX;                         /* more than 8?           */ \
	CMOVQGT  DX, R8;                         /* then 8                 */ \
	LEAQ     low8<>(SB), R9;                 /* R9 = the mask table    */ \
	MOVBQZX  (R9)(R8*1), AX;                 /* AX = its entry         */ \
	KMOVW    AX, k                           /* k = those lanes        */

// FOLD32(zl, yl, xl, zh, yh, xh) adds up the 16 sums in zl (0–7) and zh
// (8–15) as sum16 into the low lane of xl; clobbers Y8, Y9 and xh.
#define FOLD32(zl, yl, xl, zh, yh, xh) \
	VEXTRACTF64X4 $1, zl, Y8;                /* Y8 = sums 4:8          */ \
	VADDPD     Y8, yl, yl;                   /* l = s0:4 + s4:8        */ \
	VEXTRACTF64X4 $1, zh, Y9;                /* Y9 = sums 12:16        */ \
	VADDPD     Y9, yh, yh;                   /* h = s8:12 + s12:16     */ \
	VADDPD     yh, yl, yl;                   /* l = v                  */ \
	VEXTRACTF128 $1, yl, xh;                 /* h = v2, v3             */ \
	VADDPD     xh, xl, xl;                   /* l = v0+v2, v1+v3       */ \
	VPERMILPD  $1, xl, xh;                   /* h = v1+v3, v0+v2       */ \
	VADDSD     xh, xl, xl                    // l = (v0+v2)+(v1+v3)

// FINISH512(ret) adds the 16 sums in Z0 (0–7) and Z1 (8–15) up as sum16
// and returns the result.
#define FINISH512(ret) \
	FOLD32(Z0, Y0, X0, Z1, Y1, X1);          /* X0 = sum16             */ \
	VMOVSD     X0, ret;                      /* return it              */ \
	VZEROUPPER;                              /* clean AVX state        */ \
	RET

// STEP(k, off, acc) adds the 8 elements at off(xPtr) under mask k (K0:
// all) into acc, as sums of squared deviations from Z14 when SQ is set.
#define SUMSTEP(off, acc) \
	VCVTPS2PD  off(xPtr), Z4;                /* Z4 = 8 widened         */ \
	VADDPD     Z4, acc, acc                  /* acc += them            */
#define SUMSTEPM(k, off, acc) \
	VCVTPS2PD.Z off(xPtr), k, Z4;            /* Z4 = 8 widened, masked */ \
	VADDPD     Z4, acc, acc                  /* acc += them            */
#define SQSTEP(off, acc) \
	VCVTPS2PD  off(xPtr), Z4;                /* Z4 = 8 widened         */ \
	VSUBPD     Z14, Z4, Z4;                  /* Z4 = x - m             */ \
	VFMADD231PD Z4, Z4, acc                  /* acc += (x - m)²        */
#define SQSTEPM(k, off, acc) \
	VCVTPS2PD.Z off(xPtr), k, Z4;            /* Z4 = 8 widened, masked */ \
	VSUBPD.Z   Z14, Z4, k, Z4;               /* Z4 = x - m, 0 off the end */ \
	VFMADD231PD Z4, Z4, acc                  /* acc += (x - m)²        */

// SUMS512(STEP, STEPM, ret): the loop of sumF32AVX512 and sumSqDevF32AVX512.
#define SUMS512(STEP, STEPM, ret) \
	VPXORQ     Z0, Z0, Z0;                   /* sums 0:8 = 0           */ \
	VPXORQ     Z1, Z1, Z1;                   /* sums 8:16 = 0          */ \
	CMPQ       nLeft, $32;                   /* 32 left?               */ \
	JLT        tail;                         /* the last elements      */ \
loop: \
	STEP(0, Z0);                             /* x[0:8] into sums 0:8   */ \
	STEP(32, Z1);                            /* x[8:16] into 8:16      */ \
	STEP(64, Z0);                            /* x[16:24] into 0:8      */ \
	STEP(96, Z1);                            /* x[24:32] into 8:16     */ \
	ADDQ       $128, xPtr;                   /* next 32                */ \
	SUBQ       $32, nLeft;                   /* 32 done                */ \
	CMPQ       nLeft, $32;                   /* 32 more?               */ \
	JGE        loop;                         /* again                  */ \
tail: \
	TESTQ      nLeft, nLeft;                 /* anything left?         */ \
	JZ         done;                         /* finished               */ \
	MASK8(K1, 0);                            /* K1:K4 = lanes of the 4 chunks */ \
	MASK8(K2, 1); \
	MASK8(K3, 2); \
	MASK8(K4, 3); \
	STEPM(K1, 0, Z0);                        /* as in the loop, masked */ \
	STEPM(K2, 32, Z1); \
	STEPM(K3, 64, Z0); \
	STEPM(K4, 96, Z1); \
done: \
	FINISH512(ret)

// func sumF32AVX512(x []float32) float64: as sumF32.
TEXT ·sumF32AVX512(SB), NOSPLIT, $0-32
	MOVQ       x_base+0(FP), xPtr            // xPtr = &x[0]
	MOVQ       x_len+8(FP), nLeft            // nLeft = len(x)
	SUMS512(SUMSTEP, SUMSTEPM, ret+24(FP))   // the 16 sums

// func sumSqDevF32AVX512(x []float32, m float64) float64: as sumSqDevF32.
TEXT ·sumSqDevF32AVX512(SB), NOSPLIT, $0-40
	MOVQ       x_base+0(FP), xPtr            // xPtr = &x[0]
	MOVQ       x_len+8(FP), nLeft            // nLeft = len(x)
	VBROADCASTSD m+24(FP), Z14               // Z14 = m everywhere
	SUMS512(SQSTEP, SQSTEPM, ret+32(FP))     // the 16 sums of squares

// func affineF32AVX512(d, x, w, b []float32, s, c float32): as affineF32.
TEXT ·affineF32AVX512(SB), NOSPLIT, $0-104
	MOVQ       d_base+0(FP), dPtr            // dPtr = &d[0]
	MOVQ       d_len+8(FP), nLeft            // nLeft = len(d)
	MOVQ       x_base+24(FP), xPtr           // xPtr = &x[0]
	MOVQ       w_base+48(FP), wPtr           // wPtr = &w[0]
	MOVQ       b_base+72(FP), bPtr           // bPtr = &b[0]
	VBROADCASTSS s+96(FP), Z13               // Z13 = s everywhere
	VBROADCASTSS c+100(FP), Z14              // Z14 = c everywhere
	CMPQ       nLeft, $32                    // 32 left?
	JLT        one                           // 16 at most
loop:
	VMOVUPS    (xPtr), Z0                    // Z0 = x[0:16]
	VMOVUPS    64(xPtr), Z2                  // Z2 = x[16:32]
	VMOVUPS    (wPtr), Z1                    // Z1 = w[0:16]
	VMOVUPS    64(wPtr), Z3                  // Z3 = w[16:32]
	VFMADD213PS Z14, Z13, Z0                 // Z0 = t = x·s + c
	VFMADD213PS Z14, Z13, Z2                 // Z2 likewise
	VFMADD213PS (bPtr), Z1, Z0               // Z0 = t·w + b
	VFMADD213PS 64(bPtr), Z3, Z2             // Z2 likewise
	VMOVUPS    Z0, (dPtr)                    // d[0:16] = Z0
	VMOVUPS    Z2, 64(dPtr)                  // d[16:32] = Z2
	ADDQ       $128, xPtr                    // next 32
	ADDQ       $128, wPtr                    // advance wPtr too
	ADDQ       $128, bPtr                    // advance bPtr too
	ADDQ       $128, dPtr                    // advance dPtr too
	SUBQ       $32, nLeft                    // 32 done
	CMPQ       nLeft, $32                    // 32 more?
	JGE        loop                          // again
one:
	CMPQ       nLeft, $16                    // 16 left?
	JLT        tail                          // fewer
	VMOVUPS    (xPtr), Z0                    // Z0 = x[0:16]
	VMOVUPS    (wPtr), Z1                    // Z1 = w[0:16]
	VFMADD213PS Z14, Z13, Z0                 // Z0 = t = x·s + c
	VFMADD213PS (bPtr), Z1, Z0               // Z0 = t·w + b
	VMOVUPS    Z0, (dPtr)                    // d[0:16] = Z0
	ADDQ       $64, xPtr                     // next 16
	ADDQ       $64, wPtr                     // advance wPtr too
	ADDQ       $64, bPtr                     // advance bPtr too
	ADDQ       $64, dPtr                     // advance dPtr too
	SUBQ       $16, nLeft                    // 16 done
tail:
	TESTQ      nLeft, nLeft                  // anything left?
	JZ         done                          // finished
	MOVL       $1, AX                        // AX = 1
	SHLL       CX, AX                        // AX = 1 << nLeft
	DECL       AX                            // AX = nLeft low bits
	KMOVW      AX, tailK                     // tailK = lanes in range
	VMOVUPS.Z  (xPtr), tailK, Z0             // Z0 = x, masked
	VMOVUPS.Z  (wPtr), tailK, Z1             // Z1 = w, masked
	VMOVUPS.Z  (bPtr), tailK, Z2             // Z2 = b, masked
	VFMADD213PS Z14, Z13, Z0                 // Z0 = t = x·s + c
	VFMADD213PS Z2, Z1, Z0                   // Z0 = t·w + b
	VMOVUPS    Z0, tailK, (dPtr)             // d = Z0, masked
done:
	VZEROUPPER
	RET

// func scaleShiftF32AVX512(d, x []float32, s, c float32): as scaleShiftF32.
TEXT ·scaleShiftF32AVX512(SB), NOSPLIT, $0-56
	MOVQ       d_base+0(FP), dPtr            // dPtr = &d[0]
	MOVQ       d_len+8(FP), nLeft            // nLeft = len(d)
	MOVQ       x_base+24(FP), xPtr           // xPtr = &x[0]
	VBROADCASTSS s+48(FP), Z13               // Z13 = s everywhere
	VBROADCASTSS c+52(FP), Z14               // Z14 = c everywhere
	CMPQ       nLeft, $16                    // 16 left?
	JLT        tail                          // the last elements
loop:
	VMOVUPS    (xPtr), Z0                    // Z0 = x[0:16]
	VFMADD213PS Z14, Z13, Z0                 // Z0 = x·s + c
	VMOVUPS    Z0, (dPtr)                    // d[0:16] = Z0
	ADDQ       $64, xPtr                     // next 16
	ADDQ       $64, dPtr                     // advance dPtr too
	SUBQ       $16, nLeft                    // 16 done
	CMPQ       nLeft, $16                    // 16 more?
	JGE        loop                          // again
tail:
	TESTQ      nLeft, nLeft                  // anything left?
	JZ         done                          // finished
	MOVL       $1, AX                        // AX = 1
	SHLL       CX, AX                        // AX = 1 << nLeft
	DECL       AX                            // AX = nLeft low bits
	KMOVW      AX, tailK                     // tailK = lanes in range
	VMOVUPS.Z  (xPtr), tailK, Z0             // Z0 = x, masked
	VFMADD213PS Z14, Z13, Z0                 // Z0 = x·s + c
	VMOVUPS    Z0, tailK, (dPtr)             // d = Z0, masked
done:
	VZEROUPPER
	RET

// func momentsF32AVX512(x []float32, k float64) (s1, s2 float64): as
// momentsGo, len(x) a multiple of 32: the 32 lanes of s1 in Z0–Z3 (x - k)
// and of s2 in Z4–Z7 ((x - k)²), eight independent chains; Z14 = k. It
// prefetches 4 KiB ahead: the hardware's stream prefetch stops at a page,
// and the rows of layer_norm (k = the row's first element, a load every
// step waits for) would otherwise each start with a miss to memory.
TEXT ·momentsF32AVX512(SB), NOSPLIT, $0-48
	MOVQ       x_base+0(FP), xPtr            // xPtr = &x[0]
	MOVQ       x_len+8(FP), nLeft            // nLeft = len(x)
	VBROADCASTSD k+24(FP), Z14               // Z14 = k everywhere
	VBROADCASTSD dOne<>(SB), Z15             // Z15 = 1 everywhere
	VPXORQ     Z0, Z0, Z0                    // s1 lanes = 0
	VPXORQ     Z1, Z1, Z1
	VPXORQ     Z2, Z2, Z2
	VPXORQ     Z3, Z3, Z3
	VPXORQ     Z4, Z4, Z4                    // s2 lanes = 0
	VPXORQ     Z5, Z5, Z5
	VPXORQ     Z6, Z6, Z6
	VPXORQ     Z7, Z7, Z7
	TESTQ      nLeft, nLeft                  // empty?
	JZ         fold                          // zeros, then
loop:
	PREFETCHT0 4096(xPtr)                    // the lines 4 KiB on, as
	PREFETCHT0 4160(xPtr)                    // the next row of a matrix
	VCVTPS2PD  (xPtr), Z8                    // Z8:Z11 = 32 elements widened
	VCVTPS2PD  32(xPtr), Z9
	VCVTPS2PD  64(xPtr), Z10
	VCVTPS2PD  96(xPtr), Z11
	VSUBPD     Z14, Z8, Z8                   // d = x - k
	VSUBPD     Z14, Z9, Z9                   // Z9 -= k
	VSUBPD     Z14, Z10, Z10                 // Z10 -= k
	VSUBPD     Z14, Z11, Z11                 // Z11 -= k
	VFMADD231PD Z8, Z15, Z0                  // s1 += 1·d (a sum on the FMA unit)
	VFMADD231PD Z9, Z15, Z1                  // Z1 += Z9
	VFMADD231PD Z10, Z15, Z2                 // Z2 += Z10
	VFMADD231PD Z11, Z15, Z3                 // Z3 += Z11
	VFMADD231PD Z8, Z8, Z4                   // s2 += d²
	VFMADD231PD Z9, Z9, Z5                   // Z5 += Z9²
	VFMADD231PD Z10, Z10, Z6                 // Z6 += Z10²
	VFMADD231PD Z11, Z11, Z7                 // Z7 += Z11²
	ADDQ       $128, xPtr                    // next 32
	SUBQ       $32, nLeft                    // 32 done
	JNZ        loop                          // again
fold:
	FOLD32(Z0, Y0, X0, Z1, Y1, X1)           // X0 = s1 of lanes 0–15
	FOLD32(Z2, Y2, X2, Z3, Y3, X3)           // X2 = s1 of lanes 16–31
	VADDSD     X2, X0, X0                    // X0 = s1
	FOLD32(Z4, Y4, X4, Z5, Y5, X5)           // X4 = s2 of lanes 0–15
	FOLD32(Z6, Y6, X6, Z7, Y7, X7)           // X6 = s2 of lanes 16–31
	VADDSD     X6, X4, X4                    // X4 = s2
	VMOVSD     X0, s1+32(FP)                 // return s1
	VMOVSD     X4, s2+40(FP)                 // and s2
	VZEROUPPER
	RET

// func accumulateRowsF32AVX512(acc []float64, x []float32, rows, stride int):
// as accumulateRowsF32, 64 columns at a time in Z0–Z7, so that a row of
// 64 float32 (four cache lines) is read in one pass down the rows rather
// than in two; then 8 at a time in Z0. The same bits: each column's
// additions in row order, each conversion exact.
//
// In:  rows ≥ 1, len(acc) = 8n, n ≥ 1, x holding the rows (stride apart).
// R10 is the block's &acc[0], R11 the columns left, R12 the block's first
// row, AX the rows, BX the stride in bytes, R13 the row, R14 the rows
// left. Clobbers Z0–Z15.
TEXT ·accumulateRowsF32AVX512(SB), NOSPLIT, $0-64
	MOVQ      acc_base+0(FP), R10            // R10 = &acc[0]
	MOVQ      acc_len+8(FP), R11             // R11 = len(acc)
	MOVQ      x_base+24(FP), R12             // R12 = &x[0], the first row
	MOVQ      rows+48(FP), AX                // AX = rows
	MOVQ      stride+56(FP), BX              // BX = stride
	SHLQ      $2, BX                         // in bytes
ar64:
	CMPQ      R11, $64                       // 64 columns left?
	JLT       ar8                            // no: 8 at a time
	VMOVUPD   (R10), Z0                      // Z0 = acc[0:8]
	VMOVUPD   64(R10), Z1                    // Z1 = acc[8:16]
	VMOVUPD   128(R10), Z2                   // Z2 = acc[16:24]
	VMOVUPD   192(R10), Z3                   // Z3 = acc[24:32]
	VMOVUPD   256(R10), Z4                   // Z4 = acc[32:40]
	VMOVUPD   320(R10), Z5                   // Z5 = acc[40:48]
	VMOVUPD   384(R10), Z6                   // Z6 = acc[48:56]
	VMOVUPD   448(R10), Z7                   // Z7 = acc[56:64]
	MOVQ      R12, R13                       // R13 = the first row
	MOVQ      AX, R14                        // R14 = rows
ar64row:
	VCVTPS2PD (R13), Z8                      // Z8 = float64(x[0:8])
	VCVTPS2PD 32(R13), Z9                    // Z9 = float64(x[8:16])
	VCVTPS2PD 64(R13), Z10                   // Z10 = float64(x[16:24])
	VCVTPS2PD 96(R13), Z11                   // Z11 = float64(x[24:32])
	VADDPD    Z8, Z0, Z0                     // Z0 += x[0:8]
	VADDPD    Z9, Z1, Z1                     // Z1 += x[8:16]
	VADDPD    Z10, Z2, Z2                    // Z2 += x[16:24]
	VADDPD    Z11, Z3, Z3                    // Z3 += x[24:32]
	VCVTPS2PD 128(R13), Z12                  // Z12 = float64(x[32:40])
	VCVTPS2PD 160(R13), Z13                  // Z13 = float64(x[40:48])
	VCVTPS2PD 192(R13), Z14                  // Z14 = float64(x[48:56])
	VCVTPS2PD 224(R13), Z15                  // Z15 = float64(x[56:64])
	VADDPD    Z12, Z4, Z4                    // Z4 += x[32:40]
	VADDPD    Z13, Z5, Z5                    // Z5 += x[40:48]
	VADDPD    Z14, Z6, Z6                    // Z6 += x[48:56]
	VADDPD    Z15, Z7, Z7                    // Z7 += x[56:64]
	ADDQ      BX, R13                        // next row
	DECQ      R14                            // one row done
	JNZ       ar64row                        // more rows
	VMOVUPD   Z0, (R10)                      // acc[0:8] = Z0
	VMOVUPD   Z1, 64(R10)                    // acc[8:16] = Z1
	VMOVUPD   Z2, 128(R10)                   // acc[16:24] = Z2
	VMOVUPD   Z3, 192(R10)                   // acc[24:32] = Z3
	VMOVUPD   Z4, 256(R10)                   // acc[32:40] = Z4
	VMOVUPD   Z5, 320(R10)                   // acc[40:48] = Z5
	VMOVUPD   Z6, 384(R10)                   // acc[48:56] = Z6
	VMOVUPD   Z7, 448(R10)                   // acc[56:64] = Z7
	ADDQ      $512, R10                      // next 64 of acc
	ADDQ      $256, R12                      // and of each row
	SUBQ      $64, R11                       // 64 columns done
	JMP       ar64                           // more
ar8:
	TESTQ     R11, R11                       // columns left?
	JZ        ardone                         // no
	VMOVUPD   (R10), Z0                      // Z0 = acc[0:8]
	MOVQ      R12, R13                       // R13 = the first row
	MOVQ      AX, R14                        // R14 = rows
ar8row:
	VCVTPS2PD (R13), Z8                      // Z8 = float64(x[0:8])
	VADDPD    Z8, Z0, Z0                     // Z0 += x[0:8]
	ADDQ      BX, R13                        // next row
	DECQ      R14                            // one row done
	JNZ       ar8row                         // more rows
	VMOVUPD   Z0, (R10)                      // acc[0:8] = Z0
	ADDQ      $64, R10                       // next 8 of acc
	ADDQ      $32, R12                       // and of each row
	SUBQ      $8, R11                        // 8 columns done
	JMP       ar8                            // more
ardone:
	VZEROUPPER
	RET

// The second row of sum2F32AVX512.
#define yPtr R10 // next element of the second row

#define SUMSTEPY(off, acc) \
	VCVTPS2PD  off(yPtr), Z5;                /* Z5 = 8 widened         */ \
	VADDPD     Z5, acc, acc                  /* acc += them            */
#define SUMSTEPYM(k, off, acc) \
	VCVTPS2PD.Z off(yPtr), k, Z5;            /* Z5 = 8 widened, masked */ \
	VADDPD     Z5, acc, acc                  /* acc += them            */

// func sum2F32AVX512(x []float32, n int) (a, b float64): a = sumF32(x[:n])
// and b = sumF32(x[n:2n]), each row's additions as sumF32AVX512's, the two
// rows' interleaved: two chains of additions in flight instead of one
// (a row in cache is summed at the adds' latency, not the loads' rate).
TEXT ·sum2F32AVX512(SB), NOSPLIT, $0-48
	MOVQ       x_base+0(FP), xPtr            // xPtr = &x[0]
	MOVQ       n+24(FP), nLeft               // nLeft = n
	LEAQ       (xPtr)(nLeft*4), yPtr         // yPtr = &x[n]
	VPXORQ     Z0, Z0, Z0                    // row a's sums 0:8 = 0
	VPXORQ     Z1, Z1, Z1                    // 8:16
	VPXORQ     Z2, Z2, Z2                    // row b's sums 0:8 = 0
	VPXORQ     Z3, Z3, Z3                    // 8:16
	CMPQ       nLeft, $32                    // 32 left?
	JLT        tail2                         // the last elements
loop2:
	SUMSTEP(0, Z0)                           // a's x[0:8] into sums 0:8
	SUMSTEPY(0, Z2)                          // b's
	SUMSTEP(32, Z1)                          // a's x[8:16] into 8:16
	SUMSTEPY(32, Z3)                         // b's
	SUMSTEP(64, Z0)                          // a's x[16:24] into 0:8
	SUMSTEPY(64, Z2)                         // b's
	SUMSTEP(96, Z1)                          // a's x[24:32] into 8:16
	SUMSTEPY(96, Z3)                         // b's
	ADDQ       $128, xPtr                    // a's next 32
	ADDQ       $128, yPtr                    // b's
	SUBQ       $32, nLeft                    // 32 done
	CMPQ       nLeft, $32                    // 32 more?
	JGE        loop2                         // again
tail2:
	TESTQ      nLeft, nLeft                  // anything left?
	JZ         done2                         // finished
	MASK8(K1, 0)                             // K1:K4 = lanes of the 4 chunks
	MASK8(K2, 1)
	MASK8(K3, 2)
	MASK8(K4, 3)
	SUMSTEPM(K1, 0, Z0)                      // as in the loop, masked
	SUMSTEPYM(K1, 0, Z2)
	SUMSTEPM(K2, 32, Z1)
	SUMSTEPYM(K2, 32, Z3)
	SUMSTEPM(K3, 64, Z0)
	SUMSTEPYM(K3, 64, Z2)
	SUMSTEPM(K4, 96, Z1)
	SUMSTEPYM(K4, 96, Z3)
done2:
	FOLD32(Z0, Y0, X0, Z1, Y1, X1)           // X0 = a's sum16
	FOLD32(Z2, Y2, X2, Z3, Y3, X3)           // X2 = b's
	VMOVSD     X0, a+32(FP)                  // return them
	VMOVSD     X2, b+40(FP)
	VZEROUPPER                               // clean AVX state
	RET
