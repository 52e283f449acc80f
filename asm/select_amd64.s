//go:build !purego

#include "textflag.h"

// Comparison and selection kernels, AVX2, one vector a step (the loops are
// bound by memory, not by their few instructions): see select_amd64.go.

// Register roles.
#define dPtr  DI // next element of d
#define xPtr  SI // next element of x
#define yPtr  DX // next element of y
#define cPtr  R8 // next condition byte (select)
#define tPtr  R8 // maskBools (compare)
#define steps CX // vectors left
#define zero  Y7 // all zeros (select)

// CMPARGS loads the arguments of a cmp* routine.
#define CMPARGS \
	MOVQ      d+0(FP), dPtr;          /* dPtr = &d[0] */ \
	MOVQ      x+8(FP), xPtr;          /* xPtr = &x[0] */ \
	MOVQ      y+16(FP), yPtr;         /* yPtr = &y[0] */ \
	MOVQ      n+24(FP), steps;        /* steps = n */ \
	MOVQ      tab+32(FP), tPtr        /* tPtr = &maskBools */

// CMPSTORE(STEP) stores the 8 bools of the result bits in AX, moves x and
// y on by STEP bytes and d by 8, and loops while steps are left.
#define CMPSTORE(STEP) \
	MOVQ      (tPtr)(AX*8), BX;       /* BX = the 8 results as bools */ \
	MOVQ      BX, (dPtr);             /* d[0:8] = BX */ \
	ADDQ      $STEP, xPtr;            /* next 8 of x */ \
	ADDQ      $STEP, yPtr;            /* of y */ \
	ADDQ      $8, dPtr;               /* of d */ \
	DECQ      steps;                  /* one step done */ \
	JNZ       loop;                   /* more */ \
	VZEROUPPER; \
	RET

// CMP32(PRED) is the body of cmp*32 for VCMPPS predicate PRED (0 ==,
// 4 != unordered, 1 <, 2 <=): compare 8 floats, their sign mask indexes
// maskBools, store its 8 bools.
#define CMP32(PRED) \
	CMPARGS; \
loop: \
	VMOVUPS   (xPtr), Y0;             /* Y0 = x[0:8] */ \
	VCMPPS    $PRED, (yPtr), Y0, Y0;  /* Y0 = x op y, lane by lane */ \
	VMOVMSKPS Y0, AX;                 /* AX = the 8 results as bits */ \
	CMPSTORE(32)

// CMP64(PRED) is CMP32 for float64: two vectors of 4, their masks joined.
#define CMP64(PRED) \
	CMPARGS; \
loop: \
	VMOVUPD   (xPtr), Y0;             /* Y0 = x[0:4] */ \
	VMOVUPD   32(xPtr), Y1;           /* Y1 = x[4:8] */ \
	VCMPPD    $PRED, (yPtr), Y0, Y0;  /* Y0 = x op y, lanes 0:4 */ \
	VCMPPD    $PRED, 32(yPtr), Y1, Y1; /* Y1 = lanes 4:8 */ \
	VMOVMSKPD Y0, AX;                 /* AX = results 0:4 as bits */ \
	VMOVMSKPD Y1, BX;                 /* BX = results 4:8 */ \
	SHLQ      $4, BX;                 /* as bits 4:8 */ \
	ORQ       BX, AX;                 /* AX = the 8 results */ \
	CMPSTORE(64)

// SEL(WIDEN, EQ, STEP, CSTEP) is the body of sel32/sel64: widen CSTEP
// condition bytes to lanes (WIDEN), mark the zero ones (EQ), and blend y
// into x there.
#define SEL(WIDEN, EQ, STEP, CSTEP) \
	MOVQ      d+0(FP), dPtr;          /* dPtr = &d[0] */ \
	MOVQ      x+8(FP), xPtr;          /* xPtr = &x[0] */ \
	MOVQ      y+16(FP), yPtr;         /* yPtr = &y[0] */ \
	MOVQ      c+24(FP), cPtr;         /* cPtr = &c[0] */ \
	MOVQ      n+32(FP), steps;        /* steps = n */ \
	VPXOR     zero, zero, zero;       /* zero = 0 */ \
loop: \
	WIDEN     (cPtr), Y0;             /* Y0 = c, one lane each */ \
	EQ        zero, Y0, Y0;           /* Y0 = all ones where c == 0 */ \
	VMOVDQU   (xPtr), Y1;             /* Y1 = x */ \
	VPBLENDVB Y0, (yPtr), Y1, Y1;     /* Y1 = c == 0 ? y : x */ \
	VMOVDQU   Y1, (dPtr);             /* d = Y1 */ \
	ADDQ      $STEP, xPtr;            /* next vector of x */ \
	ADDQ      $STEP, yPtr;            /* of y */ \
	ADDQ      $STEP, dPtr;            /* of d */ \
	ADDQ      $CSTEP, cPtr;           /* of c */ \
	DECQ      steps;                  /* one vector done */ \
	JNZ       loop;                   /* more */ \
	VZEROUPPER; \
	RET

// func cmpEq32(d *bool, x, y *float32, n int, tab *[256]uint64)
//
// In:  8n elements of d, x, y; tab = &maskBools. Out: d[i] = x[i] == y[i].
// Clobbers AX, BX, CX, DX, SI, DI, R8, Y0. Likewise the others below.
TEXT ·cmpEq32(SB), NOSPLIT, $0-40
	CMP32(0)                          // == (ordered: NaN false)

// func cmpNe32(d *bool, x, y *float32, n int, tab *[256]uint64)
TEXT ·cmpNe32(SB), NOSPLIT, $0-40
	CMP32(4)                          // != (unordered: NaN true)

// func cmpLt32(d *bool, x, y *float32, n int, tab *[256]uint64)
TEXT ·cmpLt32(SB), NOSPLIT, $0-40
	CMP32(1)                          // <

// func cmpLe32(d *bool, x, y *float32, n int, tab *[256]uint64)
TEXT ·cmpLe32(SB), NOSPLIT, $0-40
	CMP32(2)                          // <=

// func cmpEq64(d *bool, x, y *float64, n int, tab *[256]uint64)
TEXT ·cmpEq64(SB), NOSPLIT, $0-40
	CMP64(0)                          // ==

// func cmpNe64(d *bool, x, y *float64, n int, tab *[256]uint64)
TEXT ·cmpNe64(SB), NOSPLIT, $0-40
	CMP64(4)                          // !=

// func cmpLt64(d *bool, x, y *float64, n int, tab *[256]uint64)
TEXT ·cmpLt64(SB), NOSPLIT, $0-40
	CMP64(1)                          // <

// func cmpLe64(d *bool, x, y *float64, n int, tab *[256]uint64)
TEXT ·cmpLe64(SB), NOSPLIT, $0-40
	CMP64(2)                          // <=

// func sel32(d, x, y *uint32, c *uint8, n int)
//
// In:  8n elements of d, x, y, c. Out: d[i] = c[i] != 0 ? x[i] : y[i].
// Clobbers CX, DX, SI, DI, R8, Y0, Y1, Y7.
TEXT ·sel32(SB), NOSPLIT, $0-40
	SEL(VPMOVZXBD, VPCMPEQD, 32, 8)   // 8 dwords a step

// func sel64(d, x, y *uint64, c *uint8, n int)
//
// In:  4n elements of d, x, y, c. Out: d[i] = c[i] != 0 ? x[i] : y[i].
// Clobbers CX, DX, SI, DI, R8, Y0, Y1, Y7.
TEXT ·sel64(SB), NOSPLIT, $0-40
	SEL(VPMOVZXBQ, VPCMPEQQ, 32, 4)   // 4 qwords a step

// func thresholdBwd32(d, gr, x *float32, th float32, n int)
//
// In:  8n elements of d, g, x. Out: d[i] = +0 if x[i] ≤ th, else g[i]
// (a NaN x compares false: d[i] = g[i]). Clobbers CX, DX, SI, DI, Y0–Y3.
TEXT ·thresholdBwd32(SB), NOSPLIT, $0-40
	MOVQ         d+0(FP), dPtr        // dPtr = &d[0]
	MOVQ         gr+8(FP), yPtr       // yPtr = &gr[0]
	MOVQ         x+16(FP), xPtr       // xPtr = &x[0]
	VBROADCASTSS th+24(FP), Y2        // Y2 = th everywhere
	MOVQ         n+32(FP), steps      // steps = n
thloop:
	VMOVUPS      (xPtr), Y0           // Y0 = x[0:8]
	VCMPPS       $0x12, Y2, Y0, Y1    // Y1 = x ≤ th (ordered, quiet)
	VANDNPS      (yPtr), Y1, Y3       // Y3 = g where not, +0 where so
	VMOVUPS      Y3, (dPtr)           // d[0:8] = Y3
	ADDQ         $32, xPtr            // next 8
	ADDQ         $32, yPtr            // of g
	ADDQ         $32, dPtr            // of d
	DECQ         steps                // one vector done
	JNZ          thloop               // more
	VZEROUPPER
	RET

// func thresholdBwd32NT(d, gr, x *float32, th float32, n int)
//
// thresholdBwd32 with non-temporal stores, for a large result: d 32-byte
// aligned. Clobbers CX, DX, SI, DI, Y0–Y3.
TEXT ·thresholdBwd32NT(SB), NOSPLIT, $0-40
	MOVQ         d+0(FP), dPtr        // dPtr = &d[0]
	MOVQ         gr+8(FP), yPtr       // yPtr = &gr[0]
	MOVQ         x+16(FP), xPtr       // xPtr = &x[0]
	VBROADCASTSS th+24(FP), Y2        // Y2 = th everywhere
	MOVQ         n+32(FP), steps      // steps = n
thntloop:
	VMOVUPS      (xPtr), Y0           // Y0 = x[0:8]
	VCMPPS       $0x12, Y2, Y0, Y1    // Y1 = x ≤ th (ordered, quiet)
	VANDNPS      (yPtr), Y1, Y3       // Y3 = g where not, +0 where so
	VMOVNTPS     Y3, (dPtr)           // d[0:8] = Y3, past the caches
	ADDQ         $32, xPtr            // next 8
	ADDQ         $32, yPtr            // of g
	ADDQ         $32, dPtr            // of d
	DECQ         steps                // one vector done
	JNZ          thntloop             // more
	SFENCE                            // the stores are done before we return
	VZEROUPPER
	RET
