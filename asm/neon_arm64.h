// Shared by the arm64 .s files (#include "neon_arm64.h").

// SPLAT(c, v) puts the 32-bit constant c in every lane of v. Clobbers R3.
#define SPLAT(c, v) \
	MOVW    $c, R3;                         /* R3 = c */ \
	VDUP    R3, v.S4                        /* in every lane */
