//go:build !purego

#include "textflag.h"

// torch.where's blend, NEON: d[i] = c[i] != 0 ? x[i] : y[i] on raw 4-byte
// (sel32NEON) and 8-byte (sel64NEON) lanes. Each step widens 8 condition
// bytes to lanes with VUXTL (zero extension, so a nonzero byte stays
// nonzero), marks the zero ones with VCMEQ and takes y there with VBSL.

// Register roles.
#define dPtr  R0  // next vector of d
#define xPtr  R1  // next vector of x
#define yPtr  R2  // next vector of y
#define cPtr  R3  // next 8 condition bytes
#define steps R4  // steps of 8 elements left
#define zero  V31 // 0 in every lane

// SELARGS loads the arguments of both routines and clears zero.
#define SELARGS \
	MOVD  d+0(FP), dPtr;                         /* dPtr = &d[0] */ \
	MOVD  x+8(FP), xPtr;                         /* xPtr = &x[0] */ \
	MOVD  y+16(FP), yPtr;                        /* yPtr = &y[0] */ \
	MOVD  c+24(FP), cPtr;                        /* cPtr = &c[0] */ \
	MOVD  n+32(FP), steps;                       /* steps = n */ \
	VEOR  zero.B16, zero.B16, zero.B16           /* zero = 0 */

// SEL4(m, x, y) sets m = m ? y : x (VBSL: where a bit of m is set, y's).
#define SEL4(m, x, y) VBSL x.B16, y.B16, m.B16

// func sel32NEON(d, x, y *uint32, c *uint8, n int)
//
// In:  8n elements of d, x, y and c. Out: d[i] = c[i] != 0 ? x[i] : y[i].
// Clobbers R0–R4, V0–V2, V16–V19, V31.
TEXT ·sel32NEON(SB), NOSPLIT, $0-40
	SELARGS                                      // pointers, steps, zero
loop32:
	VLD1.P 8(cPtr), [V0.B8]                      // V0 = c[0:8]
	VUXTL  V0.B8, V0.H8                          // as 8 halves
	VUXTL  V0.H4, V1.S4                          // V1 = c[0:4] as words
	VUXTL2 V0.H8, V2.S4                          // V2 = c[4:8]
	VCMEQ  zero.S4, V1.S4, V1.S4                 // V1 = all ones where c == 0
	VCMEQ  zero.S4, V2.S4, V2.S4                 // V2 likewise
	VLD1.P 32(xPtr), [V16.S4, V17.S4]            // V16:V17 = x[0:8]
	VLD1.P 32(yPtr), [V18.S4, V19.S4]            // V18:V19 = y[0:8]
	SEL4(V1, V16, V18)                           // V1 = c == 0 ? y : x, 0:4
	SEL4(V2, V17, V19)                           // V2 likewise, 4:8
	VST1.P [V1.S4, V2.S4], 32(dPtr)              // d[0:8] = V1:V2
	SUBS   $1, steps                             // one step done
	BNE    loop32                                // more
	RET

// func sel64NEON(d, x, y *uint64, c *uint8, n int)
//
// In:  8n elements of d, x, y and c. Out: d[i] = c[i] != 0 ? x[i] : y[i].
// Clobbers R0–R4, V0–V6, V16–V23, V31.
TEXT ·sel64NEON(SB), NOSPLIT, $0-40
	SELARGS                                      // pointers, steps, zero
loop64:
	VLD1.P 8(cPtr), [V0.B8]                      // V0 = c[0:8]
	VUXTL  V0.B8, V0.H8                          // as 8 halves
	VUXTL  V0.H4, V1.S4                          // V1 = c[0:4] as words
	VUXTL2 V0.H8, V2.S4                          // V2 = c[4:8]
	VUXTL  V1.S2, V3.D2                          // V3 = c[0:2] as doublewords
	VUXTL2 V1.S4, V4.D2                          // V4 = c[2:4]
	VUXTL  V2.S2, V5.D2                          // V5 = c[4:6]
	VUXTL2 V2.S4, V6.D2                          // V6 = c[6:8]
	VCMEQ  zero.D2, V3.D2, V3.D2                 // all ones where c == 0
	VCMEQ  zero.D2, V4.D2, V4.D2
	VCMEQ  zero.D2, V5.D2, V5.D2
	VCMEQ  zero.D2, V6.D2, V6.D2
	VLD1.P 64(xPtr), [V16.D2, V17.D2, V18.D2, V19.D2] // V16:V19 = x[0:8]
	VLD1.P 64(yPtr), [V20.D2, V21.D2, V22.D2, V23.D2] // V20:V23 = y[0:8]
	SEL4(V3, V16, V20)                           // V3 = c == 0 ? y : x, 0:2
	SEL4(V4, V17, V21)                           // 2:4
	SEL4(V5, V18, V22)                           // 4:6
	SEL4(V6, V19, V23)                           // 6:8
	VST1.P [V3.D2, V4.D2, V5.D2, V6.D2], 64(dPtr) // d[0:8] = V3:V6
	SUBS   $1, steps                             // one step done
	BNE    loop64                                // more
	RET
