//go:build !purego

#include "textflag.h"

// The machine's FMA ceiling, for BenchmarkPeak (peak_amd64_test.go): twelve
// independent chains of fused multiply-adds on registers, no memory, so
// that a core's float32 FMA throughput is all that limits them (twelve
// chains cover Zen's FMA latency of 4 cycles on two pipes).

#define nLeft CX // iterations left

// FMA12(r0, r1, …, r12): r_i = r0·r_i + r_i for i = 1…12, twelve
// independent chains (one register width: Y or Z).
#define FMA12(r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11, r12) \
	VFMADD231PS r0, r1, r1;                  /* chain 1  */ \
	VFMADD231PS r0, r2, r2;                  /* chain 2  */ \
	VFMADD231PS r0, r3, r3;                  /* chain 3  */ \
	VFMADD231PS r0, r4, r4;                  /* chain 4  */ \
	VFMADD231PS r0, r5, r5;                  /* chain 5  */ \
	VFMADD231PS r0, r6, r6;                  /* chain 6  */ \
	VFMADD231PS r0, r7, r7;                  /* chain 7  */ \
	VFMADD231PS r0, r8, r8;                  /* chain 8  */ \
	VFMADD231PS r0, r9, r9;                  /* chain 9  */ \
	VFMADD231PS r0, r10, r10;                /* chain 10 */ \
	VFMADD231PS r0, r11, r11;                /* chain 11 */ \
	VFMADD231PS r0, r12, r12                 /* chain 12 */

// The registers are not cleared: the loops time the FMA pipes, whose
// speed does not depend on the values on current x86 cores (Zen handles
// denormals in FMA without a penalty), and the results are dropped.

// func fmaPeak256(n int): n iterations of twelve 8-lane FMAs (192 flops).
//
// In:  n ≥ 0.
// Out: clobbers CX, Y0–Y12.
TEXT ·fmaPeak256(SB), NOSPLIT, $0-8
	MOVQ    n+0(FP), nLeft                  // nLeft = n
	VXORPS  Y0, Y0, Y0                      // Y0 = 0: every chain adds 0·r_i
loop:
	TESTQ   nLeft, nLeft                    // done?
	JZ      done                            // then return
	FMA12(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12) // 12 FMAs
	DECQ    nLeft                           // one done
	JMP     loop                            // the next
done:
	VZEROUPPER                              // leave AVX state clean
	RET

// func fmaPeak512(n int): n iterations of twelve 16-lane FMAs (384 flops).
//
// In:  n ≥ 0; the CPU has AVX-512F.
// Out: clobbers CX, Z0–Z12.
TEXT ·fmaPeak512(SB), NOSPLIT, $0-8
	MOVQ    n+0(FP), nLeft                  // nLeft = n
	VPXORD  Z0, Z0, Z0                      // Z0 = 0: every chain adds 0·r_i (AVX-512F)
loop:
	TESTQ   nLeft, nLeft                    // done?
	JZ      done                            // then return
	FMA12(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12) // 12 FMAs
	DECQ    nLeft                           // one done
	JMP     loop                            // the next
done:
	VZEROUPPER                              // leave AVX state clean
	RET
