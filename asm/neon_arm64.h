// Shared by the arm64 .s files (#include "neon_arm64.h").

// SPLAT(c, v) puts the 32-bit constant c in every lane of v. Clobbers R3.
#define SPLAT(c, v) \
	MOVW    $c, R3;                         /* R3 = c */ \
	VDUP    R3, v.S4                        /* in every lane */

// Go's arm64 assembler has no vector FADD or FMUL; a fused multiply-add
// (FMLA d, n, m: d + n·m) rounds the same way. Where two NaNs meet, FMLA
// returns the first of its addend, n, m (signalling NaNs before quiet
// ones), as FADD n, m and FMUL n, m (ARM operand order) do of n, m; the
// macros below keep a twin's order, read off its disassembly.

// ADDS4(a, d, one): d = d + a, rounded once (d + 1·a): FADD d, a, a NaN d
// before a NaN a. one holds 1.0 in every lane.
#define ADDS4(a, d, one) \
	VFMLA   a.S4, one.S4, d.S4              /* d += 1·a */

// MULS4(n, m, d, negz): d = n·m, rounded once (-0 + n·m: a zero product
// keeps its sign): FMUL n, m, a NaN n before a NaN m. negz holds -0
// (0x80000000) in every lane; d may be neither n nor m.
#define MULS4(n, m, d, negz) \
	VMOV    negz.B16, d.B16;                /* d = -0 */ \
	VFMLA   m.S4, n.S4, d.S4                /* d = -0 + n·m */
