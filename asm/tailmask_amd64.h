// tailMask<> is 8 dwords of ones then 8 of zeros: the 32 bytes at
// tailMask<>+32-r·size hold r elements' worth of ones, then zeros (the lane
// mask of a last partial vector, for VMASKMOVPS/VMASKMOVPD). Each .s file
// that includes this header gets its own file-local copy.
DATA tailMask<>+0(SB)/8, $-1
DATA tailMask<>+8(SB)/8, $-1
DATA tailMask<>+16(SB)/8, $-1
DATA tailMask<>+24(SB)/8, $-1
DATA tailMask<>+32(SB)/8, $0
DATA tailMask<>+40(SB)/8, $0
DATA tailMask<>+48(SB)/8, $0
DATA tailMask<>+56(SB)/8, $0
GLOBL tailMask<>(SB), RODATA|NOPTR, $64

// TAILMASK32(n, p, m) sets the vector m to the lane mask of n float32
// elements (1 ≤ n ≤ 8: the first n lanes), through the register p; n is
// left in bytes.
#define TAILMASK32(n, p, m) \
	LEAQ      tailMask<>+32(SB), p;          /* p = end of the ones    */ \
	SHLQ      $2, n;                         /* n in bytes             */ \
	SUBQ      n, p;                          /* p: n lanes of ones     */ \
	VMOVUPS   (p), m                         /* m = lanes in range     */
