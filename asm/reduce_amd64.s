//go:build !purego

#include "textflag.h"
#include "elementwise_amd64.h"

// Reductions and row kernels, AVX2+FMA. Float64 running sums: Y0–Y3 hold
// sums 0–15 (element i goes to sum i mod 16) in the 16-wide kernels; the
// tail loads the last r < 16 elements through two lane masks so that this
// stays true. They are the twins in reduce_generic.go.

// Register roles.
#define xPtr   SI  // next element of x
#define yPtr   DX  // next element of y
#define dPtr   DI  // next element of dst
#define wPtr   R12 // next element of w
#define bPtr   R13 // next element of b
#define nLeft  CX  // elements left
#define mPtr   R8  // lane mask of the first 8 of the tail
#define mPtr2  R9  // lane mask of the second 8
#define mask   Y15 // tail lane mask (8-wide kernels)

C64(dZero, $0)                   // 0.0
C32(iNegOne, $0xffffffff)        // int32 -1
C32(iEight, $0x00000008)         // int32 8
DATA iota<>+0(SB)/4, $0          // int32 0…7: the lane of each element
DATA iota<>+4(SB)/4, $1
DATA iota<>+8(SB)/4, $2
DATA iota<>+12(SB)/4, $3
DATA iota<>+16(SB)/4, $4
DATA iota<>+20(SB)/4, $5
DATA iota<>+24(SB)/4, $6
DATA iota<>+28(SB)/4, $7
GLOBL iota<>(SB), RODATA|NOPTR, $32

// TAILMASKS16 points mPtr and mPtr2 at the masks of the last nLeft < 16
// elements: min(nLeft, 8) lanes, then the rest. Clobbers R10, R11.
#define TAILMASKS16 \
	MOVQ     $8, R10;                        /* R10 = 8                */ \
	CMPQ     nLeft, R10;                     /* fewer than 8?          */ \
	CMOVQLT  nLeft, R10;                     /* R10 = min(nLeft, 8)    */ \
	MOVQ     nLeft, R11;                     /* R11 = nLeft            */ \
	SUBQ     R10, R11;                       /* R11 = the rest         */ \
	LEAQ     tailMask<>+32(SB), mPtr;        /* end of the ones        */ \
	MOVQ     mPtr, mPtr2;                     /* mPtr2 = end of the ones */ \
	SHLQ     $2, R10;                        /* bytes                  */ \
	SUBQ     R10, mPtr;                      /* mPtr: R10 lanes        */ \
	SHLQ     $2, R11;                         /* R11 in bytes */ \
	SUBQ     R11, mPtr2                      /* mPtr2: R11 lanes       */

// LOAD16M(p, a, b) widens the masked last elements at p into a:b (lanes
// 0–7) and Y10:Y11 (lanes 8–15); Y8, Y9, Y12, Y13 scratch.
#define LOAD16M(p) \
	VMOVUPS    (mPtr), Y8;                   /* Y8 = first mask        */ \
	VMASKMOVPS (p), Y8, Y9;                  /* Y9 = p[0:8], masked    */ \
	VMOVUPS    (mPtr2), Y8;                  /* Y8 = second mask       */ \
	VMASKMOVPS 32(p), Y8, Y12;               /* Y12 = p[8:16], masked  */ \
	VCVTPS2PD  X9, Y4;                       /* Y4 = p[0:4]            */ \
	VEXTRACTF128 $1, Y9, X9;                  /* X9 = the upper half of Y9 */ \
	VCVTPS2PD  X9, Y5;                       /* Y5 = p[4:8]            */ \
	VCVTPS2PD  X12, Y6;                      /* Y6 = p[8:12]           */ \
	VEXTRACTF128 $1, Y12, X12;                /* X12 = the upper half of Y12 */ \
	VCVTPS2PD  X12, Y7                       /* Y7 = p[12:16]          */

// FOLD16(a, b, c, d) adds up the 16 sums in a:d (four vectors, four
// lanes each) as sum16 into the low lane of X(a); clobbers X(b).
#define FOLD16(ya, yb, yc, yd, xa, xb) \
	VADDPD       yb, ya, ya;                 /* a = s0:4 + s4:8        */ \
	VADDPD       yd, yc, yc;                 /* c = s8:12 + s12:16     */ \
	VADDPD       yc, ya, ya;                 /* a = v                  */ \
	VEXTRACTF128 $1, ya, xb;                 /* b = v2, v3             */ \
	VADDPD       xb, xa, xa;                 /* a = v0+v2, v1+v3       */ \
	VPERMILPD    $1, xa, xb;                 /* b = v1+v3, v0+v2       */ \
	VADDSD       xb, xa, xa                  // a = (v0+v2)+(v1+v3)

// FINISH16 adds the 16 sums in Y0–Y3 up as sum16 and stores the result at ret.
#define FINISH16(ret) \
	FOLD16(Y0, Y1, Y2, Y3, X0, X1);          /* X0 = sum16             */ \
	VMOVSD       X0, ret;                    /* return it              */ \
	VZEROUPPER; \
	RET

// LANES(CMP) folds x into 8 lanes for func maxLanesF32(x []float32)
// (v [8]float32, i [8]int32) and minLanesF32: Y0 = the lanes' values,
// Y1 = their indices (-1: empty), Y2 = the indices of the vector at hand.
// An element replaces its lane's value when CMP(element, value) holds, or
// it is a NaN and the value is not, or the lane is empty.
#define LANESTEP(CMP) \
	VCMPPS    CMP, Y0, Y4, Y5;               /* Y5 = x ≷ value         */ \
	VCMPPS    $3, Y4, Y4, Y6;                /* Y6 = x is NaN          */ \
	VCMPPS    $7, Y0, Y0, Y7;                /* Y7 = value is not NaN  */ \
	VANDPS    Y7, Y6, Y6;                    /* Y6 = a NaN beats it    */ \
	VORPS     Y6, Y5, Y5;                     /* Y5 = Y5 | Y6 */ \
	VPCMPGTD  Y1, Y8, Y6;                    /* Y6 = lane empty (0 > index) */ \
	VPOR      Y6, Y5, Y5                     /* Y5 = replace           */
#define LANEUPDATE \
	VBLENDVPS Y5, Y4, Y0, Y0;                /* value = x there        */ \
	VBLENDVPS Y5, Y2, Y1, Y1;                /* index = i there        */ \
	VPADDD    iEight<>(SB), Y2, Y2           /* next indices           */
#define LANES(CMP) \
	MOVQ      x_base+0(FP), xPtr;            /* xPtr = &x[0]           */ \
	MOVQ      x_len+8(FP), nLeft;            /* nLeft = len(x)         */ \
	VXORPS    Y0, Y0, Y0;                    /* values = 0             */ \
	VMOVUPS   iNegOne<>(SB), Y1;             /* indices = -1           */ \
	VMOVUPS   iota<>(SB), Y2;                /* Y2 = 0…7               */ \
	VPXOR     Y8, Y8, Y8;                    /* Y8 = 0                 */ \
	CMPQ      nLeft, $8;                     /* 8 left?                */ \
	JLT       tail;                           /* the last elements */ \
loop: \
	VMOVUPS   (xPtr), Y4;                    /* Y4 = x[0:8]            */ \
	LANESTEP(CMP);                           /* Y5 = replace           */ \
	LANEUPDATE;                               /* take them */ \
	ADDQ      $32, xPtr;                     /* next 8                 */ \
	SUBQ      $8, nLeft;                      /* 8 done */ \
	CMPQ      nLeft, $8;                     /* 8 more?                */ \
	JGE       loop;                           /* again */ \
tail: \
	TESTQ     nLeft, nLeft;                  /* anything left?         */ \
	JZ        done;                           /* finished */ \
	TAILMASK32(nLeft, mPtr, mask);           /* mask = the last lanes  */ \
	VMASKMOVPS (xPtr), mask, Y4;             /* Y4 = the last, masked  */ \
	LANESTEP(CMP);                           /* Y5 = replace           */ \
	VANDPS    mask, Y5, Y5;                  /* only lanes in range    */ \
	LANEUPDATE;                               /* take them */ \
done: \
	VMOVUPS   Y0, v+24(FP);                  /* return the values      */ \
	VMOVUPS   Y1, i+56(FP);                  /* and the indices        */ \
	VZEROUPPER; \
	RET


// VALSTEP(MM, v): acc = MM(acc, v) with the NaN lanes of v OR-ed into Y8.
#define VALSTEP(MM, v, acc) \
	VCMPPS    $3, v, v, Y9;                  /* Y9 = v is NaN          */ \
	VORPS     Y9, Y8, Y8;                    /* remember them          */ \
	MM        v, acc, acc                    /* acc = max/min(acc, v)  */

// VALUE(MM, INIT) is func maxValF32(x []float32) float32 and minValF32:
// the largest (smallest) element, NaN if there is one; Y0–Y3 hold 32
// running extremes (started at INIT, ∓Inf), Y8 the NaN lanes seen (in the
// loop, a lane is set when that lane of either of two vectors is NaN: one
// unordered compare for two vectors). Clobbers Y0–Y10.
#define VALUE(MM, INIT) \
	MOVQ      x_base+0(FP), xPtr;            /* xPtr = &x[0]           */ \
	MOVQ      x_len+8(FP), nLeft;            /* nLeft = len(x)         */ \
	VMOVUPS   INIT, Y0;                      /* extremes = ∓Inf        */ \
	VMOVUPS   Y0, Y1;                         /* Y1 = Y0 */ \
	VMOVUPS   Y0, Y2;                         /* Y2 = Y0 */ \
	VMOVUPS   Y0, Y3;                         /* Y3 = Y0 */ \
	VXORPS    Y8, Y8, Y8;                    /* no NaN yet             */ \
	CMPQ      nLeft, $32;                    /* 32 left?               */ \
	JLT       one;                            /* the single vectors */ \
loop: \
	PREFETCHT0 4096(xPtr);                   /* the lines 4 KiB on (see */ \
	PREFETCHT0 4160(xPtr);                   /* momentsF32AVX512)      */ \
	VMOVUPS   (xPtr), Y4;                    /* Y4:Y7 = x[0:32]        */ \
	VMOVUPS   32(xPtr), Y5; \
	VMOVUPS   64(xPtr), Y6; \
	VMOVUPS   96(xPtr), Y7; \
	VCMPPS    $3, Y5, Y4, Y9;                /* Y9 = Y4 or Y5 is NaN   */ \
	VCMPPS    $3, Y7, Y6, Y10;               /* Y10 = Y6 or Y7 is NaN  */ \
	VORPS     Y10, Y9, Y9;                   /* Y9 = any of the four   */ \
	VORPS     Y9, Y8, Y8;                    /* remember them          */ \
	MM        Y4, Y0, Y0;                    /* fold them in           */ \
	MM        Y5, Y1, Y1;                    /* Y1 = max/min(Y1, Y5)   */ \
	MM        Y6, Y2, Y2;                    /* Y2 = max/min(Y2, Y6)   */ \
	MM        Y7, Y3, Y3;                    /* Y3 = max/min(Y3, Y7)   */ \
	ADDQ      $128, xPtr;                    /* next 32                */ \
	SUBQ      $32, nLeft;                     /* 32 done */ \
	CMPQ      nLeft, $32;                    /* 32 more?               */ \
	JGE       loop;                           /* again */ \
one: \
	CMPQ      nLeft, $8;                     /* 8 left?                */ \
	JLT       tail;                           /* the last elements */ \
	VMOVUPS   (xPtr), Y4;                    /* Y4 = x[0:8]            */ \
	VALSTEP(MM, Y4, Y0);                     /* fold it in             */ \
	ADDQ      $32, xPtr;                      /* advance xPtr too */ \
	SUBQ      $8, nLeft;                      /* 8 done */ \
	JMP       one;                            /* the single vectors */ \
tail: \
	TESTQ     nLeft, nLeft;                  /* anything left?         */ \
	JZ        done;                           /* finished */ \
	TAILMASK32(nLeft, mPtr, mask);           /* mask = the last lanes  */ \
	VMASKMOVPS (xPtr), mask, Y4;             /* Y4 = the last, masked  */ \
	VBLENDVPS mask, Y4, Y1, Y4;              /* off the end: a neutral extreme */ \
	VALSTEP(MM, Y4, Y0);                     /* fold it in             */ \
done: \
	MM        Y1, Y0, Y0;                    /* fold the 4 together    */ \
	MM        Y3, Y2, Y2;                     /* fold */ \
	MM        Y2, Y0, Y0;                     /* fold */ \
	VEXTRACTF128 $1, Y0, X1;                 /* and the 8 lanes        */ \
	MM        X1, X0, X0;                     /* fold */ \
	VPERMILPS $0x4e, X0, X1;                  /* swap lanes */ \
	MM        X1, X0, X0;                     /* fold */ \
	VPERMILPS $0xb1, X0, X1;                  /* swap lanes */ \
	MM        X1, X0, X0;                    /* X0 = the extreme       */ \
	VPTEST    Y8, Y8;                        /* any NaN?               */ \
	JZ        ret;                            /* to ret */ \
	VMOVSS    cNaN<>(SB), X0;                /* then NaN               */ \
ret: \
	VMOVSS    X0, ret+24(FP);                /* return it              */ \
	VZEROUPPER; \
	RET

// func sumF32(x []float32) float64: Σ x[i] in 16 float64 sums.
TEXT ·sumF32(SB), NOSPLIT, $0-32
	MOVQ      x_base+0(FP), xPtr             // xPtr = &x[0]
	MOVQ      x_len+8(FP), nLeft             // nLeft = len(x)
	VXORPD    Y0, Y0, Y0                     // sums = 0
	VXORPD    Y1, Y1, Y1
	VXORPD    Y2, Y2, Y2
	VXORPD    Y3, Y3, Y3
	CMPQ      nLeft, $16                     // 16 left?
	JLT       tail                           // the last elements
loop:
	VCVTPS2PD (xPtr), Y4                     // Y4 = x[0:4] widened
	VCVTPS2PD 16(xPtr), Y5                   // Y5 = x[4:8]
	VCVTPS2PD 32(xPtr), Y6                   // Y6 = x[8:12]
	VCVTPS2PD 48(xPtr), Y7                   // Y7 = x[12:16]
	VADDPD    Y4, Y0, Y0                     // sums += them
	VADDPD    Y5, Y1, Y1                     // Y1 += Y5
	VADDPD    Y6, Y2, Y2                     // Y2 += Y6
	VADDPD    Y7, Y3, Y3                     // Y3 += Y7
	ADDQ      $64, xPtr                      // next 16
	SUBQ      $16, nLeft                     // 16 done
	CMPQ      nLeft, $16                     // 16 more?
	JGE       loop                           // again
tail:
	TESTQ     nLeft, nLeft                   // anything left?
	JZ        done                           // finished
	TAILMASKS16                              // masks of the last ones
	LOAD16M(xPtr)                            // Y4:Y7 = them, 0 elsewhere
	VADDPD    Y4, Y0, Y0                     // sums += them
	VADDPD    Y5, Y1, Y1                     // Y1 += Y5
	VADDPD    Y6, Y2, Y2                     // Y2 += Y6
	VADDPD    Y7, Y3, Y3                     // Y3 += Y7
done:
	FINISH16(ret+24(FP))                     // add the sums up, return

// func dotF32(x, y []float32) float64: Σ x[i]·y[i] in 16 float64 sums.
TEXT ·dotF32(SB), NOSPLIT, $0-56
	MOVQ      x_base+0(FP), xPtr             // xPtr = &x[0]
	MOVQ      x_len+8(FP), nLeft             // nLeft = len(x)
	MOVQ      y_base+24(FP), yPtr            // yPtr = &y[0]
	VXORPD    Y0, Y0, Y0                     // sums = 0
	VXORPD    Y1, Y1, Y1
	VXORPD    Y2, Y2, Y2
	VXORPD    Y3, Y3, Y3
	CMPQ      nLeft, $16                     // 16 left?
	JLT       tail                           // the last elements
loop:
	VCVTPS2PD (xPtr), Y4                     // Y4:Y7 = x[0:16] widened
	VCVTPS2PD 16(xPtr), Y5
	VCVTPS2PD 32(xPtr), Y6
	VCVTPS2PD 48(xPtr), Y7
	VCVTPS2PD (yPtr), Y8                     // Y8:Y11 = y[0:16] widened
	VCVTPS2PD 16(yPtr), Y9
	VCVTPS2PD 32(yPtr), Y10
	VCVTPS2PD 48(yPtr), Y11
	VFMADD231PD Y8, Y4, Y0                   // sums += x·y (exact products)
	VFMADD231PD Y9, Y5, Y1                   // Y1 += Y5·Y9
	VFMADD231PD Y10, Y6, Y2                  // Y2 += Y6·Y10
	VFMADD231PD Y11, Y7, Y3                  // Y3 += Y7·Y11
	ADDQ      $64, xPtr                      // next 16
	ADDQ      $64, yPtr                      // advance yPtr too
	SUBQ      $16, nLeft                     // 16 done
	CMPQ      nLeft, $16                     // 16 more?
	JGE       loop                           // again
tail:
	TESTQ     nLeft, nLeft                   // anything left?
	JZ        done                           // finished
	TAILMASKS16                              // masks of the last ones
	LOAD16M(yPtr)                            // Y4:Y7 = last of y
	VMOVAPD   Y4, Y10                        // keep them in Y10, Y11, Y13, Y14
	VMOVAPD   Y5, Y11                        // Y11 = Y5
	VMOVAPD   Y6, Y13                        // Y13 = Y6
	VMOVAPD   Y7, Y14                        // Y14 = Y7
	LOAD16M(xPtr)                            // Y4:Y7 = last of x
	VFMADD231PD Y10, Y4, Y0                  // sums += x·y
	VFMADD231PD Y11, Y5, Y1                  // Y1 += Y5·Y11
	VFMADD231PD Y13, Y6, Y2                  // Y2 += Y6·Y13
	VFMADD231PD Y14, Y7, Y3                  // Y3 += Y7·Y14
done:
	FINISH16(ret+48(FP))                     // add the sums up, return

// func sumSqDevF32(x []float32, m float64) float64: Σ (x[i] - m)².
TEXT ·sumSqDevF32(SB), NOSPLIT, $0-40
	MOVQ      x_base+0(FP), xPtr             // xPtr = &x[0]
	MOVQ      x_len+8(FP), nLeft             // nLeft = len(x)
	VBROADCASTSD m+24(FP), Y14               // Y14 = m everywhere
	VXORPD    Y0, Y0, Y0                     // sums = 0
	VXORPD    Y1, Y1, Y1
	VXORPD    Y2, Y2, Y2
	VXORPD    Y3, Y3, Y3
	CMPQ      nLeft, $16                     // 16 left?
	JLT       tail                           // the last elements
loop:
	VCVTPS2PD (xPtr), Y4                     // Y4:Y7 = x[0:16] widened
	VCVTPS2PD 16(xPtr), Y5
	VCVTPS2PD 32(xPtr), Y6
	VCVTPS2PD 48(xPtr), Y7
	VSUBPD    Y14, Y4, Y4                    // d = x - m
	VSUBPD    Y14, Y5, Y5                    // Y5 = Y5 - Y14
	VSUBPD    Y14, Y6, Y6                    // Y6 = Y6 - Y14
	VSUBPD    Y14, Y7, Y7                    // Y7 = Y7 - Y14
	VFMADD231PD Y4, Y4, Y0                   // sums += d²
	VFMADD231PD Y5, Y5, Y1                   // Y1 += Y5·Y5
	VFMADD231PD Y6, Y6, Y2                   // Y2 += Y6·Y6
	VFMADD231PD Y7, Y7, Y3                   // Y3 += Y7·Y7
	ADDQ      $64, xPtr                      // next 16
	SUBQ      $16, nLeft                     // 16 done
	CMPQ      nLeft, $16                     // 16 more?
	JGE       loop                           // again
tail:
	TESTQ     nLeft, nLeft                   // anything left?
	JZ        done                           // finished
	TAILMASKS16                              // masks of the last ones
	LOAD16M(xPtr)                            // Y4:Y7 = them, 0 elsewhere
	VSUBPD    Y14, Y4, Y4                    // d = x - m
	VSUBPD    Y14, Y5, Y5                    // Y5 = Y5 - Y14
	VSUBPD    Y14, Y6, Y6                    // Y6 = Y6 - Y14
	VSUBPD    Y14, Y7, Y7                    // Y7 = Y7 - Y14
	VMOVUPS   (mPtr), Y8                     // Y8 = first mask
	VPMOVSXDQ X8, Y9                         // Y9 = its lanes 0:4, as qwords
	VANDPD    Y9, Y4, Y4                     // d = 0 off the end
	VEXTRACTF128 $1, Y8, X8                  // X8 = the upper half of Y8
	VPMOVSXDQ X8, Y9                         // lanes 4:8
	VANDPD    Y9, Y5, Y5                     // Y5 &= Y9
	VMOVUPS   (mPtr2), Y8                    // Y8 = second mask
	VPMOVSXDQ X8, Y9                         // lanes 8:12
	VANDPD    Y9, Y6, Y6                     // Y6 &= Y9
	VEXTRACTF128 $1, Y8, X8                  // X8 = the upper half of Y8
	VPMOVSXDQ X8, Y9                         // lanes 12:16
	VANDPD    Y9, Y7, Y7                     // Y7 &= Y9
	VFMADD231PD Y4, Y4, Y0                   // sums += d²
	VFMADD231PD Y5, Y5, Y1                   // Y1 += Y5·Y5
	VFMADD231PD Y6, Y6, Y2                   // Y2 += Y6·Y6
	VFMADD231PD Y7, Y7, Y3                   // Y3 += Y7·Y7
done:
	FINISH16(ret+32(FP))                     // add the sums up, return

// func maxLanesF32(x []float32) (v [8]float32, i [8]int32) and
// minLanesF32: see LANES.
TEXT ·maxLanesF32(SB), NOSPLIT, $0-88
	LANES($0x1e)                             // GT_OQ: x > value

TEXT ·minLanesF32(SB), NOSPLIT, $0-88
	LANES($0x11)                             // LT_OQ: x < value

// func expShiftF32(d, x []float32, m float32): d[i] = e^(x[i]-m), two
// vectors a step.
TEXT ·expShiftF32(SB), NOSPLIT, $0-52
	MOVQ      d_base+0(FP), dPtr             // dPtr = &d[0]
	MOVQ      d_len+8(FP), nLeft             // nLeft = len(d)
	MOVQ      x_base+24(FP), xPtr            // xPtr = &x[0]
	VBROADCASTSS m+48(FP), Y14               // Y14 = m everywhere
	CMPQ      nLeft, $16                     // 16 left?
	JLT       one                            // the single vectors
pair:
	VMOVUPS   (xPtr), Y0                     // Y0 = x[0:8]
	VMOVUPS   32(xPtr), Y6                   // Y6 = x[8:16]
	VSUBPS    Y14, Y0, Y0                    // Y0 = x - m
	VSUBPS    Y14, Y6, Y6                    // Y6 = x - m
	EXPPARTS(Y0, Y1, Y2, Y3, Y4, Y5)         // two independent exps side by side
	EXPPARTS(Y6, Y7, Y8, Y9, Y10, Y11)       // (their chains overlap)
	VMULPS    Y2, Y1, Y1                     // Y0 = y·s1·s2
	VMULPS    Y3, Y1, Y0
	VMULPS    Y8, Y7, Y7                     // Y6 = y·s1·s2
	VMULPS    Y9, Y7, Y6
	VMOVUPS   Y0, (dPtr)                     // d[0:16] = Y0:Y6
	VMOVUPS   Y6, 32(dPtr)
	ADDQ      $64, xPtr                      // next 16
	ADDQ      $64, dPtr                      // advance dPtr too
	SUBQ      $16, nLeft                     // 16 done
	CMPQ      nLeft, $16                     // 16 more?
	JGE       pair                           // again while 16 are left
one:
	CMPQ      nLeft, $8                      // 8 left?
	JLT       tail                           // the last elements
	VMOVUPS   (xPtr), Y0                     // Y0 = x[0:8]
	VSUBPS    Y14, Y0, Y0                    // Y0 = x - m
	EXPCORE                                  // Y0 = e^(x-m)
	VMOVUPS   Y0, (dPtr)                     // d[0:8] = Y0
	ADDQ      $32, xPtr                      // next 8
	ADDQ      $32, dPtr                      // advance dPtr too
	SUBQ      $8, nLeft                      // 8 done
tail:
	TESTQ     nLeft, nLeft                   // anything left?
	JZ        done                           // finished
	TAILMASK32(nLeft, mPtr, mask)            // mask = the last lanes
	VMASKMOVPS (xPtr), mask, Y0              // Y0 = the last, masked
	VSUBPS    Y14, Y0, Y0                    // Y0 = x - m
	EXPCORE                                  // Y0 = e^(x-m)
	VMASKMOVPS Y0, mask, (dPtr)              // d = Y0, masked
done:
	VZEROUPPER
	RET

// func scaleShiftF32(d, x []float32, s, c float32): d[i] = fma(x[i], s, c).
TEXT ·scaleShiftF32(SB), NOSPLIT, $0-56
	MOVQ      d_base+0(FP), dPtr             // dPtr = &d[0]
	MOVQ      d_len+8(FP), nLeft             // nLeft = len(d)
	MOVQ      x_base+24(FP), xPtr            // xPtr = &x[0]
	VBROADCASTSS s+48(FP), Y13               // Y13 = s everywhere
	VBROADCASTSS c+52(FP), Y14               // Y14 = c everywhere
	CMPQ      nLeft, $8                      // 8 left?
	JLT       tail                           // the last elements
loop:
	VMOVUPS   (xPtr), Y0                     // Y0 = x[0:8]
	VFMADD213PS Y14, Y13, Y0                 // Y0 = x·s + c
	VMOVUPS   Y0, (dPtr)                     // d[0:8] = Y0
	ADDQ      $32, xPtr                      // next 8
	ADDQ      $32, dPtr                      // advance dPtr too
	SUBQ      $8, nLeft                      // 8 done
	CMPQ      nLeft, $8                      // 8 more?
	JGE       loop                           // again
tail:
	TESTQ     nLeft, nLeft                   // anything left?
	JZ        done                           // finished
	TAILMASK32(nLeft, mPtr, mask)            // mask = the last lanes
	VMASKMOVPS (xPtr), mask, Y0              // Y0 = the last, masked
	VFMADD213PS Y14, Y13, Y0                 // Y0 = x·s + c
	VMASKMOVPS Y0, mask, (dPtr)              // d = Y0, masked
done:
	VZEROUPPER
	RET

// func affineF32(d, x, w, b []float32, s, c float32):
// d[i] = fma(fma(x[i], s, c), w[i], b[i]).
TEXT ·affineF32(SB), NOSPLIT, $0-104
	MOVQ      d_base+0(FP), dPtr             // dPtr = &d[0]
	MOVQ      d_len+8(FP), nLeft             // nLeft = len(d)
	MOVQ      x_base+24(FP), xPtr            // xPtr = &x[0]
	MOVQ      w_base+48(FP), wPtr            // wPtr = &w[0]
	MOVQ      b_base+72(FP), bPtr            // bPtr = &b[0]
	VBROADCASTSS s+96(FP), Y13               // Y13 = s everywhere
	VBROADCASTSS c+100(FP), Y14              // Y14 = c everywhere
	CMPQ      nLeft, $8                      // 8 left?
	JLT       tail                           // the last elements
loop:
	VMOVUPS   (xPtr), Y0                     // Y0 = x[0:8]
	VMOVUPS   (wPtr), Y1                     // Y1 = w[0:8]
	VFMADD213PS Y14, Y13, Y0                 // Y0 = t = x·s + c
	VFMADD213PS (bPtr), Y1, Y0               // Y0 = t·w + b
	VMOVUPS   Y0, (dPtr)                     // d[0:8] = Y0
	ADDQ      $32, xPtr                      // next 8
	ADDQ      $32, wPtr                      // advance wPtr too
	ADDQ      $32, bPtr                      // advance bPtr too
	ADDQ      $32, dPtr                      // advance dPtr too
	SUBQ      $8, nLeft                      // 8 done
	CMPQ      nLeft, $8                      // 8 more?
	JGE       loop                           // again
tail:
	TESTQ     nLeft, nLeft                   // anything left?
	JZ        done                           // finished
	TAILMASK32(nLeft, mPtr, mask)            // mask = the last lanes
	VMASKMOVPS (xPtr), mask, Y0              // Y0 = x, masked
	VMASKMOVPS (wPtr), mask, Y1              // Y1 = w, masked
	VMASKMOVPS (bPtr), mask, Y2              // Y2 = b, masked
	VFMADD213PS Y14, Y13, Y0                 // Y0 = t = x·s + c
	VFMADD213PS Y2, Y1, Y0                   // Y0 = t·w + b
	VMASKMOVPS Y0, mask, (dPtr)              // d = Y0, masked
done:
	VZEROUPPER
	RET

// func maxValF32(x []float32) float32 and minValF32: see VALUE.
TEXT ·maxValF32(SB), NOSPLIT, $0-28
	VALUE(VMAXPS, cNegInf<>(SB))            // running maxima from -Inf

TEXT ·minValF32(SB), NOSPLIT, $0-28
	VALUE(VMINPS, cPosInf<>(SB))            // running minima from +Inf

// func momentsF32(x []float32, k float64) (s1, s2 float64): as momentsGo,
// len(x) a multiple of 32. Two passes, one per half of the 32 lanes:
// elements 32j+16h … 32j+16h+15 go to lanes 16h … 16h+15 of s1 (Y0–Y3,
// x - k) and s2 (Y4–Y7, (x - k)²); Y15 = k; X12, X13 keep the first
// half's s1, s2.
#define base   R10 // &x[16h]
#define halves R11 // halves left
TEXT ·momentsF32(SB), NOSPLIT, $0-48
	MOVQ      x_base+0(FP), base             // base = &x[0]
	VBROADCASTSD k+24(FP), Y15               // Y15 = k everywhere
	VXORPD    X12, X12, X12                  // s1 of no half = 0
	VXORPD    X13, X13, X13                  // s2 likewise
	MOVQ      $2, halves                     // two halves
half:
	MOVQ      base, xPtr                     // xPtr = &x[16h]
	MOVQ      x_len+8(FP), nLeft             // nLeft = len(x)
	VXORPD    Y0, Y0, Y0                     // s1 lanes = 0
	VXORPD    Y1, Y1, Y1
	VXORPD    Y2, Y2, Y2
	VXORPD    Y3, Y3, Y3
	VXORPD    Y4, Y4, Y4                     // s2 lanes = 0
	VXORPD    Y5, Y5, Y5
	VXORPD    Y6, Y6, Y6
	VXORPD    Y7, Y7, Y7
	TESTQ     nLeft, nLeft                   // empty?
	JZ        fold                           // zeros, then
loop:
	PREFETCHT0 4096(xPtr)                    // the lines 4 KiB on (see
	PREFETCHT0 4160(xPtr)                    // momentsF32AVX512)
	VCVTPS2PD (xPtr), Y8                     // Y8:Y11 = 16 elements widened
	VCVTPS2PD 16(xPtr), Y9
	VCVTPS2PD 32(xPtr), Y10
	VCVTPS2PD 48(xPtr), Y11
	VSUBPD    Y15, Y8, Y8                    // d = x - k
	VSUBPD    Y15, Y9, Y9                    // Y9 -= k
	VSUBPD    Y15, Y10, Y10                  // Y10 -= k
	VSUBPD    Y15, Y11, Y11                  // Y11 -= k
	VADDPD    Y8, Y0, Y0                     // s1 += d
	VADDPD    Y9, Y1, Y1                     // Y1 += Y9
	VADDPD    Y10, Y2, Y2                    // Y2 += Y10
	VADDPD    Y11, Y3, Y3                    // Y3 += Y11
	VFMADD231PD Y8, Y8, Y4                   // s2 += d²
	VFMADD231PD Y9, Y9, Y5                   // Y5 += Y9²
	VFMADD231PD Y10, Y10, Y6                 // Y6 += Y10²
	VFMADD231PD Y11, Y11, Y7                 // Y7 += Y11²
	ADDQ      $128, xPtr                     // next block of 32
	SUBQ      $32, nLeft                     // 32 done
	JNZ       loop                           // again
fold:
	FOLD16(Y0, Y1, Y2, Y3, X0, X1)           // X0 = this half's s1
	FOLD16(Y4, Y5, Y6, Y7, X4, X5)           // X4 = its s2
	VADDSD    X0, X12, X12                   // X12 = first half + this
	VADDSD    X4, X13, X13                   // X13 likewise
	ADDQ      $64, base                      // the second half's elements
	DECQ      halves                         // a half done
	JNZ       half                           // the other
	VMOVSD    X12, s1+32(FP)                 // return s1
	VMOVSD    X13, s2+40(FP)                 // and s2
	VZEROUPPER
	RET

// func normGradSumsF32(dy, x, w []float32) (s, b [8]float32)
//
// In:  len(dy) = len(x) = len(w) = 8n, n ≥ 1.
// Out: lane l of s holds ps[l] + ps[l+8] + … in that order, ps[i] =
//      (dy[i]·x[i])·w[i], and lane l of b the same of pb[i] = dy[i]·w[i]:
//      1.13's vec::map_reduce_all accumulators (the first vector is the
//      starting value, not added to zeros). Clobbers Y0–Y5.
TEXT ·normGradSumsF32(SB), NOSPLIT, $0-136
	MOVQ      dy_base+0(FP), dPtr            // dPtr = &dy[0]
	MOVQ      dy_len+8(FP), nLeft            // nLeft = len(dy)
	MOVQ      x_base+24(FP), xPtr            // xPtr = &x[0]
	MOVQ      w_base+48(FP), wPtr            // wPtr = &w[0]
	VMOVUPS   (dPtr), Y0                     // Y0 = dy[0:8]
	VMULPS    (wPtr), Y0, Y5                 // Y5 = b = dy·w
	VMULPS    (xPtr), Y0, Y4                 // Y4 = dy·x
	VMULPS    (wPtr), Y4, Y4                 // Y4 = s = (dy·x)·w
	JMP       gsnext                         // the first vector is done
gsloop:
	VMOVUPS   (dPtr), Y0                     // Y0 = dy[0:8]
	VMULPS    (wPtr), Y0, Y1                 // Y1 = dy·w
	VMULPS    (xPtr), Y0, Y2                 // Y2 = dy·x
	VMULPS    (wPtr), Y2, Y2                 // Y2 = (dy·x)·w
	VADDPS    Y1, Y5, Y5                     // b += dy·w
	VADDPS    Y2, Y4, Y4                     // s += (dy·x)·w
gsnext:
	ADDQ      $32, dPtr                      // next 8
	ADDQ      $32, xPtr                      // of x
	ADDQ      $32, wPtr                      // of w
	SUBQ      $8, nLeft                      // 8 done
	JNZ       gsloop                         // more
	VMOVUPS   Y4, s+72(FP)                   // s
	VMOVUPS   Y5, b+104(FP)                  // b
	VZEROUPPER
	RET

// func normGradDXF32(dx, dy, x, w []float32, rs, b, c float32):
// dx[i] = fma(b, x[i], (rs·dy[i])·w[i]) + c.
TEXT ·normGradDXF32(SB), NOSPLIT, $0-108
	MOVQ      dx_base+0(FP), dPtr            // dPtr = &dx[0]
	MOVQ      dx_len+8(FP), nLeft            // nLeft = len(dx)
	MOVQ      dy_base+24(FP), yPtr           // yPtr = &dy[0]
	MOVQ      x_base+48(FP), xPtr            // xPtr = &x[0]
	MOVQ      w_base+72(FP), wPtr            // wPtr = &w[0]
	VBROADCASTSS rs+96(FP), Y12              // Y12 = rs everywhere
	VBROADCASTSS b+100(FP), Y13              // Y13 = b everywhere
	VBROADCASTSS c+104(FP), Y14              // Y14 = c everywhere
	CMPQ      nLeft, $8                      // 8 left?
	JLT       dxtail                         // the last elements
dxloop:
	VMULPS    (yPtr), Y12, Y0                // Y0 = rs·dy
	VMULPS    (wPtr), Y0, Y0                 // Y0 = t = (rs·dy)·w
	VFMADD231PS (xPtr), Y13, Y0              // Y0 = b·x + t
	VADDPS    Y14, Y0, Y0                    // Y0 = that + c
	VMOVUPS   Y0, (dPtr)                     // dx[0:8] = Y0
	ADDQ      $32, yPtr                      // next 8
	ADDQ      $32, xPtr                      // of x
	ADDQ      $32, wPtr                      // of w
	ADDQ      $32, dPtr                      // of dx
	SUBQ      $8, nLeft                      // 8 done
	CMPQ      nLeft, $8                      // 8 more?
	JGE       dxloop                         // again
dxtail:
	TESTQ     nLeft, nLeft                   // anything left?
	JZ        dxdone                         // finished
	TAILMASK32(nLeft, mPtr, mask)            // mask = the last lanes
	VMASKMOVPS (yPtr), mask, Y0              // Y0 = dy, masked
	VMASKMOVPS (xPtr), mask, Y1              // Y1 = x, masked
	VMASKMOVPS (wPtr), mask, Y2              // Y2 = w, masked
	VMULPS    Y12, Y0, Y0                    // Y0 = rs·dy
	VMULPS    Y2, Y0, Y0                     // Y0 = t = (rs·dy)·w
	VFMADD231PS Y1, Y13, Y0                  // Y0 = b·x + t
	VADDPS    Y14, Y0, Y0                    // Y0 = that + c
	VMASKMOVPS Y0, mask, (dPtr)              // dx = Y0, masked
dxdone:
	VZEROUPPER
	RET

// func normGradWBF32(dw, db, dy, x []float32, rs, nb float32):
// dw[i] = fma(dy[i], fma(rs, x[i], nb), dw[i]), db[i] = db[i] + dy[i].
TEXT ·normGradWBF32(SB), NOSPLIT, $0-104
	MOVQ      dw_base+0(FP), dPtr            // dPtr = &dw[0]
	MOVQ      dw_len+8(FP), nLeft            // nLeft = len(dw)
	MOVQ      db_base+24(FP), bPtr           // bPtr = &db[0]
	MOVQ      dy_base+48(FP), yPtr           // yPtr = &dy[0]
	MOVQ      x_base+72(FP), xPtr            // xPtr = &x[0]
	VBROADCASTSS rs+96(FP), Y12              // Y12 = rs everywhere
	VBROADCASTSS nb+100(FP), Y13             // Y13 = nb everywhere
	CMPQ      nLeft, $8                      // 8 left?
	JLT       wbtail                         // the last elements
wbloop:
	VMOVUPS   (xPtr), Y0                     // Y0 = x[0:8]
	VFMADD213PS Y13, Y12, Y0                 // Y0 = h = rs·x + nb
	VMOVUPS   (yPtr), Y1                     // Y1 = dy[0:8]
	VFMADD213PS (dPtr), Y1, Y0               // Y0 = dy·h + dw
	VMOVUPS   Y0, (dPtr)                     // dw[0:8] = Y0
	VADDPS    (bPtr), Y1, Y1                 // Y1 = db + dy
	VMOVUPS   Y1, (bPtr)                     // db[0:8] = Y1
	ADDQ      $32, yPtr                      // next 8
	ADDQ      $32, xPtr                      // of x
	ADDQ      $32, bPtr                      // of db
	ADDQ      $32, dPtr                      // of dw
	SUBQ      $8, nLeft                      // 8 done
	CMPQ      nLeft, $8                      // 8 more?
	JGE       wbloop                         // again
wbtail:
	TESTQ     nLeft, nLeft                   // anything left?
	JZ        wbdone                         // finished
	TAILMASK32(nLeft, mPtr, mask)            // mask = the last lanes
	VMASKMOVPS (xPtr), mask, Y0              // Y0 = x, masked
	VMASKMOVPS (yPtr), mask, Y1              // Y1 = dy, masked
	VMASKMOVPS (dPtr), mask, Y2              // Y2 = dw, masked
	VMASKMOVPS (bPtr), mask, Y3              // Y3 = db, masked
	VFMADD213PS Y13, Y12, Y0                 // Y0 = h = rs·x + nb
	VFMADD213PS Y2, Y1, Y0                   // Y0 = dy·h + dw
	VADDPS    Y3, Y1, Y1                     // Y1 = db + dy
	VMASKMOVPS Y0, mask, (dPtr)              // dw = Y0, masked
	VMASKMOVPS Y1, mask, (bPtr)              // db = Y1, masked
wbdone:
	VZEROUPPER
	RET

// func groupGradSumsF32(dy, x []float32) (s, b [8]float32)
//
// In:  len(dy) = len(x) = 8n, n ≥ 1.
// Out: lane l of s = fma(dy[i], x[i], s) and of b = b + dy[i] over i = l,
//      l+8, … in that order from +0: group_norm_kernel.cpp's backward
//      accumulators. Clobbers Y0, Y4, Y5.
TEXT ·groupGradSumsF32(SB), NOSPLIT, $0-112
	MOVQ      dy_base+0(FP), dPtr            // dPtr = &dy[0]
	MOVQ      dy_len+8(FP), nLeft            // nLeft = len(dy)
	MOVQ      x_base+24(FP), xPtr            // xPtr = &x[0]
	VXORPS    Y4, Y4, Y4                     // s = +0
	VXORPS    Y5, Y5, Y5                     // b = +0
ggloop:
	VMOVUPS   (dPtr), Y0                     // Y0 = dy[0:8]
	VFMADD231PS (xPtr), Y0, Y4               // s = dy·x + s
	VADDPS    Y0, Y5, Y5                     // b = b + dy
	ADDQ      $32, dPtr                      // next 8
	ADDQ      $32, xPtr                      // of x
	SUBQ      $8, nLeft                      // 8 done
	JNZ       ggloop                         // more
	VMOVUPS   Y4, s+48(FP)                   // s
	VMOVUPS   Y5, b+80(FP)                   // b
	VZEROUPPER
	RET

// func groupGradSums4F32(dy, x []float32, hw int) (s, b [4][8]float32)
//
// In:  dy and x hold 4 planes of hw elements, hw = 8n, n ≥ 1, plane k
//      from element k·hw.
// Out: s[k], b[k] = groupGradSumsF32 of plane k: the four planes' chains
//      of multiply-adds run side by side (one plane's waits on the
//      latency of each fused multiply-add in turn). R8 is the plane
//      stride in bytes, R9 and R10 the third planes' next elements, AX
//      the vectors left. Clobbers Y0–Y3, Y4–Y11.
TEXT ·groupGradSums4F32(SB), NOSPLIT, $0-312
	MOVQ      dy_base+0(FP), dPtr            // dPtr = &dy[0], plane 0
	MOVQ      x_base+24(FP), xPtr            // xPtr = &x[0]
	MOVQ      hw+48(FP), R8                  // R8 = hw
	MOVQ      R8, AX                         // AX = hw
	SHRQ      $3, AX                         // AX = vectors per plane
	SHLQ      $2, R8                         // R8 = plane stride in bytes
	LEAQ      (dPtr)(R8*2), R9               // R9 = dy's plane 2
	LEAQ      (xPtr)(R8*2), R10              // R10 = x's plane 2
	VXORPS    Y4, Y4, Y4                     // s0 = +0
	VXORPS    Y5, Y5, Y5                     // b0 = +0
	VXORPS    Y6, Y6, Y6                     // s1 = +0
	VXORPS    Y7, Y7, Y7                     // b1 = +0
	VXORPS    Y8, Y8, Y8                     // s2 = +0
	VXORPS    Y9, Y9, Y9                     // b2 = +0
	VXORPS    Y10, Y10, Y10                  // s3 = +0
	VXORPS    Y11, Y11, Y11                  // b3 = +0
g4loop:
	VMOVUPS   (dPtr), Y0                     // Y0 = plane 0's dy[0:8]
	VMOVUPS   (dPtr)(R8*1), Y1               // Y1 = plane 1's
	VMOVUPS   (R9), Y2                       // Y2 = plane 2's
	VMOVUPS   (R9)(R8*1), Y3                 // Y3 = plane 3's
	VFMADD231PS (xPtr), Y0, Y4               // s0 = dy·x + s0
	VADDPS    Y0, Y5, Y5                     // b0 = b0 + dy
	VFMADD231PS (xPtr)(R8*1), Y1, Y6         // s1 = dy·x + s1
	VADDPS    Y1, Y7, Y7                     // b1 = b1 + dy
	VFMADD231PS (R10), Y2, Y8                // s2 = dy·x + s2
	VADDPS    Y2, Y9, Y9                     // b2 = b2 + dy
	VFMADD231PS (R10)(R8*1), Y3, Y10         // s3 = dy·x + s3
	VADDPS    Y3, Y11, Y11                   // b3 = b3 + dy
	ADDQ      $32, dPtr                      // next 8 of planes 0, 1
	ADDQ      $32, xPtr                      // of x
	ADDQ      $32, R9                        // of planes 2, 3
	ADDQ      $32, R10                       // of x
	DECQ      AX                             // a vector of each done
	JNZ       g4loop                         // more
	VMOVUPS   Y4, s_0+56(FP)                   // s[0]
	VMOVUPS   Y6, s_1+88(FP)                   // s[1]
	VMOVUPS   Y8, s_2+120(FP)                  // s[2]
	VMOVUPS   Y10, s_3+152(FP)                 // s[3]
	VMOVUPS   Y5, b_0+184(FP)                  // b[0]
	VMOVUPS   Y7, b_1+216(FP)                  // b[1]
	VMOVUPS   Y9, b_2+248(FP)                  // b[2]
	VMOVUPS   Y11, b_3+280(FP)                 // b[3]
	VZEROUPPER
	RET

// func groupGradDXF32(dx, dy, x []float32, c1, c2, c3 float32):
// dx[i] = fma(c1, dy[i], c2·x[i]) + c3.
TEXT ·groupGradDXF32(SB), NOSPLIT, $0-84
	MOVQ      dx_base+0(FP), dPtr            // dPtr = &dx[0]
	MOVQ      dx_len+8(FP), nLeft            // nLeft = len(dx)
	MOVQ      dy_base+24(FP), yPtr           // yPtr = &dy[0]
	MOVQ      x_base+48(FP), xPtr            // xPtr = &x[0]
	VBROADCASTSS c1+72(FP), Y12              // Y12 = c1 everywhere
	VBROADCASTSS c2+76(FP), Y13              // Y13 = c2 everywhere
	VBROADCASTSS c3+80(FP), Y14              // Y14 = c3 everywhere
	CMPQ      nLeft, $8                      // 8 left?
	JLT       gdtail                         // the last elements
gdloop:
	VMULPS    (xPtr), Y13, Y0                // Y0 = c2·x
	VFMADD231PS (yPtr), Y12, Y0              // Y0 = c1·dy + c2·x
	VADDPS    Y14, Y0, Y0                    // Y0 = that + c3
	VMOVUPS   Y0, (dPtr)                     // dx[0:8] = Y0
	ADDQ      $32, yPtr                      // next 8
	ADDQ      $32, xPtr                      // of x
	ADDQ      $32, dPtr                      // of dx
	SUBQ      $8, nLeft                      // 8 done
	CMPQ      nLeft, $8                      // 8 more?
	JGE       gdloop                         // again
gdtail:
	TESTQ     nLeft, nLeft                   // anything left?
	JZ        gddone                         // finished
	TAILMASK32(nLeft, mPtr, mask)            // mask = the last lanes
	VMASKMOVPS (yPtr), mask, Y1              // Y1 = dy, masked
	VMASKMOVPS (xPtr), mask, Y2              // Y2 = x, masked
	VMULPS    Y2, Y13, Y0                    // Y0 = c2·x
	VFMADD231PS Y1, Y12, Y0                  // Y0 = c1·dy + c2·x
	VADDPS    Y14, Y0, Y0                    // Y0 = that + c3
	VMASKMOVPS Y0, mask, (dPtr)              // dx = Y0, masked
gddone:
	VZEROUPPER
	RET

// func groupGradDXF32NT(dx, dy, x []float32, c1, c2, c3 float32)
//
// In:  len(dx) = 8n, n ≥ 1, dx 32-byte aligned. Out: groupGradDXF32's dx,
// stored past the caches (VMOVNTPS), fenced before the return. Clobbers
// Y0, Y12–Y14.
TEXT ·groupGradDXF32NT(SB), NOSPLIT, $0-84
	MOVQ      dx_base+0(FP), dPtr            // dPtr = &dx[0]
	MOVQ      dx_len+8(FP), nLeft            // nLeft = len(dx)
	MOVQ      dy_base+24(FP), yPtr           // yPtr = &dy[0]
	MOVQ      x_base+48(FP), xPtr            // xPtr = &x[0]
	VBROADCASTSS c1+72(FP), Y12              // Y12 = c1 everywhere
	VBROADCASTSS c2+76(FP), Y13              // Y13 = c2 everywhere
	VBROADCASTSS c3+80(FP), Y14              // Y14 = c3 everywhere
gntloop:
	VMULPS    (xPtr), Y13, Y0                // Y0 = c2·x
	VFMADD231PS (yPtr), Y12, Y0              // Y0 = c1·dy + c2·x
	VADDPS    Y14, Y0, Y0                    // Y0 = that + c3
	VMOVNTPS  Y0, (dPtr)                     // dx[0:8] = Y0, past the caches
	ADDQ      $32, yPtr                      // next 8
	ADDQ      $32, xPtr                      // of x
	ADDQ      $32, dPtr                      // of dx
	SUBQ      $8, nLeft                      // 8 done
	JNZ       gntloop                        // more
	SFENCE                                   // the stores are done before we return
	VZEROUPPER
	RET

// func accumulateRowsF32(acc []float64, x []float32, rows, stride int)
//
// In:  rows ≥ 1, len(acc) = 8n, n ≥ 1, x holding the rows (stride apart).
// Out: acc[j] += float64(x[r*stride+j]) for r = 0, 1, ..., rows-1 in turn,
// each conversion exact and each add rounded once, as the twin. The sums
// stay in registers down all the rows: 32 columns at a time in Y0–Y7 (then
// 8 at a time in Y0, Y1), each column's additions in row order. R10 is the
// block's &acc[0], R11 the columns left, R12 the block's first row, AX the
// rows, BX the stride in bytes, R13 the row, R14 the rows left. Clobbers
// Y0–Y15.
TEXT ·accumulateRowsF32(SB), NOSPLIT, $0-64
	MOVQ      acc_base+0(FP), R10            // R10 = &acc[0]
	MOVQ      acc_len+8(FP), R11             // R11 = len(acc)
	MOVQ      x_base+24(FP), R12             // R12 = &x[0], the first row
	MOVQ      rows+48(FP), AX                // AX = rows
	MOVQ      stride+56(FP), BX              // BX = stride
	SHLQ      $2, BX                         // in bytes
ar32:
	CMPQ      R11, $32                       // 32 columns left?
	JLT       ar8                            // no: 8 at a time
	VMOVUPD   (R10), Y0                      // Y0 = acc[0:4]
	VMOVUPD   32(R10), Y1                    // Y1 = acc[4:8]
	VMOVUPD   64(R10), Y2                    // Y2 = acc[8:12]
	VMOVUPD   96(R10), Y3                    // Y3 = acc[12:16]
	VMOVUPD   128(R10), Y4                   // Y4 = acc[16:20]
	VMOVUPD   160(R10), Y5                   // Y5 = acc[20:24]
	VMOVUPD   192(R10), Y6                   // Y6 = acc[24:28]
	VMOVUPD   224(R10), Y7                   // Y7 = acc[28:32]
	MOVQ      R12, R13                       // R13 = the first row
	MOVQ      AX, R14                        // R14 = rows
ar32row:
	VCVTPS2PD (R13), Y8                      // Y8 = float64(x[0:4])
	VCVTPS2PD 16(R13), Y9                    // Y9 = float64(x[4:8])
	VCVTPS2PD 32(R13), Y10                   // Y10 = float64(x[8:12])
	VCVTPS2PD 48(R13), Y11                   // Y11 = float64(x[12:16])
	VADDPD    Y8, Y0, Y0                     // Y0 += x[0:4]
	VADDPD    Y9, Y1, Y1                     // Y1 += x[4:8]
	VADDPD    Y10, Y2, Y2                    // Y2 += x[8:12]
	VADDPD    Y11, Y3, Y3                    // Y3 += x[12:16]
	VCVTPS2PD 64(R13), Y12                   // Y12 = float64(x[16:20])
	VCVTPS2PD 80(R13), Y13                   // Y13 = float64(x[20:24])
	VCVTPS2PD 96(R13), Y14                   // Y14 = float64(x[24:28])
	VCVTPS2PD 112(R13), Y15                  // Y15 = float64(x[28:32])
	VADDPD    Y12, Y4, Y4                    // Y4 += x[16:20]
	VADDPD    Y13, Y5, Y5                    // Y5 += x[20:24]
	VADDPD    Y14, Y6, Y6                    // Y6 += x[24:28]
	VADDPD    Y15, Y7, Y7                    // Y7 += x[28:32]
	ADDQ      BX, R13                        // next row
	DECQ      R14                            // one row done
	JNZ       ar32row                        // more rows
	VMOVUPD   Y0, (R10)                      // acc[0:4] = Y0
	VMOVUPD   Y1, 32(R10)                    // acc[4:8] = Y1
	VMOVUPD   Y2, 64(R10)                    // acc[8:12] = Y2
	VMOVUPD   Y3, 96(R10)                    // acc[12:16] = Y3
	VMOVUPD   Y4, 128(R10)                   // acc[16:20] = Y4
	VMOVUPD   Y5, 160(R10)                   // acc[20:24] = Y5
	VMOVUPD   Y6, 192(R10)                   // acc[24:28] = Y6
	VMOVUPD   Y7, 224(R10)                   // acc[28:32] = Y7
	ADDQ      $256, R10                      // next 32 of acc
	ADDQ      $128, R12                      // and of each row
	SUBQ      $32, R11                       // 32 columns done
	JMP       ar32                           // more
ar8:
	TESTQ     R11, R11                       // columns left?
	JZ        ardone                         // no
	VMOVUPD   (R10), Y0                      // Y0 = acc[0:4]
	VMOVUPD   32(R10), Y1                    // Y1 = acc[4:8]
	MOVQ      R12, R13                       // R13 = the first row
	MOVQ      AX, R14                        // R14 = rows
ar8row:
	VCVTPS2PD (R13), Y8                      // Y8 = float64(x[0:4])
	VCVTPS2PD 16(R13), Y9                    // Y9 = float64(x[4:8])
	VADDPD    Y8, Y0, Y0                     // Y0 += x[0:4]
	VADDPD    Y9, Y1, Y1                     // Y1 += x[4:8]
	ADDQ      BX, R13                        // next row
	DECQ      R14                            // one row done
	JNZ       ar8row                         // more rows
	VMOVUPD   Y0, (R10)                      // acc[0:4] = Y0
	VMOVUPD   Y1, 32(R10)                    // acc[4:8] = Y1
	ADDQ      $64, R10                       // next 8 of acc
	ADDQ      $32, R12                       // and of each row
	SUBQ      $8, R11                        // 8 columns done
	JMP       ar8                            // more
ardone:
	VZEROUPPER
	RET

// func sqDiffLanesF32(acc *[16]float64, x, y []float32): acc[i mod 16] +=
// float32((x[i] - y[i])²), len(x) a multiple of 16 (≥ 16).
// In:  acc holds the running sums: Y0 elements 0–3 mod 16, Y1 4–7, Y2
//      8–11, Y3 12–15, as sumF32's.
// Out: acc updated. Clobbers Y0–Y7.
TEXT ·sqDiffLanesF32(SB), NOSPLIT, $0-56
	MOVQ      acc+0(FP), AX                  // AX = acc
	MOVQ      x_base+8(FP), xPtr             // xPtr = &x[0]
	MOVQ      x_len+16(FP), nLeft            // nLeft = len(x)
	MOVQ      y_base+32(FP), yPtr            // yPtr = &y[0]
	VMOVUPD   (AX), Y0                       // Y0:Y3 = the sums
	VMOVUPD   32(AX), Y1                     // Y1 = acc[4:8]
	VMOVUPD   64(AX), Y2                     // Y2 = acc[8:12]
	VMOVUPD   96(AX), Y3                     // Y3 = acc[12:16]
sqloop:
	VMOVUPS   (xPtr), Y4                     // Y4 = x[0:8]
	VMOVUPS   32(xPtr), Y5                   // Y5 = x[8:16]
	VSUBPS    (yPtr), Y4, Y4                 // Y4 = d = x - y, float32
	VSUBPS    32(yPtr), Y5, Y5               // Y5 = d of 8:16
	VMULPS    Y4, Y4, Y4                     // Y4 = d², float32
	VMULPS    Y5, Y5, Y5                     // Y5 = d² of 8:16
	VCVTPS2PD X4, Y6                         // Y6 = squares 0:4 widened
	VEXTRACTF128 $1, Y4, X7                  // X7 = squares 4:8
	VCVTPS2PD X7, Y7                         // Y7 = them widened
	VADDPD    Y6, Y0, Y0                     // sums 0:4 += them
	VADDPD    Y7, Y1, Y1                     // sums 4:8 += them
	VCVTPS2PD X5, Y6                         // Y6 = squares 8:12 widened
	VEXTRACTF128 $1, Y5, X7                  // X7 = squares 12:16
	VCVTPS2PD X7, Y7                         // Y7 = them widened
	VADDPD    Y6, Y2, Y2                     // sums 8:12 += them
	VADDPD    Y7, Y3, Y3                     // sums 12:16 += them
	ADDQ      $64, xPtr                      // next 16
	ADDQ      $64, yPtr                      // of y too
	SUBQ      $16, nLeft                     // 16 done
	JNZ       sqloop                         // more
	VMOVUPD   Y0, (AX)                       // acc = the sums
	VMOVUPD   Y1, 32(AX)                     // acc[4:8]
	VMOVUPD   Y2, 64(AX)                     // acc[8:12]
	VMOVUPD   Y3, 96(AX)                     // acc[12:16]
	VZEROUPPER
	RET

// func fmaSS(a, b, c float32) float32
//
// Out: a·b + c rounded once (VFMADD213SS): fma32's value. Clobbers
// X0–X2.
TEXT ·fmaSS(SB), NOSPLIT, $0-20
	MOVSS     a+0(FP), X0                    // X0 = a
	MOVSS     b+4(FP), X1                    // X1 = b
	MOVSS     c+8(FP), X2                    // X2 = c
	VFMADD213SS X2, X1, X0                   // X0 = b·a + c
	MOVSS     X0, ret+16(FP)                 // return X0
	RET
