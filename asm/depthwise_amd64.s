//go:build !purego

#include "textflag.h"

// The in-place depthwise kernels, AVX2+FMA (8 lanes) and AVX-512 (16
// lanes); the twins are dwConvGo and dwGradGo. Table entries (dwEntries,
// dwGradEntries) are 48 bytes: a lane mask (8 dwords for AVX2; 16 bits for
// AVX-512) at 0 and a byte offset at 32.

// ---------------------------------------------------------------------
// Forward: dwConvAVX2 and dwConvAVX512(dst, x, w, rowOff, tab, zero, n,
// xPlane, dPlane, h, oh, ow, sh, ldx, kw, init). Each plane is computed in
// blocks of eight output rows (the last block moved back to end at the
// last row; with fewer than eight rows, the last row repeated), each block
// a vector of columns at a time, the last vector first. For each kernel
// row the eight input rows' addresses are set (the zero row's for a row
// outside the image; when the block's first and last rows are inside, all
// are), then for each kernel column its weight is broadcast and added to
// the eight rows' sums with one fused multiply-add each, the loads masked
// to the columns the tap reads (zero elsewhere, as padding would be).

// Register roles in the kernel-column loop: the eight rows' inputs for
// the kernel row in hand.
#define fRow0 BX
#define fRow1 CX
#define fRow2 DX
#define fRow3 R8
#define fRow4 R9
#define fRow5 R10
#define fRow6 R11
#define fRow7 R12
#define fW    SI  // the weight in hand
#define fEnt  DI  // the table entry in hand
#define fCnt  R13 // kernel columns left; scratch
#define fTmp  R14 // scratch

// Frame locals.
#define fPlanes  planesLeft-8(SP)   // planes left
#define fLdxB    ldxBytesL-16(SP) // an input row in bytes
#define fOwB     owBytesL-24(SP) // an output row in bytes
#define fVec     vecEntL-32(SP) // the entries of the vector in hand
#define fEntB    entBytesL-40(SP) // a vector's entries in bytes
#define fEnd     planeEndL-48(SP) // the end of the output plane
#define fKRow    kernelRowL-56(SP) // the kernel row in hand
#define fX       xPlaneL-64(SP) // the input plane
#define fD       dPlaneL-72(SP) // the output plane
#define fORow    firstRowL-80(SP) // the block's first output row
#define fCol     firstColL-88(SP) // the first column of the vector in hand
#define fR0 rsh0-96(SP) // block row 0's output row · sh
#define fR1 rsh1-104(SP) // block row 1's output row · sh
#define fR2 rsh2-112(SP) // block row 2's output row · sh
#define fR3 rsh3-120(SP) // block row 3's output row · sh
#define fR4 rsh4-128(SP) // block row 4's output row · sh
#define fR5 rsh5-136(SP) // block row 5's output row · sh
#define fR6 rsh6-144(SP) // block row 6's output row · sh
#define fR7 rsh7-152(SP) // block row 7's output row · sh
#define fB0 rbytes0-160(SP) // … times an input row's bytes
#define fB1 rbytes1-168(SP) // … times an input row's bytes
#define fB2 rbytes2-176(SP) // … times an input row's bytes
#define fB3 rbytes3-184(SP) // … times an input row's bytes
#define fB4 rbytes4-192(SP) // … times an input row's bytes
#define fB5 rbytes5-200(SP) // … times an input row's bytes
#define fB6 rbytes6-208(SP) // … times an input row's bytes
#define fB7 rbytes7-216(SP) // … times an input row's bytes
#define fD0 drow0-224(SP) // block row 0's output row address
#define fD1 drow1-232(SP) // block row 1's output row address
#define fD2 drow2-240(SP) // block row 2's output row address
#define fD3 drow3-248(SP) // block row 3's output row address
#define fD4 drow4-256(SP) // block row 4's output row address
#define fD5 drow5-264(SP) // block row 5's output row address
#define fD6 drow6-272(SP) // block row 6's output row address
#define fD7 drow7-280(SP) // block row 7's output row address

// FSLOT(r, b, d) sets a block row's output row (AX, clamped to the last
// row CX) times sh (r), times an input row's bytes too (b), and its output
// row's address (d); AX moves on a row.
#define FSLOT(r, b, d) \
	CMPQ    AX, CX;                           /* past the last row?     */ \
	CMOVQGT CX, AX;                           /* then the last          */ \
	MOVQ    AX, fTmp;                         /* fTmp = row             */ \
	IMULQ   sh+192(FP), fTmp;                 /* · sh                   */ \
	MOVQ    fTmp, r;                          /* r = row·sh             */ \
	IMULQ   fLdxB, fTmp;                      /* in input bytes         */ \
	MOVQ    fTmp, b;                          /* b                      */ \
	MOVQ    AX, fTmp;                         /* fTmp = row             */ \
	IMULQ   fOwB, fTmp;                       /* in output bytes        */ \
	ADDQ    fD, fTmp;                         /* + the plane            */ \
	MOVQ    fTmp, d;                          /* d = &dst row           */ \
	INCQ    AX                                /* next row               */

// FFAST(b, p) sets p to the input row of a block row (b its offset, fTmp
// the kernel row's first input row).
#define FFAST(b, p) \
	MOVQ    b, p;                             /* p = the row's offset   */ \
	ADDQ    fTmp, p                           /* + the kernel row's     */

// FSLOW(r, b, p) is FFAST, then the zero row when the input row r + AX
// is outside [0, h).
#define FSLOW(r, b, p) \
	MOVQ    b, p;                             /* p = the row's offset   */ \
	ADDQ    fTmp, p;                          /* + the kernel row's     */ \
	MOVQ    r, fCnt;                          /* fCnt = row·sh          */ \
	ADDQ    AX, fCnt;                         /* + rowOff[kh]: ih       */ \
	CMPQ    fCnt, h+168(FP);                  /* ih outside [0, h)?     */ \
	CMOVQCC zero_base+120(FP), p              /* then the zero row      */

// FSTOREY(d, acc, masked, next) stores the row of sums acc at row d,
// column fTmp: whole when the vector ends inside the plane (lanes past ow
// land on rows stored later: vectors go last to first, block rows in
// order), else under the mask Y10. FSTOREZ is the same for 16 lanes and
// the mask K2.
#define FSTOREY(d, acc, masked, next) \
	MOVQ    d, AX;                            /* AX = &dst row          */ \
	LEAQ    (AX)(fTmp*4), AX;                 /* + col                  */ \
	LEAQ    32(AX), fCnt;                     /* fCnt = the vector's end */ \
	CMPQ    fCnt, fEnd;                       /* past the plane?        */ \
	JHI     masked;                           /* then masked            */ \
	VMOVUPS acc, (AX);                        /* store whole            */ \
	JMP     next;                             /* done                   */ \
masked: \
	VMASKMOVPS acc, Y10, (AX);                /* the lanes < ow         */ \
next:
#define FSTOREZ(d, acc, masked, next) \
	MOVQ    d, AX;                            /* AX = &dst row          */ \
	LEAQ    (AX)(fTmp*4), AX;                 /* + col                  */ \
	LEAQ    64(AX), fCnt;                     /* fCnt = the vector's end */ \
	CMPQ    fCnt, fEnd;                       /* past the plane?        */ \
	JHI     masked;                           /* then masked            */ \
	VMOVUPS acc, (AX);                        /* store whole            */ \
	JMP     next;                             /* done                   */ \
masked: \
	VMOVUPS acc, K2, (AX);                    /* the lanes < ow         */ \
next:

// DWCONV(VL, LOG, INIT, TAP, STORE) is the body of both kernels (VL lanes,
// 2^LOG = VL); its steps: INIT the eight sums, TAP the kernel column at
// fEnt (AX its byte offset), STORE the sums (fEnt the output entry, fTmp
// the column).
#define DWCONV(VL, LOG, INIT, TAP, STORE) \
	MOVQ    n+144(FP), AX;                    /* AX = n                 */ \
	TESTQ   AX, AX;                           /* no planes?             */ \
	JZ      done;                             /* then nothing           */ \
	MOVQ    AX, fPlanes;                      /* fPlanes = n            */ \
	MOVQ    ldx+200(FP), AX;                  /* AX = ldx               */ \
	SHLQ    $2, AX;                           /* in bytes               */ \
	MOVQ    AX, fLdxB;                        /* fLdxB                  */ \
	MOVQ    ow+184(FP), AX;                   /* AX = ow                */ \
	SHLQ    $2, AX;                           /* in bytes               */ \
	MOVQ    AX, fOwB;                         /* fOwB                   */ \
	MOVQ    kw+208(FP), AX;                   /* AX = kw                */ \
	INCQ    AX;                               /* + the output's entry   */ \
	IMULQ   $48, AX;                          /* in bytes               */ \
	MOVQ    AX, fEntB;                        /* fEntB                  */ \
	MOVQ    x_base+24(FP), AX;                /* fX = x                 */ \
	MOVQ    AX, fX;                           /*                        */ \
	MOVQ    dst_base+0(FP), AX;               /* fD = dst               */ \
	MOVQ    AX, fD;                           /*                        */ \
plane: \
	MOVQ    oh+176(FP), AX;                   /* AX = oh                */ \
	IMULQ   fOwB, AX;                         /* · a row's bytes        */ \
	ADDQ    fD, AX;                           /* + the plane            */ \
	MOVQ    AX, fEnd;                         /* fEnd                   */ \
	MOVQ    $0, fORow;                        /* fORow = 0              */ \
block: \
	MOVQ    oh+176(FP), CX;                   /* CX = oh                */ \
	SUBQ    $8, CX;                           /* the last block's start */ \
	MOVQ    fORow, AX;                        /* AX = the first row     */ \
	CMPQ    AX, CX;                           /* past the last block's? */ \
	CMOVQGT CX, AX;                           /* then redo its rows     */ \
	XORQ    CX, CX;                           /* but not before row 0   */ \
	CMPQ    AX, CX;                           /* (fewer than 8 rows)    */ \
	CMOVQLT CX, AX;                           /*                        */ \
	MOVQ    oh+176(FP), CX;                   /* CX = oh                */ \
	DECQ    CX;                               /* the last row           */ \
	FSLOT(fR0, fB0, fD0);                   /* block row 0            */ \
	FSLOT(fR1, fB1, fD1);                   /* block row 1            */ \
	FSLOT(fR2, fB2, fD2);                   /* block row 2            */ \
	FSLOT(fR3, fB3, fD3);                   /* block row 3            */ \
	FSLOT(fR4, fB4, fD4);                   /* block row 4            */ \
	FSLOT(fR5, fB5, fD5);                   /* block row 5            */ \
	FSLOT(fR6, fB6, fD6);                   /* block row 6            */ \
	FSLOT(fR7, fB7, fD7);                   /* block row 7            */ \
	MOVQ    ow+184(FP), AX;                   /* AX = ow                */ \
	DECQ    AX;                               /* the last column        */ \
	SHRQ    $LOG, AX;                         /* its vector             */ \
	MOVQ    AX, fTmp;                         /* fCol = its first column */ \
	SHLQ    $LOG, fTmp;                       /*                        */ \
	MOVQ    fTmp, fCol;                       /*                        */ \
	IMULQ   fEntB, AX;                        /* its entries            */ \
	ADDQ    tab_base+96(FP), AX;              /*                        */ \
	MOVQ    AX, fVec;                         /* fVec                   */ \
vector: \
	INIT;                                     /* the sums = init        */ \
	MOVQ    w_base+48(FP), fW;                /* fW = w                 */ \
	MOVQ    $0, fKRow;                        /* fKRow = 0              */ \
kernelRow: \
	MOVQ    fKRow, fTmp;                      /* fTmp = kh              */ \
	MOVQ    rowOff_base+72(FP), AX;           /* AX = rowOff            */ \
	MOVQ    (AX)(fTmp*8), AX;                 /* AX = rowOff[kh]        */ \
	MOVQ    AX, fTmp;                         /* fTmp = its row         */ \
	IMULQ   fLdxB, fTmp;                      /* in bytes               */ \
	ADDQ    fX, fTmp;                         /* + the plane            */ \
	MOVQ    fR0, fCnt;                        /* fCnt = block row 0's   */ \
	ADDQ    AX, fCnt;                         /* input row              */ \
	CMPQ    fCnt, h+168(FP);                  /* outside [0, h)?        */ \
	JCC     slowRows;                         /* then row by row        */ \
	MOVQ    fR7, fCnt;                        /* fCnt = block row 7's   */ \
	ADDQ    AX, fCnt;                         /* input row              */ \
	CMPQ    fCnt, h+168(FP);                  /* outside [0, h)?        */ \
	JCC     slowRows;                         /* then row by row        */ \
	FFAST(fB0, fRow0);                      /* block row 0's input    */ \
	FFAST(fB1, fRow1);                      /* block row 1's input    */ \
	FFAST(fB2, fRow2);                      /* block row 2's input    */ \
	FFAST(fB3, fRow3);                      /* block row 3's input    */ \
	FFAST(fB4, fRow4);                      /* block row 4's input    */ \
	FFAST(fB5, fRow5);                      /* block row 5's input    */ \
	FFAST(fB6, fRow6);                      /* block row 6's input    */ \
	FFAST(fB7, fRow7);                      /* block row 7's input    */ \
	JMP     columns;                          /* all inside             */ \
slowRows: \
	FSLOW(fR0, fB0, fRow0);                 /* block row 0's input    */ \
	FSLOW(fR1, fB1, fRow1);                 /* block row 1's input    */ \
	FSLOW(fR2, fB2, fRow2);                 /* block row 2's input    */ \
	FSLOW(fR3, fB3, fRow3);                 /* block row 3's input    */ \
	FSLOW(fR4, fB4, fRow4);                 /* block row 4's input    */ \
	FSLOW(fR5, fB5, fRow5);                 /* block row 5's input    */ \
	FSLOW(fR6, fB6, fRow6);                 /* block row 6's input    */ \
	FSLOW(fR7, fB7, fRow7);                 /* block row 7's input    */ \
columns: \
	MOVQ    fVec, fEnt;                       /* fEnt = column 0's entry */ \
	MOVQ    kw+208(FP), fCnt;                 /* fCnt = kw              */ \
kernelCol: \
	MOVQ    32(fEnt), AX;                     /* AX = the tap's offset  */ \
	TAP;                                      /* eight sums += w·x      */ \
	ADDQ    $4, fW;                           /* next weight            */ \
	ADDQ    $48, fEnt;                        /* next entry             */ \
	DECQ    fCnt;                             /* a column done          */ \
	JNZ     kernelCol;                        /* more?                  */ \
	INCQ    fKRow;                            /* next kernel row        */ \
	MOVQ    fKRow, AX;                        /* AX = kh                */ \
	CMPQ    AX, rowOff_len+80(FP);            /* any left?              */ \
	JLT     kernelRow;                        /* then add it            */ \
	MOVQ    fCol, fTmp;                       /* fTmp = col             */ \
	STORE;                                    /* fEnt: the output entry */ \
	MOVQ    fVec, AX;                         /* AX = this vector's     */ \
	SUBQ    fEntB, AX;                        /* the one before's       */ \
	MOVQ    AX, fVec;                         /* entries                */ \
	SUBQ    $VL, fCol;                        /* the vector before      */ \
	JGE     vector;                           /* if any                 */ \
	ADDQ    $8, fORow;                        /* next block             */ \
	MOVQ    fORow, AX;                        /* AX = its first row     */ \
	CMPQ    AX, oh+176(FP);                   /* any rows left?         */ \
	JLT     block;                            /* then do them           */ \
	MOVQ    xPlane+152(FP), AX;               /* AX = xPlane            */ \
	SHLQ    $2, AX;                           /* in bytes               */ \
	ADDQ    AX, fX;                           /* next input plane       */ \
	MOVQ    dPlane+160(FP), AX;               /* AX = dPlane            */ \
	SHLQ    $2, AX;                           /* in bytes               */ \
	ADDQ    AX, fD;                           /* next output plane      */ \
	DECQ    fPlanes;                          /* a plane done           */ \
	JNZ     plane;                            /* more?                  */ \
done: \
	VZEROUPPER;                               /* clean AVX state        */ \
	RET

// The AVX2 steps: Y0–Y7 the sums, Y8 the weight, Y9 init, Y10 the lane
// mask (VMASKMOVPS reads zeros and writes nothing in the lanes off it),
// Y11–Y14 the inputs in turn.
#define INITY \
	VMOVAPS      Y9, Y0;                      /* row 0 = init           */ \
	VMOVAPS      Y9, Y1;                      /* row 1 = init           */ \
	VMOVAPS      Y9, Y2;                      /* row 2 = init           */ \
	VMOVAPS      Y9, Y3;                      /* row 3 = init           */ \
	VMOVAPS      Y9, Y4;                      /* row 4 = init           */ \
	VMOVAPS      Y9, Y5;                      /* row 5 = init           */ \
	VMOVAPS      Y9, Y6;                      /* row 6 = init           */ \
	VMOVAPS      Y9, Y7                       /* row 7 = init           */
#define TAPY \
	VMOVDQU      (fEnt), Y10;                 /* Y10 = the tap's lanes  */ \
	VBROADCASTSS (fW), Y8;                    /* Y8 = w[kh][kw]         */ \
	VMASKMOVPS   (fRow0)(AX*1), Y10, Y11;    /* Y11 = row 0's input    */ \
	VFMADD231PS  Y11, Y8, Y0;                 /* row 0 += w·x           */ \
	VMASKMOVPS   (fRow1)(AX*1), Y10, Y12;    /* Y12 = row 1's input    */ \
	VFMADD231PS  Y12, Y8, Y1;                 /* row 1 += w·x           */ \
	VMASKMOVPS   (fRow2)(AX*1), Y10, Y13;    /* Y13 = row 2's input    */ \
	VFMADD231PS  Y13, Y8, Y2;                 /* row 2 += w·x           */ \
	VMASKMOVPS   (fRow3)(AX*1), Y10, Y14;    /* Y14 = row 3's input    */ \
	VFMADD231PS  Y14, Y8, Y3;                 /* row 3 += w·x           */ \
	VMASKMOVPS   (fRow4)(AX*1), Y10, Y11;    /* Y11 = row 4's input    */ \
	VFMADD231PS  Y11, Y8, Y4;                 /* row 4 += w·x           */ \
	VMASKMOVPS   (fRow5)(AX*1), Y10, Y12;    /* Y12 = row 5's input    */ \
	VFMADD231PS  Y12, Y8, Y5;                 /* row 5 += w·x           */ \
	VMASKMOVPS   (fRow6)(AX*1), Y10, Y13;    /* Y13 = row 6's input    */ \
	VFMADD231PS  Y13, Y8, Y6;                 /* row 6 += w·x           */ \
	VMASKMOVPS   (fRow7)(AX*1), Y10, Y14;    /* Y14 = row 7's input    */ \
	VFMADD231PS  Y14, Y8, Y7                  /* row 7 += w·x           */
#define STOREY \
	VMOVDQU      (fEnt), Y10;                 /* Y10 = columns < ow     */ \
	FSTOREY(fD0, Y0, ym0, yn0); \
	FSTOREY(fD1, Y1, ym1, yn1); \
	FSTOREY(fD2, Y2, ym2, yn2); \
	FSTOREY(fD3, Y3, ym3, yn3); \
	FSTOREY(fD4, Y4, ym4, yn4); \
	FSTOREY(fD5, Y5, ym5, yn5); \
	FSTOREY(fD6, Y6, ym6, yn6); \
	FSTOREY(fD7, Y7, ym7, yn7)

// The AVX-512 steps: Z0–Z7 the sums, Z8 the weight, Z9 init, K1 the
// tap's lanes (the inputs Z16–Z23 zero off them), K2 the output's.
#define INITZ \
	VMOVAPS      Z9, Z0;                      /* row 0 = init           */ \
	VMOVAPS      Z9, Z1;                      /* row 1 = init           */ \
	VMOVAPS      Z9, Z2;                      /* row 2 = init           */ \
	VMOVAPS      Z9, Z3;                      /* row 3 = init           */ \
	VMOVAPS      Z9, Z4;                      /* row 4 = init           */ \
	VMOVAPS      Z9, Z5;                      /* row 5 = init           */ \
	VMOVAPS      Z9, Z6;                      /* row 6 = init           */ \
	VMOVAPS      Z9, Z7                       /* row 7 = init           */
#define TAPZ \
	KMOVW        (fEnt), K1;                  /* K1 = the tap's lanes   */ \
	VBROADCASTSS (fW), Z8;                    /* Z8 = w[kh][kw]         */ \
	VMOVUPS.Z    (fRow0)(AX*1), K1, Z16;     /* Z16 = row 0's input    */ \
	VMOVUPS.Z    (fRow1)(AX*1), K1, Z17;     /* Z17 = row 1's input    */ \
	VMOVUPS.Z    (fRow2)(AX*1), K1, Z18;     /* Z18 = row 2's input    */ \
	VMOVUPS.Z    (fRow3)(AX*1), K1, Z19;     /* Z19 = row 3's input    */ \
	VMOVUPS.Z    (fRow4)(AX*1), K1, Z20;     /* Z20 = row 4's input    */ \
	VMOVUPS.Z    (fRow5)(AX*1), K1, Z21;     /* Z21 = row 5's input    */ \
	VMOVUPS.Z    (fRow6)(AX*1), K1, Z22;     /* Z22 = row 6's input    */ \
	VMOVUPS.Z    (fRow7)(AX*1), K1, Z23;     /* Z23 = row 7's input    */ \
	VFMADD231PS  Z16, Z8, Z0;                 /* row 0 += w·x           */ \
	VFMADD231PS  Z17, Z8, Z1;                 /* row 1 += w·x           */ \
	VFMADD231PS  Z18, Z8, Z2;                 /* row 2 += w·x           */ \
	VFMADD231PS  Z19, Z8, Z3;                 /* row 3 += w·x           */ \
	VFMADD231PS  Z20, Z8, Z4;                 /* row 4 += w·x           */ \
	VFMADD231PS  Z21, Z8, Z5;                 /* row 5 += w·x           */ \
	VFMADD231PS  Z22, Z8, Z6;                 /* row 6 += w·x           */ \
	VFMADD231PS  Z23, Z8, Z7                  /* row 7 += w·x           */
#define STOREZ \
	KMOVW        (fEnt), K2;                  /* K2 = columns < ow      */ \
	FSTOREZ(fD0, Z0, zm0, zn0); \
	FSTOREZ(fD1, Z1, zm1, zn1); \
	FSTOREZ(fD2, Z2, zm2, zn2); \
	FSTOREZ(fD3, Z3, zm3, zn3); \
	FSTOREZ(fD4, Z4, zm4, zn4); \
	FSTOREZ(fD5, Z5, zm5, zn5); \
	FSTOREZ(fD6, Z6, zm6, zn6); \
	FSTOREZ(fD7, Z7, zm7, zn7)


// ---------------------------------------------------------------------
// Weight gradient: dwGradAVX2 and dwGradAVX512(gy, x, rowOff, rowLo,
// rowHi, tab, acc, n, xPlane, gPlane, ow, sh, ldx, nch, nvec). For each
// kernel row and chunk of three kernel columns, six sums (the three taps,
// for the first and the second row of each pair of output rows) run over
// the planes, the kernel row's output rows [rowLo, rowHi) two at a time and
// the vectors of columns; the pair's sums are then added and stored, three
// vectors of partial sums per chunk, chunk after chunk.

// Register roles.
#define x0    BX  // the input row of the pair's first output row
#define x1    CX  // … of its second
#define g0    DX  // the output gradient's first row
#define g1    R8  // … its second
#define gPl   DI  // the output gradient's plane
#define cnt   R9  // vectors left; scratch
#define xPl   R13 // the input plane
#define kRow  R10 // the kernel row in hand
#define col   R11 // the first column of the vector in hand
#define ent   R12 // the entries of the vector and chunk in hand
#define oRow  R14 // the pair's first output row
#define accP  SI  // the partial sums' next chunk

// Frame locals.
#define planes  nPlanes-8(SP) // planes left
#define ldxB    rowB-16(SP)   // an input row in bytes
#define owB     outB-24(SP)   // an output row in bytes
#define chunk   curChunk-32(SP) // the chunk in hand
#define vStride vs-40(SP)     // a vector's entries in bytes
#define stepB   shB-48(SP)    // sh input rows in bytes
#define hiRow   lastRow-56(SP) // rowHi[kh]

// DWGRAD(VL, ZERO, LOADG, PAIR, ONE, SUMS) is the body of both kernels;
// its steps: ZERO the six sums, LOADG the pair's output gradients (LOADG1
// the first only) under the output entry at ent, PAIR and ONE add the
// chunk's taps for two rows or the first, SUMS store the chunk's sums.
#define DWGRAD(VL, ZERO, LOADG2, LOADG1, PAIR, ONE, SUMS) \
	MOVQ    ldx+208(FP), AX;                  /* AX = ldx               */ \
	SHLQ    $2, AX;                           /* in bytes               */ \
	MOVQ    AX, ldxB;                         /* ldxB                   */ \
	IMULQ   sh+200(FP), AX;                   /* · sh                   */ \
	MOVQ    AX, stepB;                        /* stepB                  */ \
	MOVQ    ow+192(FP), AX;                   /* AX = ow                */ \
	SHLQ    $2, AX;                           /* in bytes               */ \
	MOVQ    AX, owB;                          /* owB                    */ \
	MOVQ    nch+216(FP), AX;                  /* AX = nch               */ \
	IMULQ   $192, AX;                         /* four entries a chunk   */ \
	MOVQ    AX, vStride;                      /* vStride                */ \
	MOVQ    acc_base+144(FP), accP;           /* accP = acc             */ \
	XORQ    kRow, kRow;                       /* kRow = 0               */ \
kernelRow: \
	MOVQ    rowHi_base+96(FP), AX;            /* AX = rowHi             */ \
	MOVQ    (AX)(kRow*8), AX;                 /* rowHi[kh]              */ \
	MOVQ    AX, hiRow;                        /* hiRow                  */ \
	MOVQ    $0, chunk;                        /* chunk = 0              */ \
chunkLoop: \
	ZERO;                                     /* the six sums = 0       */ \
	MOVQ    n+168(FP), AX;                    /* AX = n                 */ \
	TESTQ   AX, AX;                           /* no planes?             */ \
	JZ      store;                            /* then zero sums         */ \
	MOVQ    AX, planes;                       /* planes = n             */ \
	MOVQ    x_base+24(FP), xPl;               /* xPl = x                */ \
	MOVQ    gy_base+0(FP), gPl;               /* gPl = gy               */ \
plane: \
	MOVQ    rowLo_base+72(FP), AX;            /* AX = rowLo             */ \
	MOVQ    (AX)(kRow*8), oRow;               /* oRow = rowLo[kh]       */ \
pair: \
	CMPQ    oRow, hiRow;                      /* rows left?             */ \
	JGE     nextPlane;                        /* no: the next plane     */ \
	MOVQ    oRow, AX;                         /* AX = the first row     */ \
	IMULQ   sh+200(FP), AX;                   /* · sh                   */ \
	MOVQ    rowOff_base+48(FP), x0;           /* x0 = rowOff            */ \
	ADDQ    (x0)(kRow*8), AX;                 /* + rowOff[kh]: ih       */ \
	IMULQ   ldxB, AX;                         /* in bytes               */ \
	LEAQ    (xPl)(AX*1), x0;                  /* x0 = &x row ih         */ \
	MOVQ    x0, x1;                           /* x1 = x0                */ \
	ADDQ    stepB, x1;                        /* + sh rows              */ \
	MOVQ    oRow, AX;                         /* AX = the first row     */ \
	IMULQ   owB, AX;                          /* in bytes               */ \
	LEAQ    (gPl)(AX*1), g0;                  /* g0 = &gy row           */ \
	MOVQ    g0, g1;                           /* g1 = g0                */ \
	ADDQ    owB, g1;                          /* + a row                */ \
	MOVQ    chunk, ent;                       /* ent = the chunk's      */ \
	IMULQ   $192, ent;                        /* entries of vector 0    */ \
	ADDQ    tab_base+120(FP), ent;            /*                        */ \
	XORQ    col, col;                         /* col = 0                */ \
	MOVQ    nvec+224(FP), cnt;                /* cnt = nvec             */ \
	LEAQ    1(oRow), AX;                      /* AX = the second row    */ \
	CMPQ    AX, hiRow;                        /* one of the tap's?      */ \
	JGE     oneRow;                           /* no: the first alone    */ \
pairVec: \
	LOADG2;                                   /* both rows' gy          */ \
	PAIR;                                     /* six sums += gy·x       */ \
	ADDQ    vStride, ent;                     /* next vector's entries  */ \
	ADDQ    $VL, col;                         /* next vector            */ \
	DECQ    cnt;                              /* a vector done          */ \
	JNZ     pairVec;                          /* more?                  */ \
	ADDQ    $2, oRow;                         /* next pair              */ \
	JMP     pair;                             /* again                  */ \
oneRow: \
	LOADG1;                                   /* the row's gy           */ \
	ONE;                                      /* three sums += gy·x     */ \
	ADDQ    vStride, ent;                     /* next vector's entries  */ \
	ADDQ    $VL, col;                         /* next vector            */ \
	DECQ    cnt;                              /* a vector done          */ \
	JNZ     oneRow;                           /* more?                  */ \
nextPlane: \
	MOVQ    xPlane+176(FP), AX;               /* AX = xPlane            */ \
	LEAQ    (xPl)(AX*4), xPl;                 /* next input plane       */ \
	MOVQ    gPlane+184(FP), AX;               /* AX = gPlane            */ \
	LEAQ    (gPl)(AX*4), gPl;                 /* next gradient plane    */ \
	DECQ    planes;                           /* a plane done           */ \
	JNZ     plane;                            /* more?                  */ \
store: \
	SUMS;                                     /* the chunk's sums       */ \
	ADDQ    $(3*VL*4), accP;                  /* next chunk's           */ \
	MOVQ    chunk, AX;                        /* AX = chunk             */ \
	INCQ    AX;                               /* next                   */ \
	MOVQ    AX, chunk;                        /* chunk                  */ \
	CMPQ    AX, nch+216(FP);                  /* any left?              */ \
	JLT     chunkLoop;                        /* then do it             */ \
	INCQ    kRow;                             /* next kernel row        */ \
	CMPQ    kRow, rowOff_len+56(FP);          /* any left?              */ \
	JLT     kernelRow;                        /* then do it             */ \
	VZEROUPPER;                               /* clean AVX state        */ \
	RET

// The AVX2 steps: Y0–Y2 the first rows' sums of the chunk's three taps,
// Y3–Y5 the second rows', Y6 and Y7 the two rows' gy (zero past ow), Y8 and
// Y9 their inputs (zero off the tap's lanes), Y10 a lane mask.
#define ZEROY \
	VXORPS       Y0, Y0, Y0;                  /* sums = 0               */ \
	VXORPS       Y1, Y1, Y1;                  /*                        */ \
	VXORPS       Y2, Y2, Y2;                  /*                        */ \
	VXORPS       Y3, Y3, Y3;                  /*                        */ \
	VXORPS       Y4, Y4, Y4;                  /*                        */ \
	VXORPS       Y5, Y5, Y5                   /*                        */
#define LOADG2Y \
	VMOVDQU      (ent), Y10;                  /* Y10 = columns < ow     */ \
	VMASKMOVPS   (g0)(col*4), Y10, Y6;        /* Y6 = the first row's gy */ \
	VMASKMOVPS   (g1)(col*4), Y10, Y7         /* Y7 = the second's      */
#define LOADG1Y \
	VMOVDQU      (ent), Y10;                  /* Y10 = columns < ow     */ \
	VMASKMOVPS   (g0)(col*4), Y10, Y6         /* Y6 = the row's gy      */
// TAP2Y(e, s0, s1) adds the tap of entry e to s0 (first row) and s1.
#define TAP2Y(e, eo, s0, s1) \
	MOVQ         eo(ent), AX;             /* AX = the tap's offset  */ \
	VMOVDQU      e(ent), Y10;                 /* Y10 = the tap's lanes  */ \
	VMASKMOVPS   (x0)(AX*1), Y10, Y8;         /* Y8 = first row's x     */ \
	VMASKMOVPS   (x1)(AX*1), Y10, Y9;         /* Y9 = second row's x    */ \
	VFMADD231PS  Y8, Y6, s0;                  /* s0 += gy·x             */ \
	VFMADD231PS  Y9, Y7, s1                   /* s1 += gy·x             */
#define TAP1Y(e, eo, s0) \
	MOVQ         eo(ent), AX;             /* AX = the tap's offset  */ \
	VMOVDQU      e(ent), Y10;                 /* Y10 = the tap's lanes  */ \
	VMASKMOVPS   (x0)(AX*1), Y10, Y8;         /* Y8 = the row's x       */ \
	VFMADD231PS  Y8, Y6, s0                   /* s0 += gy·x             */
#define PAIRY \
	TAP2Y(48, 80, Y0, Y3);                        /* the chunk's tap 0      */ \
	TAP2Y(96, 128, Y1, Y4);                        /* tap 1                  */ \
	TAP2Y(144, 176, Y2, Y5)                        /* tap 2                  */
#define ONEY \
	TAP1Y(48, 80, Y0);                            /* the chunk's tap 0      */ \
	TAP1Y(96, 128, Y1);                            /* tap 1                  */ \
	TAP1Y(144, 176, Y2)                            /* tap 2                  */
#define SUMSY \
	VADDPS       Y3, Y0, Y0;                  /* tap 0: both rows' sums */ \
	VADDPS       Y4, Y1, Y1;                  /* tap 1                  */ \
	VADDPS       Y5, Y2, Y2;                  /* tap 2                  */ \
	VMOVUPS      Y0, (accP);                  /* acc: tap 0's lanes     */ \
	VMOVUPS      Y1, 32(accP);                /* tap 1's                */ \
	VMOVUPS      Y2, 64(accP)                 /* tap 2's                */


// The AVX-512 steps: Z0–Z5 the sums as for AVX2, Z6 and Z7 the two rows'
// gy (zero past ow); the fused multiply-adds read x under the tap's lanes
// K1 (the other lanes keep their sums).
#define ZEROZ \
	VXORPS       Z0, Z0, Z0;                  /* sums = 0               */ \
	VXORPS       Z1, Z1, Z1;                  /*                        */ \
	VXORPS       Z2, Z2, Z2;                  /*                        */ \
	VXORPS       Z3, Z3, Z3;                  /*                        */ \
	VXORPS       Z4, Z4, Z4;                  /*                        */ \
	VXORPS       Z5, Z5, Z5                   /*                        */
#define LOADG2Z \
	KMOVW        (ent), K2;                   /* K2 = columns < ow      */ \
	VMOVUPS.Z    (g0)(col*4), K2, Z6;         /* Z6 = the first row's gy */ \
	VMOVUPS.Z    (g1)(col*4), K2, Z7          /* Z7 = the second's      */
#define LOADG1Z \
	KMOVW        (ent), K2;                   /* K2 = columns < ow      */ \
	VMOVUPS.Z    (g0)(col*4), K2, Z6          /* Z6 = the row's gy      */
#define TAP2Z(e, eo, s0, s1) \
	MOVQ         eo(ent), AX;             /* AX = the tap's offset  */ \
	KMOVW        e(ent), K1;                  /* K1 = the tap's lanes   */ \
	VFMADD231PS  (x0)(AX*1), Z6, K1, s0;      /* s0 += gy·x             */ \
	VFMADD231PS  (x1)(AX*1), Z7, K1, s1       /* s1 += gy·x             */
#define TAP1Z(e, eo, s0) \
	MOVQ         eo(ent), AX;             /* AX = the tap's offset  */ \
	KMOVW        e(ent), K1;                  /* K1 = the tap's lanes   */ \
	VFMADD231PS  (x0)(AX*1), Z6, K1, s0       /* s0 += gy·x             */
#define PAIRZ \
	TAP2Z(48, 80, Z0, Z3);                        /* the chunk's tap 0      */ \
	TAP2Z(96, 128, Z1, Z4);                        /* tap 1                  */ \
	TAP2Z(144, 176, Z2, Z5)                        /* tap 2                  */
#define ONEZ \
	TAP1Z(48, 80, Z0);                            /* the chunk's tap 0      */ \
	TAP1Z(96, 128, Z1);                            /* tap 1                  */ \
	TAP1Z(144, 176, Z2)                            /* tap 2                  */
#define SUMSZ \
	VADDPS       Z3, Z0, Z0;                  /* tap 0: both rows' sums */ \
	VADDPS       Z4, Z1, Z1;                  /* tap 1                  */ \
	VADDPS       Z5, Z2, Z2;                  /* tap 2                  */ \
	VMOVUPS      Z0, (accP);                  /* acc: tap 0's lanes     */ \
	VMOVUPS      Z1, 64(accP);                /* tap 1's                */ \
	VMOVUPS      Z2, 128(accP)                /* tap 2's                */

// func dwConvAVX2(dst, x, w []float32, rowOff []int, tab []uint64, zero []float32, n, xPlane, dPlane, h, oh, ow, sh, ldx, kw int, init float32)
TEXT ·dwConvAVX2(SB), NOSPLIT, $288-220
	VBROADCASTSS init+216(FP), Y9             // Y9 = init
	DWCONV(8, 3, INITY, TAPY, STOREY)

// func dwConvAVX512(dst, x, w []float32, rowOff []int, tab []uint64, zero []float32, n, xPlane, dPlane, h, oh, ow, sh, ldx, kw int, init float32)
TEXT ·dwConvAVX512(SB), NOSPLIT, $288-220
	VBROADCASTSS init+216(FP), Z9             // Z9 = init
	DWCONV(16, 4, INITZ, TAPZ, STOREZ)

// func dwGradAVX2(gy, x []float32, rowOff, rowLo, rowHi []int, tab []uint64, acc []float32, n, xPlane, gPlane, ow, sh, ldx, nch, nvec int)
TEXT ·dwGradAVX2(SB), NOSPLIT, $56-232
	DWGRAD(8, ZEROY, LOADG2Y, LOADG1Y, PAIRY, ONEY, SUMSY)

// func dwGradAVX512(gy, x []float32, rowOff, rowLo, rowHi []int, tab []uint64, acc []float32, n, xPlane, gPlane, ow, sh, ldx, nch, nvec int)
TEXT ·dwGradAVX512(SB), NOSPLIT, $56-232
	DWGRAD(16, ZEROZ, LOADG2Z, LOADG1Z, PAIRZ, ONEZ, SUMSZ)
