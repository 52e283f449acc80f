//go:build !purego

#include "textflag.h"

// The in-place depthwise kernels, AVX2+FMA (8 lanes) and AVX-512 (16
// lanes); the twins are dwConvGo and dwGradGo. Table entries (dwEntries,
// dwGradEntries) are 48 bytes: a lane mask (8 dwords for AVX2; 16 bits for
// AVX-512) at 0 and a byte offset at 32.

// ---------------------------------------------------------------------
// Forward: dwConvAVX2 and dwConvAVX512(dst, x, w, rowOff, tab, blk, zero,
// n, xPlane, dPlane, h, ow, ldx, kw, init). Each plane is computed in
// blocks of eight output rows (blk: dwBlocks), each block a vector of
// columns at a time, the last vector first. For each kernel row the eight
// input rows' addresses are set; when the block's first and last rows are
// inside the image all are, and for each kernel column its weight is
// broadcast and added to the eight rows' sums with one fused multiply-add
// each, only in the lanes of the columns the tap reads; otherwise the rows
// outside (pointed at the zero row, never read) are left out, each row's
// multiply-add behind a test of its bit.

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
#define fEnt  DI  // the table entry in hand; the block's entry
#define fCnt  R13 // kernel columns left; scratch
#define fTmp  R14 // scratch

// Frame locals.
#define fPlanes planesLeft-8(SP)   // planes left
#define fLdxB   ldxBytes-16(SP)    // an input row in bytes
#define fVec    vecEnt-24(SP)      // the entries of the vector in hand
#define fEntB   entBytes-32(SP)    // a vector's entries in bytes
#define fKRow   kernelRow-40(SP)   // the kernel row in hand
#define fX      xPlaneL-48(SP)     // the input plane
#define fD      dPlaneL-56(SP)     // the output plane
#define fBlk    blockL-64(SP)      // the block's entry
#define fCol    firstCol-72(SP)    // the first column of the vector in hand
#define fBits   rowBits-80(SP)     // bit k: block row k's input row is inside

// A block's entry (dwBlocks): its rows times sh at 0, times sh and an
// input row's bytes at 64, times an output row's bytes at 128; at 192 the
// columns a vector may end at and be stored whole.

// DWCONV(VL, LOG, INIT, TAP, TAP7, WHOLE, MASKED) is the body of both
// kernels (VL lanes, 2^LOG = VL); its steps: INIT the eight sums, TAP the
// kernel column at fEnt (AX its byte offset) for eight rows (TAP7: seven,
// for a block of seven; TAPS: the rows whose bit is set in fTmp, when some
// of the kernel row's input rows are outside the image), store the sums
// WHOLE when the
// vector ends inside the plane (lanes past ow land on rows stored later:
// vectors go last to first, block rows in order) or MASKED under the
// output entry at fEnt; both with fEnt the block's entry, fTmp the column.
#define DWCONV(VL, LOG, INIT, TAP, TAP7, TAPS, WHOLE, MASKED) \
	MOVQ    n+168(FP), AX;                    /* AX = n                 */ \
	TESTQ   AX, AX;                           /* no planes?             */ \
	JZ      done;                             /* then nothing           */ \
	MOVQ    AX, fPlanes;                      /* fPlanes = n            */ \
	MOVQ    ldx+208(FP), AX;                  /* AX = ldx               */ \
	SHLQ    $2, AX;                           /* in bytes               */ \
	MOVQ    AX, fLdxB;                        /* fLdxB                  */ \
	MOVQ    kw+216(FP), AX;                   /* AX = kw                */ \
	INCQ    AX;                               /* + the output's entry   */ \
	IMULQ   $48, AX;                          /* in bytes               */ \
	MOVQ    AX, fEntB;                        /* fEntB                  */ \
	MOVQ    x_base+24(FP), AX;                /* fX = x                 */ \
	MOVQ    AX, fX;                           /*                        */ \
	MOVQ    dst_base+0(FP), AX;               /* fD = dst               */ \
	MOVQ    AX, fD;                           /*                        */ \
plane: \
	MOVQ    blk_base+120(FP), AX;             /* the first block's      */ \
	MOVQ    AX, fBlk;                         /* entry                  */ \
block: \
	MOVQ    ow+200(FP), AX;                   /* AX = ow                */ \
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
	MOVQ    fBlk, fEnt;                       /* fEnt = the block's     */ \
	MOVQ    (fEnt), fCnt;                     /* fCnt = block row 0's   */ \
	ADDQ    AX, fCnt;                         /* input row              */ \
	CMPQ    fCnt, h+192(FP);                  /* outside [0, h)?        */ \
	JCC     slowRows;                         /* then row by row        */ \
	MOVQ    56(fEnt), fCnt;                   /* fCnt = block row 7's   */ \
	ADDQ    AX, fCnt;                         /* input row              */ \
	CMPQ    fCnt, h+192(FP);                  /* outside [0, h)?        */ \
	JCC     slowRows;                         /* then row by row        */ \
	MOVQ    64(fEnt), fRow0;          /* block row 0: the offset */ \
	ADDQ    fTmp, fRow0;              /* + the kernel row's    */ \
	MOVQ    72(fEnt), fRow1;          /* block row 1: the offset */ \
	ADDQ    fTmp, fRow1;              /* + the kernel row's    */ \
	MOVQ    80(fEnt), fRow2;          /* block row 2: the offset */ \
	ADDQ    fTmp, fRow2;              /* + the kernel row's    */ \
	MOVQ    88(fEnt), fRow3;          /* block row 3: the offset */ \
	ADDQ    fTmp, fRow3;              /* + the kernel row's    */ \
	MOVQ    96(fEnt), fRow4;          /* block row 4: the offset */ \
	ADDQ    fTmp, fRow4;              /* + the kernel row's    */ \
	MOVQ    104(fEnt), fRow5;         /* block row 5: the offset */ \
	ADDQ    fTmp, fRow5;              /* + the kernel row's    */ \
	MOVQ    112(fEnt), fRow6;         /* block row 6: the offset */ \
	ADDQ    fTmp, fRow6;              /* + the kernel row's    */ \
	MOVQ    120(fEnt), fRow7;         /* block row 7: the offset */ \
	ADDQ    fTmp, fRow7;              /* + the kernel row's    */ \
	JMP     columns;                          /* all inside             */ \
slowRows: \
	MOVQ    $0, fBits;                        /* no row inside yet      */ \
	MOVQ    64(fEnt), fRow0;          /* block row 0: the offset */ \
	ADDQ    fTmp, fRow0;              /* + the kernel row's    */ \
	MOVQ    0(fEnt), fCnt;            /* fCnt = row·sh          */ \
	ADDQ    AX, fCnt;                         /* + rowOff[kh]: ih       */ \
	CMPQ    fCnt, h+192(FP);                  /* outside [0, h)?        */ \
	CMOVQCC zero_base+144(FP), fRow0; /* then the zero row      */ \
	JCC     out0;                             /* and no bit             */ \
	ORQ     $1, fBits;                /* row 0 inside           */ \
out0: \
	MOVQ    72(fEnt), fRow1;          /* block row 1: the offset */ \
	ADDQ    fTmp, fRow1;              /* + the kernel row's    */ \
	MOVQ    8(fEnt), fCnt;            /* fCnt = row·sh          */ \
	ADDQ    AX, fCnt;                         /* + rowOff[kh]: ih       */ \
	CMPQ    fCnt, h+192(FP);                  /* outside [0, h)?        */ \
	CMOVQCC zero_base+144(FP), fRow1; /* then the zero row      */ \
	JCC     out1;                             /* and no bit             */ \
	ORQ     $2, fBits;                /* row 1 inside           */ \
out1: \
	MOVQ    80(fEnt), fRow2;          /* block row 2: the offset */ \
	ADDQ    fTmp, fRow2;              /* + the kernel row's    */ \
	MOVQ    16(fEnt), fCnt;           /* fCnt = row·sh          */ \
	ADDQ    AX, fCnt;                         /* + rowOff[kh]: ih       */ \
	CMPQ    fCnt, h+192(FP);                  /* outside [0, h)?        */ \
	CMOVQCC zero_base+144(FP), fRow2; /* then the zero row      */ \
	JCC     out2;                             /* and no bit             */ \
	ORQ     $4, fBits;                /* row 2 inside           */ \
out2: \
	MOVQ    88(fEnt), fRow3;          /* block row 3: the offset */ \
	ADDQ    fTmp, fRow3;              /* + the kernel row's    */ \
	MOVQ    24(fEnt), fCnt;           /* fCnt = row·sh          */ \
	ADDQ    AX, fCnt;                         /* + rowOff[kh]: ih       */ \
	CMPQ    fCnt, h+192(FP);                  /* outside [0, h)?        */ \
	CMOVQCC zero_base+144(FP), fRow3; /* then the zero row      */ \
	JCC     out3;                             /* and no bit             */ \
	ORQ     $8, fBits;                /* row 3 inside           */ \
out3: \
	MOVQ    96(fEnt), fRow4;          /* block row 4: the offset */ \
	ADDQ    fTmp, fRow4;              /* + the kernel row's    */ \
	MOVQ    32(fEnt), fCnt;           /* fCnt = row·sh          */ \
	ADDQ    AX, fCnt;                         /* + rowOff[kh]: ih       */ \
	CMPQ    fCnt, h+192(FP);                  /* outside [0, h)?        */ \
	CMOVQCC zero_base+144(FP), fRow4; /* then the zero row      */ \
	JCC     out4;                             /* and no bit             */ \
	ORQ     $16, fBits;               /* row 4 inside           */ \
out4: \
	MOVQ    104(fEnt), fRow5;         /* block row 5: the offset */ \
	ADDQ    fTmp, fRow5;              /* + the kernel row's    */ \
	MOVQ    40(fEnt), fCnt;           /* fCnt = row·sh          */ \
	ADDQ    AX, fCnt;                         /* + rowOff[kh]: ih       */ \
	CMPQ    fCnt, h+192(FP);                  /* outside [0, h)?        */ \
	CMOVQCC zero_base+144(FP), fRow5; /* then the zero row      */ \
	JCC     out5;                             /* and no bit             */ \
	ORQ     $32, fBits;               /* row 5 inside           */ \
out5: \
	MOVQ    112(fEnt), fRow6;         /* block row 6: the offset */ \
	ADDQ    fTmp, fRow6;              /* + the kernel row's    */ \
	MOVQ    48(fEnt), fCnt;           /* fCnt = row·sh          */ \
	ADDQ    AX, fCnt;                         /* + rowOff[kh]: ih       */ \
	CMPQ    fCnt, h+192(FP);                  /* outside [0, h)?        */ \
	CMOVQCC zero_base+144(FP), fRow6; /* then the zero row      */ \
	JCC     out6;                             /* and no bit             */ \
	ORQ     $64, fBits;               /* row 6 inside           */ \
out6: \
	MOVQ    120(fEnt), fRow7;         /* block row 7: the offset */ \
	ADDQ    fTmp, fRow7;              /* + the kernel row's    */ \
	MOVQ    56(fEnt), fCnt;           /* fCnt = row·sh          */ \
	ADDQ    AX, fCnt;                         /* + rowOff[kh]: ih       */ \
	CMPQ    fCnt, h+192(FP);                  /* outside [0, h)?        */ \
	CMOVQCC zero_base+144(FP), fRow7; /* then the zero row      */ \
	JCC     out7;                             /* and no bit             */ \
	ORQ     $128, fBits;              /* row 7 inside           */ \
out7: \
	JMP     columnsSlow;                      /* the rows inside only   */ \
columns: \
	MOVQ    fVec, fEnt;                       /* fEnt = column 0's entry */ \
	MOVQ    kw+216(FP), fCnt;                 /* fCnt = kw              */ \
	MOVQ    fBlk, AX;                         /* AX = the block's entry */ \
	CMPQ    200(AX), $8;                      /* eight rows?            */ \
	JLT     kernelCol7;                       /* no: seven              */ \
kernelCol: \
	MOVQ    32(fEnt), AX;                     /* AX = the tap's offset  */ \
	TAP;                                      /* eight sums += w·x      */ \
	ADDQ    $4, fW;                           /* next weight            */ \
	ADDQ    $48, fEnt;                        /* next entry             */ \
	DECQ    fCnt;                             /* a column done          */ \
	JNZ     kernelCol;                        /* more?                  */ \
	JMP     colsDone;                         /*                        */ \
kernelCol7: \
	MOVQ    32(fEnt), AX;                     /* AX = the tap's offset  */ \
	TAP7;                                     /* seven sums += w·x      */ \
	ADDQ    $4, fW;                           /* next weight            */ \
	ADDQ    $48, fEnt;                        /* next entry             */ \
	DECQ    fCnt;                             /* a column done          */ \
	JNZ     kernelCol7;                       /* more?                  */ \
	JMP     colsDone;                         /*                        */ \
columnsSlow: \
	MOVQ    fVec, fEnt;                       /* fEnt = column 0's entry */ \
	MOVQ    kw+216(FP), fCnt;                 /* fCnt = kw              */ \
	MOVQ    fBits, fTmp;                      /* fTmp = the rows inside */ \
kernelColS: \
	MOVQ    32(fEnt), AX;                     /* AX = the tap's offset  */ \
	TAPS;                                     /* the rows inside += w·x */ \
	ADDQ    $4, fW;                           /* next weight            */ \
	ADDQ    $48, fEnt;                        /* next entry             */ \
	DECQ    fCnt;                             /* a column done          */ \
	JNZ     kernelColS;                       /* more?                  */ \
colsDone: \
	INCQ    fKRow;                            /* next kernel row        */ \
	MOVQ    fKRow, AX;                        /* AX = kh                */ \
	CMPQ    AX, rowOff_len+80(FP);            /* any left?              */ \
	JLT     kernelRow;                        /* then add it            */ \
	MOVQ    fCol, fTmp;                       /* fTmp = col             */ \
	MOVQ    fBlk, AX;                         /* AX = the block's entry */ \
	LEAQ    VL(fTmp), fCnt;                   /* fCnt = the vector's end */ \
	CMPQ    fCnt, 192(AX);                    /* past the whole stores? */ \
	JGT     masked;                           /* then masked            */ \
	MOVQ    AX, fEnt;                         /* fEnt = the block's     */ \
	WHOLE;                                    /* store whole            */ \
	JMP     stored;                           /*                        */ \
masked: \
	MASKED;                                   /* store the lanes < ow   */ \
stored: \
	MOVQ    fVec, AX;                         /* AX = this vector's     */ \
	SUBQ    fEntB, AX;                        /* the one before's       */ \
	MOVQ    AX, fVec;                         /* entries                */ \
	SUBQ    $VL, fCol;                        /* the vector before      */ \
	JGE     vector;                           /* if any                 */ \
	MOVQ    fBlk, AX;                         /* AX = the block's entry */ \
	ADDQ    $256, AX;                         /* the next block's       */ \
	MOVQ    AX, fBlk;                         /*                        */ \
	MOVQ    blk_base+120(FP), fCnt;           /* fCnt = blk             */ \
	MOVQ    blk_len+128(FP), fTmp;            /* + its length           */ \
	LEAQ    (fCnt)(fTmp*8), fCnt;             /* = its end              */ \
	CMPQ    AX, fCnt;                         /* any blocks left?       */ \
	JLT     block;                            /* then do them           */ \
	MOVQ    xPlane+176(FP), AX;               /* AX = xPlane            */ \
	SHLQ    $2, AX;                           /* in bytes               */ \
	ADDQ    AX, fX;                           /* next input plane       */ \
	MOVQ    dPlane+184(FP), AX;               /* AX = dPlane            */ \
	SHLQ    $2, AX;                           /* in bytes               */ \
	ADDQ    AX, fD;                           /* next output plane      */ \
	DECQ    fPlanes;                          /* a plane done           */ \
	JNZ     plane;                            /* more?                  */ \
done: \
	VZEROUPPER;                               /* clean AVX state        */ \
	RET

// The AVX2 steps: Y0–Y7 the sums, Y8 the weight (zero off the tap's lanes,
// whose inputs VMASKMOVPS reads as zeros: they add +0), Y9 init, Y10 the
// lane mask, Y11–Y14 the inputs in turn.
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
	VANDPS       Y10, Y8, Y8;                 /* 0 off the lanes        */ \
	VMASKMOVPS   (fRow0)(AX*1), Y10, Y11;     /* Y11 = row 0's input    */ \
	VFMADD231PS  Y11, Y8, Y0;                 /* row 0 += w·x           */ \
	VMASKMOVPS   (fRow1)(AX*1), Y10, Y12;     /* Y12 = row 1's input    */ \
	VFMADD231PS  Y12, Y8, Y1;                 /* row 1 += w·x           */ \
	VMASKMOVPS   (fRow2)(AX*1), Y10, Y13;     /* Y13 = row 2's input    */ \
	VFMADD231PS  Y13, Y8, Y2;                 /* row 2 += w·x           */ \
	VMASKMOVPS   (fRow3)(AX*1), Y10, Y14;     /* Y14 = row 3's input    */ \
	VFMADD231PS  Y14, Y8, Y3;                 /* row 3 += w·x           */ \
	VMASKMOVPS   (fRow4)(AX*1), Y10, Y11;     /* Y11 = row 4's input    */ \
	VFMADD231PS  Y11, Y8, Y4;                 /* row 4 += w·x           */ \
	VMASKMOVPS   (fRow5)(AX*1), Y10, Y12;     /* Y12 = row 5's input    */ \
	VFMADD231PS  Y12, Y8, Y5;                 /* row 5 += w·x           */ \
	VMASKMOVPS   (fRow6)(AX*1), Y10, Y13;     /* Y13 = row 6's input    */ \
	VFMADD231PS  Y13, Y8, Y6;                 /* row 6 += w·x           */ \
	VMASKMOVPS   (fRow7)(AX*1), Y10, Y14;     /* Y14 = row 7's input    */ \
	VFMADD231PS  Y14, Y8, Y7                  /* row 7 += w·x           */
#define TAP7Y \
	VMOVDQU      (fEnt), Y10;                 /* Y10 = the tap's lanes  */ \
	VBROADCASTSS (fW), Y8;                    /* Y8 = w[kh][kw]         */ \
	VANDPS       Y10, Y8, Y8;                 /* 0 off the lanes        */ \
	VMASKMOVPS   (fRow0)(AX*1), Y10, Y11;     /* Y11 = row 0's input    */ \
	VFMADD231PS  Y11, Y8, Y0;                 /* row 0 += w·x           */ \
	VMASKMOVPS   (fRow1)(AX*1), Y10, Y12;     /* Y12 = row 1's input    */ \
	VFMADD231PS  Y12, Y8, Y1;                 /* row 1 += w·x           */ \
	VMASKMOVPS   (fRow2)(AX*1), Y10, Y13;     /* Y13 = row 2's input    */ \
	VFMADD231PS  Y13, Y8, Y2;                 /* row 2 += w·x           */ \
	VMASKMOVPS   (fRow3)(AX*1), Y10, Y14;     /* Y14 = row 3's input    */ \
	VFMADD231PS  Y14, Y8, Y3;                 /* row 3 += w·x           */ \
	VMASKMOVPS   (fRow4)(AX*1), Y10, Y11;     /* Y11 = row 4's input    */ \
	VFMADD231PS  Y11, Y8, Y4;                 /* row 4 += w·x           */ \
	VMASKMOVPS   (fRow5)(AX*1), Y10, Y12;     /* Y12 = row 5's input    */ \
	VFMADD231PS  Y12, Y8, Y5;                 /* row 5 += w·x           */ \
	VMASKMOVPS   (fRow6)(AX*1), Y10, Y13;     /* Y13 = row 6's input    */ \
	VFMADD231PS  Y13, Y8, Y6                  /* row 6 += w·x           */
#define TAPSY \
	VMOVDQU      (fEnt), Y10;                 /* Y10 = the tap's lanes  */ \
	VBROADCASTSS (fW), Y8;                    /* Y8 = w[kh][kw]         */ \
	VANDPS       Y10, Y8, Y8;                 /* 0 off the lanes        */ \
	BTL          $0, fTmp;                    /* row 0 inside?          */ \
	JCC          ys0;                         /* no: left out           */ \
	VMASKMOVPS   (fRow0)(AX*1), Y10, Y11;     /* Y11 = row 0's input   */ \
	VFMADD231PS  Y11, Y8, Y0;                 /* row 0 += w·x           */ \
ys0: \
	BTL          $1, fTmp;                    /* row 1 inside?          */ \
	JCC          ys1;                         /* no: left out           */ \
	VMASKMOVPS   (fRow1)(AX*1), Y10, Y11;     /* Y11 = row 1's input   */ \
	VFMADD231PS  Y11, Y8, Y1;                 /* row 1 += w·x           */ \
ys1: \
	BTL          $2, fTmp;                    /* row 2 inside?          */ \
	JCC          ys2;                         /* no: left out           */ \
	VMASKMOVPS   (fRow2)(AX*1), Y10, Y11;     /* Y11 = row 2's input   */ \
	VFMADD231PS  Y11, Y8, Y2;                 /* row 2 += w·x           */ \
ys2: \
	BTL          $3, fTmp;                    /* row 3 inside?          */ \
	JCC          ys3;                         /* no: left out           */ \
	VMASKMOVPS   (fRow3)(AX*1), Y10, Y11;     /* Y11 = row 3's input   */ \
	VFMADD231PS  Y11, Y8, Y3;                 /* row 3 += w·x           */ \
ys3: \
	BTL          $4, fTmp;                    /* row 4 inside?          */ \
	JCC          ys4;                         /* no: left out           */ \
	VMASKMOVPS   (fRow4)(AX*1), Y10, Y11;     /* Y11 = row 4's input   */ \
	VFMADD231PS  Y11, Y8, Y4;                 /* row 4 += w·x           */ \
ys4: \
	BTL          $5, fTmp;                    /* row 5 inside?          */ \
	JCC          ys5;                         /* no: left out           */ \
	VMASKMOVPS   (fRow5)(AX*1), Y10, Y11;     /* Y11 = row 5's input   */ \
	VFMADD231PS  Y11, Y8, Y5;                 /* row 5 += w·x           */ \
ys5: \
	BTL          $6, fTmp;                    /* row 6 inside?          */ \
	JCC          ys6;                         /* no: left out           */ \
	VMASKMOVPS   (fRow6)(AX*1), Y10, Y11;     /* Y11 = row 6's input   */ \
	VFMADD231PS  Y11, Y8, Y6;                 /* row 6 += w·x           */ \
ys6: \
	BTL          $7, fTmp;                    /* row 7 inside?          */ \
	JCC          ys7;                         /* no: left out           */ \
	VMASKMOVPS   (fRow7)(AX*1), Y10, Y11;     /* Y11 = row 7's input   */ \
	VFMADD231PS  Y11, Y8, Y7;                 /* row 7 += w·x           */ \
ys7:
#define WHOLEY \
	MOVQ         128(fEnt), AX;          /* AX = row 0's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMOVUPS      Y0, (AX);                     /* store row 0            */ \
	MOVQ         136(fEnt), AX;          /* AX = row 1's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMOVUPS      Y1, (AX);                     /* store row 1            */ \
	MOVQ         144(fEnt), AX;          /* AX = row 2's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMOVUPS      Y2, (AX);                     /* store row 2            */ \
	MOVQ         152(fEnt), AX;          /* AX = row 3's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMOVUPS      Y3, (AX);                     /* store row 3            */ \
	MOVQ         160(fEnt), AX;          /* AX = row 4's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMOVUPS      Y4, (AX);                     /* store row 4            */ \
	MOVQ         168(fEnt), AX;          /* AX = row 5's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMOVUPS      Y5, (AX);                     /* store row 5            */ \
	MOVQ         176(fEnt), AX;          /* AX = row 6's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMOVUPS      Y6, (AX);                     /* store row 6            */ \
	CMPQ         200(fEnt), $8;               /* a block of seven?      */ \
	JLT          ywskip;                 /* then row 7 is not one */ \
	MOVQ         184(fEnt), AX;          /* AX = row 7's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMOVUPS      Y7, (AX);                      /* store row 7            */ \
ywskip:
#define MASKEDY \
	MOVQ         fVec, AX;                    /* AX = the vector's       */ \
	ADDQ         fEntB, AX;                   /* entries' end:          */ \
	VMOVDQU      -48(AX), Y10;                /* Y10 = columns < ow     */ \
	MOVQ         fBlk, fEnt;                  /* fEnt = the block's     */ \
	MOVQ         128(fEnt), AX;          /* AX = row 0's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMASKMOVPS   Y0, Y10, (AX);               /* store row 0            */ \
	MOVQ         136(fEnt), AX;          /* AX = row 1's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMASKMOVPS   Y1, Y10, (AX);               /* store row 1            */ \
	MOVQ         144(fEnt), AX;          /* AX = row 2's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMASKMOVPS   Y2, Y10, (AX);               /* store row 2            */ \
	MOVQ         152(fEnt), AX;          /* AX = row 3's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMASKMOVPS   Y3, Y10, (AX);               /* store row 3            */ \
	MOVQ         160(fEnt), AX;          /* AX = row 4's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMASKMOVPS   Y4, Y10, (AX);               /* store row 4            */ \
	MOVQ         168(fEnt), AX;          /* AX = row 5's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMASKMOVPS   Y5, Y10, (AX);               /* store row 5            */ \
	MOVQ         176(fEnt), AX;          /* AX = row 6's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMASKMOVPS   Y6, Y10, (AX);               /* store row 6            */ \
	CMPQ         200(fEnt), $8;               /* a block of seven?      */ \
	JLT          ymskip;                 /* then row 7 is not one */ \
	MOVQ         184(fEnt), AX;          /* AX = row 7's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMASKMOVPS   Y7, Y10, (AX);                 /* store row 7            */ \
ymskip:

// The AVX-512 steps: Z0–Z7 the sums, Z8 the weight, Z9 init; the fused
// multiply-adds read x under the tap's lanes K1 (the others keep their
// sums); K2 the output's lanes.
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
	VFMADD231PS  (fRow0)(AX*1), Z8, K1, Z0;  /* row 0 += w·x           */ \
	VFMADD231PS  (fRow1)(AX*1), Z8, K1, Z1;  /* row 1 += w·x           */ \
	VFMADD231PS  (fRow2)(AX*1), Z8, K1, Z2;  /* row 2 += w·x           */ \
	VFMADD231PS  (fRow3)(AX*1), Z8, K1, Z3;  /* row 3 += w·x           */ \
	VFMADD231PS  (fRow4)(AX*1), Z8, K1, Z4;  /* row 4 += w·x           */ \
	VFMADD231PS  (fRow5)(AX*1), Z8, K1, Z5;  /* row 5 += w·x           */ \
	VFMADD231PS  (fRow6)(AX*1), Z8, K1, Z6;  /* row 6 += w·x           */ \
	VFMADD231PS  (fRow7)(AX*1), Z8, K1, Z7   /* row 7 += w·x           */
#define TAP7Z \
	KMOVW        (fEnt), K1;                  /* K1 = the tap's lanes   */ \
	VBROADCASTSS (fW), Z8;                    /* Z8 = w[kh][kw]         */ \
	VFMADD231PS  (fRow0)(AX*1), Z8, K1, Z0;  /* row 0 += w·x           */ \
	VFMADD231PS  (fRow1)(AX*1), Z8, K1, Z1;  /* row 1 += w·x           */ \
	VFMADD231PS  (fRow2)(AX*1), Z8, K1, Z2;  /* row 2 += w·x           */ \
	VFMADD231PS  (fRow3)(AX*1), Z8, K1, Z3;  /* row 3 += w·x           */ \
	VFMADD231PS  (fRow4)(AX*1), Z8, K1, Z4;  /* row 4 += w·x           */ \
	VFMADD231PS  (fRow5)(AX*1), Z8, K1, Z5;  /* row 5 += w·x           */ \
	VFMADD231PS  (fRow6)(AX*1), Z8, K1, Z6   /* row 6 += w·x           */
#define TAPSZ \
	KMOVW        (fEnt), K1;                  /* K1 = the tap's lanes   */ \
	VBROADCASTSS (fW), Z8;                    /* Z8 = w[kh][kw]         */ \
	BTL          $0, fTmp;                    /* row 0 inside?          */ \
	JCC          zs0;                         /* no: left out           */ \
	VFMADD231PS  (fRow0)(AX*1), Z8, K1, Z0;  /* row 0 += w·x           */ \
zs0: \
	BTL          $1, fTmp;                    /* row 1 inside?          */ \
	JCC          zs1;                         /* no: left out           */ \
	VFMADD231PS  (fRow1)(AX*1), Z8, K1, Z1;  /* row 1 += w·x           */ \
zs1: \
	BTL          $2, fTmp;                    /* row 2 inside?          */ \
	JCC          zs2;                         /* no: left out           */ \
	VFMADD231PS  (fRow2)(AX*1), Z8, K1, Z2;  /* row 2 += w·x           */ \
zs2: \
	BTL          $3, fTmp;                    /* row 3 inside?          */ \
	JCC          zs3;                         /* no: left out           */ \
	VFMADD231PS  (fRow3)(AX*1), Z8, K1, Z3;  /* row 3 += w·x           */ \
zs3: \
	BTL          $4, fTmp;                    /* row 4 inside?          */ \
	JCC          zs4;                         /* no: left out           */ \
	VFMADD231PS  (fRow4)(AX*1), Z8, K1, Z4;  /* row 4 += w·x           */ \
zs4: \
	BTL          $5, fTmp;                    /* row 5 inside?          */ \
	JCC          zs5;                         /* no: left out           */ \
	VFMADD231PS  (fRow5)(AX*1), Z8, K1, Z5;  /* row 5 += w·x           */ \
zs5: \
	BTL          $6, fTmp;                    /* row 6 inside?          */ \
	JCC          zs6;                         /* no: left out           */ \
	VFMADD231PS  (fRow6)(AX*1), Z8, K1, Z6;  /* row 6 += w·x           */ \
zs6: \
	BTL          $7, fTmp;                    /* row 7 inside?          */ \
	JCC          zs7;                         /* no: left out           */ \
	VFMADD231PS  (fRow7)(AX*1), Z8, K1, Z7;  /* row 7 += w·x           */ \
zs7:
#define WHOLEZ \
	MOVQ         128(fEnt), AX;          /* AX = row 0's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMOVUPS      Z0, (AX);                     /* store row 0            */ \
	MOVQ         136(fEnt), AX;          /* AX = row 1's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMOVUPS      Z1, (AX);                     /* store row 1            */ \
	MOVQ         144(fEnt), AX;          /* AX = row 2's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMOVUPS      Z2, (AX);                     /* store row 2            */ \
	MOVQ         152(fEnt), AX;          /* AX = row 3's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMOVUPS      Z3, (AX);                     /* store row 3            */ \
	MOVQ         160(fEnt), AX;          /* AX = row 4's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMOVUPS      Z4, (AX);                     /* store row 4            */ \
	MOVQ         168(fEnt), AX;          /* AX = row 5's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMOVUPS      Z5, (AX);                     /* store row 5            */ \
	MOVQ         176(fEnt), AX;          /* AX = row 6's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMOVUPS      Z6, (AX);                     /* store row 6            */ \
	CMPQ         200(fEnt), $8;               /* a block of seven?      */ \
	JLT          zwskip;                 /* then row 7 is not one */ \
	MOVQ         184(fEnt), AX;          /* AX = row 7's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMOVUPS      Z7, (AX);                      /* store row 7            */ \
zwskip:
#define MASKEDZ \
	MOVQ         fVec, AX;                    /* AX = the vector's       */ \
	ADDQ         fEntB, AX;                   /* entries' end:          */ \
	KMOVW        -48(AX), K2;                 /* K2 = columns < ow      */ \
	MOVQ         fBlk, fEnt;                  /* fEnt = the block's     */ \
	MOVQ         128(fEnt), AX;          /* AX = row 0's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMOVUPS      Z0, K2, (AX);                 /* store row 0            */ \
	MOVQ         136(fEnt), AX;          /* AX = row 1's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMOVUPS      Z1, K2, (AX);                 /* store row 1            */ \
	MOVQ         144(fEnt), AX;          /* AX = row 2's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMOVUPS      Z2, K2, (AX);                 /* store row 2            */ \
	MOVQ         152(fEnt), AX;          /* AX = row 3's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMOVUPS      Z3, K2, (AX);                 /* store row 3            */ \
	MOVQ         160(fEnt), AX;          /* AX = row 4's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMOVUPS      Z4, K2, (AX);                 /* store row 4            */ \
	MOVQ         168(fEnt), AX;          /* AX = row 5's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMOVUPS      Z5, K2, (AX);                 /* store row 5            */ \
	MOVQ         176(fEnt), AX;          /* AX = row 6's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMOVUPS      Z6, K2, (AX);                 /* store row 6            */ \
	CMPQ         200(fEnt), $8;               /* a block of seven?      */ \
	JLT          zmskip;                 /* then row 7 is not one */ \
	MOVQ         184(fEnt), AX;          /* AX = row 7's offset    */ \
	ADDQ         fD, AX;                      /* + the plane            */ \
	LEAQ         (AX)(fTmp*4), AX;            /* + col                  */ \
	VMOVUPS      Z7, K2, (AX);                  /* store row 7            */ \
zmskip:


// ---------------------------------------------------------------------
// Weight gradient: dwGradAVX2 and dwGradAVX512(gy, x, rowOff, rowLo,
// rowHi, tab, acc, n, xPlane, gPlane, ow, sh, ldx, nch, nvec). For each
// kernel row and chunk of three kernel columns, six sums (the three taps,
// for the first and the second row of each pair of output rows) run over
// the vectors of columns, the planes and the kernel row's output rows
// [rowLo, rowHi) two at a time; the pair's sums are then added and stored,
// three vectors of partial sums per chunk, chunk after chunk. The lane
// masks and offsets of a vector's taps stay in registers while its rows go
// by.

// Register roles.
#define gX0   BX  // the input row of the pair's first output row
#define gX1   CX  // … of its second
#define gG    DX  // the output gradient's first row, at the vector
#define gOwB  R8  // an output row in bytes
#define gO0   R9  // the chunk's tap 0's byte offset in its row
#define gO1   R10 // tap 1's
#define gO2   R11 // tap 2's
#define gCnt  R12 // rows left
#define gEnt  DI  // the vector's entries
#define gAcc  SI  // the partial sums' next chunk
#define gTmp  R13 // scratch
#define gX2   R14 // the input row of a quad's third output row (AVX-512)
#define gX3   AX  // … of its fourth

// Frame locals.
#define gPlanes planesLeft-8(SP)   // planes left
#define gLdxB   ldxBytes-16(SP)    // an input row in bytes
#define gStep   stepBytes-24(SP)   // sh input rows in bytes
#define gStep2  step2Bytes-32(SP)  // 2·sh input rows in bytes
#define gVStr   vecStride-40(SP)   // a vector's entries in bytes
#define gKRow   kernelRow-48(SP)   // the kernel row in hand
#define gChunk  chunkL-56(SP)      // the chunk in hand
#define gRows   rowsL-64(SP)       // the kernel row's output rows
#define gFirstX firstX-72(SP)      // its first's input row in bytes
#define gFirstG firstG-80(SP)      // its first's gy row in bytes
#define gVec    vecL-88(SP)        // the vector's entries
#define gVecs   vecsLeft-96(SP)    // vectors left
#define gColB   colBytes-104(SP)   // the vector's first column in bytes
#define gXP     xPlaneL-112(SP)    // the input plane
#define gGP     gPlaneL-120(SP)    // the gradient plane
#define gStep4  step4Bytes-128(SP) // 4·sh input rows in bytes

// DWGRAD(VL, QUADMIN, ZERO, MASKS, QUAD, PAIR, ONE, SUMS) is the body of
// both kernels; its steps: ZERO the sums, MASKS the vector's lane masks
// (gEnt its entries), QUAD, PAIR and ONE add the chunk's taps for four
// rows (while QUADMIN rows are left: the AVX-512 kernel's twelve sums), a
// pair of rows or the first alone, SUMS store the chunk's sums at gAcc.
#define DWGRAD(VL, QUADMIN, ZERO, MASKS, QUAD, PAIR, ONE, SUMS) \
	MOVQ    ldx+208(FP), AX;                  /* AX = ldx               */ \
	SHLQ    $2, AX;                           /* in bytes               */ \
	MOVQ    AX, gLdxB;                        /* gLdxB                  */ \
	IMULQ   sh+200(FP), AX;                   /* · sh                   */ \
	MOVQ    AX, gStep;                        /* gStep                  */ \
	SHLQ    $1, AX;                           /* · 2                    */ \
	MOVQ    AX, gStep2;                       /* gStep2                 */ \
	SHLQ    $1, AX;                           /* · 4                    */ \
	MOVQ    AX, gStep4;                       /* gStep4                 */ \
	MOVQ    ow+192(FP), gOwB;                 /* gOwB = ow              */ \
	SHLQ    $2, gOwB;                         /* in bytes               */ \
	MOVQ    nch+216(FP), AX;                  /* AX = nch               */ \
	IMULQ   $192, AX;                         /* four entries a chunk   */ \
	MOVQ    AX, gVStr;                        /* gVStr                  */ \
	MOVQ    acc_base+144(FP), gAcc;           /* gAcc = acc             */ \
	MOVQ    $0, gKRow;                        /* gKRow = 0              */ \
kernelRow: \
	MOVQ    gKRow, gTmp;                      /* gTmp = kh              */ \
	MOVQ    rowLo_base+72(FP), AX;            /* AX = rowLo             */ \
	MOVQ    (AX)(gTmp*8), AX;                 /* AX = rowLo[kh]         */ \
	MOVQ    rowHi_base+96(FP), CX;            /* CX = rowHi             */ \
	MOVQ    (CX)(gTmp*8), CX;                 /* CX = rowHi[kh]         */ \
	SUBQ    AX, CX;                           /* its rows               */ \
	MOVQ    CX, gRows;                        /* gRows                  */ \
	MOVQ    AX, CX;                           /* CX = rowLo             */ \
	IMULQ   gOwB, CX;                         /* in gy bytes            */ \
	MOVQ    CX, gFirstG;                      /* gFirstG                */ \
	IMULQ   sh+200(FP), AX;                   /* AX = rowLo·sh          */ \
	MOVQ    rowOff_base+48(FP), CX;           /* CX = rowOff            */ \
	ADDQ    (CX)(gTmp*8), AX;                 /* + rowOff[kh]: ih       */ \
	IMULQ   gLdxB, AX;                        /* in bytes               */ \
	MOVQ    AX, gFirstX;                      /* gFirstX                */ \
	MOVQ    $0, gChunk;                       /* gChunk = 0             */ \
chunkLoop: \
	ZERO;                                     /* the six sums = 0       */ \
	CMPQ    gRows, $0;                        /* no rows?               */ \
	JLE     store;                            /* then zero sums         */ \
	CMPQ    n+168(FP), $0;                    /* no planes?             */ \
	JLE     store;                            /* then zero sums         */ \
	MOVQ    gChunk, AX;                       /* AX = chunk             */ \
	IMULQ   $192, AX;                         /* its entries            */ \
	ADDQ    tab_base+120(FP), AX;             /* of vector 0            */ \
	MOVQ    AX, gVec;                         /* gVec                   */ \
	MOVQ    $0, gColB;                        /* gColB = 0              */ \
	MOVQ    nvec+224(FP), AX;                 /* gVecs = nvec           */ \
	MOVQ    AX, gVecs;                        /*                        */ \
vecLoop: \
	MOVQ    gVec, gEnt;                       /* gEnt = its entries     */ \
	MASKS;                                    /* the lanes              */ \
	MOVQ    80(gEnt), gO0;                    /* the taps' offsets      */ \
	MOVQ    128(gEnt), gO1;                   /*                        */ \
	MOVQ    176(gEnt), gO2;                   /*                        */ \
	MOVQ    x_base+24(FP), AX;                /* gXP = x                */ \
	MOVQ    AX, gXP;                          /*                        */ \
	MOVQ    gy_base+0(FP), AX;                /* gGP = gy               */ \
	MOVQ    AX, gGP;                          /*                        */ \
	MOVQ    n+168(FP), AX;                    /* gPlanes = n            */ \
	MOVQ    AX, gPlanes;                      /*                        */ \
planeLoop: \
	MOVQ    gXP, gX0;                         /* gX0 = the plane        */ \
	ADDQ    gFirstX, gX0;                     /* + the first row        */ \
	MOVQ    gX0, gX1;                         /* gX1 = gX0              */ \
	ADDQ    gStep, gX1;                       /* + sh rows              */ \
	MOVQ    gX1, gX2;                         /* gX2 = gX1 + sh rows    */ \
	ADDQ    gStep, gX2;                       /*                        */ \
	MOVQ    gX2, gX3;                         /* gX3 = gX2 + sh rows    */ \
	ADDQ    gStep, gX3;                       /*                        */ \
	MOVQ    gGP, gG;                          /* gG = the gy plane      */ \
	ADDQ    gFirstG, gG;                      /* + the first row        */ \
	ADDQ    gColB, gG;                        /* + the vector           */ \
	MOVQ    gRows, gCnt;                      /* gCnt = rows            */ \
quadLoop: \
	CMPQ    gCnt, $QUADMIN;                   /* a quad left?           */ \
	JLT     pairLoop;                         /* no                     */ \
	QUAD;                                     /* twelve sums += gy·x    */ \
	ADDQ    gStep4, gX0;                      /* the next quad's rows   */ \
	ADDQ    gStep4, gX1;                      /*                        */ \
	ADDQ    gStep4, gX2;                      /*                        */ \
	ADDQ    gStep4, gX3;                      /*                        */ \
	LEAQ    (gG)(gOwB*4), gG;                 /*                        */ \
	SUBQ    $4, gCnt;                         /* a quad done            */ \
	JMP     quadLoop;                         /* again                  */ \
pairLoop: \
	CMPQ    gCnt, $2;                         /* a pair left?           */ \
	JLT     oneRow;                           /* no                     */ \
	PAIR;                                     /* six sums += gy·x       */ \
	ADDQ    gStep2, gX0;                      /* the next pair's rows   */ \
	ADDQ    gStep2, gX1;                      /*                        */ \
	LEAQ    (gG)(gOwB*2), gG;                 /*                        */ \
	SUBQ    $2, gCnt;                         /* a pair done            */ \
	JMP     pairLoop;                         /* again                  */ \
oneRow: \
	TESTQ   gCnt, gCnt;                       /* a row left?            */ \
	JZ      nextPlane;                        /* no                     */ \
	ONE;                                      /* three sums += gy·x     */ \
nextPlane: \
	MOVQ    xPlane+176(FP), AX;               /* AX = xPlane            */ \
	SHLQ    $2, AX;                           /* in bytes               */ \
	ADDQ    AX, gXP;                          /* next input plane       */ \
	MOVQ    gPlane+184(FP), AX;               /* AX = gPlane            */ \
	SHLQ    $2, AX;                           /* in bytes               */ \
	ADDQ    AX, gGP;                          /* next gradient plane    */ \
	DECQ    gPlanes;                          /* a plane done           */ \
	JNZ     planeLoop;                        /* more?                  */ \
	MOVQ    gVStr, AX;                        /* the next vector's      */ \
	ADDQ    AX, gVec;                         /* entries                */ \
	ADDQ    $(VL*4), gColB;                   /* and columns            */ \
	DECQ    gVecs;                            /* a vector done          */ \
	JNZ     vecLoop;                          /* more?                  */ \
store: \
	SUMS;                                     /* the chunk's sums       */ \
	ADDQ    $(3*VL*4), gAcc;                  /* next chunk's           */ \
	MOVQ    gChunk, AX;                       /* AX = chunk             */ \
	INCQ    AX;                               /* next                   */ \
	MOVQ    AX, gChunk;                       /* gChunk                 */ \
	CMPQ    AX, nch+216(FP);                  /* any left?              */ \
	JLT     chunkLoop;                        /* then do it             */ \
	MOVQ    gKRow, AX;                        /* AX = kh                */ \
	INCQ    AX;                               /* next kernel row        */ \
	MOVQ    AX, gKRow;                        /* gKRow                  */ \
	CMPQ    AX, rowOff_len+56(FP);            /* any left?              */ \
	JLT     kernelRow;                        /* then do it             */ \
	VZEROUPPER;                               /* clean AVX state        */ \
	RET

// The AVX2 steps: Y0–Y2 the first rows' sums of the chunk's three taps,
// Y3–Y5 the second rows', Y6 and Y7 the two rows' gy (zero past ow), Y8
// and Y9 their inputs (zero off the tap's lanes), Y10–Y12 the taps' lane
// masks, Y13 the output's.
#define ZEROY \
	VXORPS       Y0, Y0, Y0;                  /* sums = 0               */ \
	VXORPS       Y1, Y1, Y1;                  /*                        */ \
	VXORPS       Y2, Y2, Y2;                  /*                        */ \
	VXORPS       Y3, Y3, Y3;                  /*                        */ \
	VXORPS       Y4, Y4, Y4;                  /*                        */ \
	VXORPS       Y5, Y5, Y5                   /*                        */
#define MASKSY \
	VMOVDQU      (gEnt), Y13;                 /* Y13 = columns < ow     */ \
	VMOVDQU      48(gEnt), Y10;               /* Y10 = tap 0's lanes    */ \
	VMOVDQU      96(gEnt), Y11;               /* Y11 = tap 1's          */ \
	VMOVDQU      144(gEnt), Y12               /* Y12 = tap 2's          */
#define TAP2Y(off, m, s0, s1) \
	VMASKMOVPS   (gX0)(off*1), m, Y8;         /* Y8 = first row's x     */ \
	VMASKMOVPS   (gX1)(off*1), m, Y9;         /* Y9 = second row's x    */ \
	VFMADD231PS  Y8, Y6, s0;                  /* s0 += gy·x             */ \
	VFMADD231PS  Y9, Y7, s1                   /* s1 += gy·x             */
#define TAP1Y(off, m, s0) \
	VMASKMOVPS   (gX0)(off*1), m, Y8;         /* Y8 = the row's x       */ \
	VFMADD231PS  Y8, Y6, s0                   /* s0 += gy·x             */
#define PAIRY \
	VMASKMOVPS   (gG), Y13, Y6;               /* Y6 = the first row's gy */ \
	VMASKMOVPS   (gG)(gOwB*1), Y13, Y7;       /* Y7 = the second's      */ \
	TAP2Y(gO0, Y10, Y0, Y3);                  /* the chunk's tap 0      */ \
	TAP2Y(gO1, Y11, Y1, Y4);                  /* tap 1                  */ \
	TAP2Y(gO2, Y12, Y2, Y5)                   /* tap 2                  */
#define ONEY \
	VMASKMOVPS   (gG), Y13, Y6;               /* Y6 = the row's gy      */ \
	TAP1Y(gO0, Y10, Y0);                      /* the chunk's tap 0      */ \
	TAP1Y(gO1, Y11, Y1);                      /* tap 1                  */ \
	TAP1Y(gO2, Y12, Y2)                       /* tap 2                  */
#define SUMSY \
	VADDPS       Y3, Y0, Y0;                  /* tap 0: both rows' sums */ \
	VADDPS       Y4, Y1, Y1;                  /* tap 1                  */ \
	VADDPS       Y5, Y2, Y2;                  /* tap 2                  */ \
	VMOVUPS      Y0, (gAcc);                  /* acc: tap 0's lanes     */ \
	VMOVUPS      Y1, 32(gAcc);                /* tap 1's                */ \
	VMOVUPS      Y2, 64(gAcc)                 /* tap 2's                */

// The AVX-512 steps: Z0–Z11 the sums of the chunk's three taps for four
// chains of rows (chain c, tap t: Z(3c+t)), Z12–Z15 the rows' gy (zero past
// ow: K2); the fused multiply-adds read x under the taps' lanes K3–K5 (the
// other lanes keep their sums). A pair of rows runs chains 0 and 1 (gy in
// Z6 and Z7 would clobber chain 2: PAIRZ and ONEZ use Z12 and Z13).
#define ZEROZ \
	VXORPS       Z0, Z0, Z0;                  /* sums = 0               */ \
	VXORPS       Z1, Z1, Z1;                  /*                        */ \
	VXORPS       Z2, Z2, Z2;                  /*                        */ \
	VXORPS       Z3, Z3, Z3;                  /*                        */ \
	VXORPS       Z4, Z4, Z4;                  /*                        */ \
	VXORPS       Z5, Z5, Z5;                  /*                        */ \
	VXORPS       Z6, Z6, Z6;                  /*                        */ \
	VXORPS       Z7, Z7, Z7;                  /*                        */ \
	VXORPS       Z8, Z8, Z8;                  /*                        */ \
	VXORPS       Z9, Z9, Z9;                  /*                        */ \
	VXORPS       Z10, Z10, Z10;               /*                        */ \
	VXORPS       Z11, Z11, Z11                /*                        */
#define QUADZ \
	VMOVUPS.Z    (gG), K2, Z12;               /* Z12 = row 0's gy       */ \
	VMOVUPS.Z    (gG)(gOwB*1), K2, Z13;       /* Z13 = row 1's          */ \
	LEAQ         (gG)(gOwB*2), gTmp;          /* gTmp = row 2's         */ \
	VMOVUPS.Z    (gTmp), K2, Z14;             /* Z14 = row 2's gy       */ \
	VMOVUPS.Z    (gTmp)(gOwB*1), K2, Z15;     /* Z15 = row 3's          */ \
	VFMADD231PS  (gX0)(gO0*1), Z12, K3, Z0;   /* tap 0, chain 0         */ \
	VFMADD231PS  (gX1)(gO0*1), Z13, K3, Z3;   /* chain 1                */ \
	VFMADD231PS  (gX2)(gO0*1), Z14, K3, Z6;   /* chain 2                */ \
	VFMADD231PS  (gX3)(gO0*1), Z15, K3, Z9;   /* chain 3                */ \
	VFMADD231PS  (gX0)(gO1*1), Z12, K4, Z1;   /* tap 1                  */ \
	VFMADD231PS  (gX1)(gO1*1), Z13, K4, Z4;   /*                        */ \
	VFMADD231PS  (gX2)(gO1*1), Z14, K4, Z7;   /*                        */ \
	VFMADD231PS  (gX3)(gO1*1), Z15, K4, Z10;  /*                        */ \
	VFMADD231PS  (gX0)(gO2*1), Z12, K5, Z2;   /* tap 2                  */ \
	VFMADD231PS  (gX1)(gO2*1), Z13, K5, Z5;   /*                        */ \
	VFMADD231PS  (gX2)(gO2*1), Z14, K5, Z8;   /*                        */ \
	VFMADD231PS  (gX3)(gO2*1), Z15, K5, Z11   /*                        */
#define MASKSZ \
	KMOVW        (gEnt), K2;                  /* K2 = columns < ow      */ \
	KMOVW        48(gEnt), K3;                /* K3 = tap 0's lanes     */ \
	KMOVW        96(gEnt), K4;                /* K4 = tap 1's           */ \
	KMOVW        144(gEnt), K5                /* K5 = tap 2's           */
#define PAIRZ \
	VMOVUPS.Z    (gG), K2, Z12;                /* Z12 = the first row's gy */ \
	VMOVUPS.Z    (gG)(gOwB*1), K2, Z13;        /* Z13 = the second's      */ \
	VFMADD231PS  (gX0)(gO0*1), Z12, K3, Z0;    /* tap 0, first row       */ \
	VFMADD231PS  (gX1)(gO0*1), Z13, K3, Z3;    /* second row             */ \
	VFMADD231PS  (gX0)(gO1*1), Z12, K4, Z1;    /* tap 1                  */ \
	VFMADD231PS  (gX1)(gO1*1), Z13, K4, Z4;    /*                        */ \
	VFMADD231PS  (gX0)(gO2*1), Z12, K5, Z2;    /* tap 2                  */ \
	VFMADD231PS  (gX1)(gO2*1), Z13, K5, Z5     /*                        */
#define ONEZ \
	VMOVUPS.Z    (gG), K2, Z12;                /* Z12 = the row's gy      */ \
	VFMADD231PS  (gX0)(gO0*1), Z12, K3, Z0;    /* tap 0                  */ \
	VFMADD231PS  (gX0)(gO1*1), Z12, K4, Z1;    /* tap 1                  */ \
	VFMADD231PS  (gX0)(gO2*1), Z12, K5, Z2     /* tap 2                  */
#define SUMSZ \
	VADDPS       Z6, Z0, Z0;                  /* tap 0: chains 0 + 2    */ \
	VADDPS       Z9, Z3, Z3;                  /* chains 1 + 3           */ \
	VADDPS       Z3, Z0, Z0;                  /* all four               */ \
	VADDPS       Z7, Z1, Z1;                  /* tap 1                  */ \
	VADDPS       Z10, Z4, Z4;                 /*                        */ \
	VADDPS       Z4, Z1, Z1;                  /*                        */ \
	VADDPS       Z8, Z2, Z2;                  /* tap 2                  */ \
	VADDPS       Z11, Z5, Z5;                 /*                        */ \
	VADDPS       Z5, Z2, Z2;                  /*                        */ \
	VMOVUPS      Z0, (gAcc);                  /* acc: tap 0's lanes     */ \
	VMOVUPS      Z1, 64(gAcc);                /* tap 1's                */ \
	VMOVUPS      Z2, 128(gAcc)                /* tap 2's                */


// func dwConvAVX2(dst, x, w []float32, rowOff []int, tab []uint64, blk []int, zero []float32, n, xPlane, dPlane, h, ow, ldx, kw int, init float32)
TEXT ·dwConvAVX2(SB), NOSPLIT, $80-228
	VBROADCASTSS init+224(FP), Y9             // Y9 = init
	DWCONV(8, 3, INITY, TAPY, TAP7Y, TAPSY, WHOLEY, MASKEDY)

// func dwConvAVX512(dst, x, w []float32, rowOff []int, tab []uint64, blk []int, zero []float32, n, xPlane, dPlane, h, ow, ldx, kw int, init float32)
TEXT ·dwConvAVX512(SB), NOSPLIT, $80-228
	VBROADCASTSS init+224(FP), Z9             // Z9 = init
	DWCONV(16, 4, INITZ, TAPZ, TAP7Z, TAPSZ, WHOLEZ, MASKEDZ)

// func dwGradAVX2(gy, x []float32, rowOff, rowLo, rowHi []int, tab []uint64, acc []float32, n, xPlane, gPlane, ow, sh, ldx, nch, nvec int)
TEXT ·dwGradAVX2(SB), NOSPLIT, $128-232
	DWGRAD(8, 0x7fffffff, ZEROY, MASKSY, NOP, PAIRY, ONEY, SUMSY)

// func dwGradAVX512(gy, x []float32, rowOff, rowLo, rowHi []int, tab []uint64, acc []float32, n, xPlane, gPlane, ow, sh, ldx, nch, nvec int)
TEXT ·dwGradAVX512(SB), NOSPLIT, $128-232
	DWGRAD(16, 4, ZEROZ, MASKSZ, QUADZ, PAIRZ, ONEZ, SUMSZ)

// ---------------------------------------------------------------------
// Forward, three consecutive kernel rows of three taps, row stride 1:
// dwConv3AVX512(dst, x, w, tab, blk, n, xPlane, dPlane, ow, ldx, init).
// The same sums as dwConvAVX512, in the same order, with each input
// vector loaded once for the three output rows it reaches: each block of
// eight output rows (blk, whose blocks are consecutive rows here) reads a
// window of ten input rows (from the block's first row + rowOff[0]; at
// 216 of its entry in bytes, at 208 the bits of the window rows inside
// the image). Window row j's three taps are loaded under their lane masks
// and added, by fused multiply-adds under the same masks, to the output
// rows j, j−1 and j−2 of the block with kernel rows 0, 1 and 2: each
// output row receives its taps kernel row by kernel row, kernel column by
// kernel column, as dwConvGo adds them. A window row outside the image is
// skipped (its taps are left out). A block of seven computes an eighth
// row it does not store.

// Register roles.
#define cWin  BX  // the window row in hand
#define cLdxB R8  // an input row in bytes
#define cO0   R9  // tap 0's byte offset in its row; scratch when storing
#define cO1   R10 // tap 1's
#define cO2   R11 // tap 2's
#define cX    R12 // the input plane
#define cD    R13 // the output plane
#define cBits R14 // the window rows inside the image
#define cEnt  DI  // the vector's entries
#define cBlk  SI  // the block's entry
#define cCol  DX  // the vector's first column
#define cN    CX  // planes left

// The steps: Z0–Z7 the block's sums, Z8–Z10 the window row's taps (zero
// off their lanes K1–K3), Z15 init, Z16–Z24 the weights (kernel row kh,
// column kw: Z(16+3·kh+kw)), K4 the output's lanes.
#define LOAD3 \
	VMOVUPS.Z    (cWin)(cO0*1), K1, Z8;       /* Z8 = tap 0's x          */ \
	VMOVUPS.Z    (cWin)(cO1*1), K2, Z9;       /* Z9 = tap 1's            */ \
	VMOVUPS.Z    (cWin)(cO2*1), K3, Z10       /* Z10 = tap 2's           */
#define KROW0(s) \
	VFMADD231PS  Z8, Z16, K1, s;              /* s += w[0][0]·x          */ \
	VFMADD231PS  Z9, Z17, K2, s;              /* s += w[0][1]·x          */ \
	VFMADD231PS  Z10, Z18, K3, s              /* s += w[0][2]·x          */
#define KROW1(s) \
	VFMADD231PS  Z8, Z19, K1, s;              /* s += w[1][0]·x          */ \
	VFMADD231PS  Z9, Z20, K2, s;              /* s += w[1][1]·x          */ \
	VFMADD231PS  Z10, Z21, K3, s              /* s += w[1][2]·x          */
#define KROW2(s) \
	VFMADD231PS  Z8, Z22, K1, s;              /* s += w[2][0]·x          */ \
	VFMADD231PS  Z9, Z23, K2, s;              /* s += w[2][1]·x          */ \
	VFMADD231PS  Z10, Z24, K3, s              /* s += w[2][2]·x          */
#define STORE3(off, s) \
	MOVQ         off(cBlk), cO0;              /* the row's offset        */ \
	VMOVUPS      s, (AX)(cO0*1)               /* store it whole          */
#define STORE3M(off, s) \
	MOVQ         off(cBlk), cO0;              /* the row's offset        */ \
	VMOVUPS      s, K4, (AX)(cO0*1)           /* store its lanes < ow    */

// func dwConv3AVX512(dst, x, w []float32, tab []uint64, blk []int, n, xPlane, dPlane, ow, ldx int, init float32)
TEXT ·dwConv3AVX512(SB), NOSPLIT, $0-164
	MOVQ         n+120(FP), cN                // cN = n
	TESTQ        cN, cN                       // no planes?
	JZ           done3                        // then nothing
	MOVQ         w_base+48(FP), AX            // AX = w
	VBROADCASTSS 0(AX), Z16                   // the nine weights
	VBROADCASTSS 4(AX), Z17
	VBROADCASTSS 8(AX), Z18
	VBROADCASTSS 12(AX), Z19
	VBROADCASTSS 16(AX), Z20
	VBROADCASTSS 20(AX), Z21
	VBROADCASTSS 24(AX), Z22
	VBROADCASTSS 28(AX), Z23
	VBROADCASTSS 32(AX), Z24
	VBROADCASTSS init+160(FP), Z15            // Z15 = init
	MOVQ         ldx+152(FP), cLdxB           // cLdxB = ldx
	SHLQ         $2, cLdxB                    // in bytes
	MOVQ         x_base+24(FP), cX            // cX = x
	MOVQ         dst_base+0(FP), cD           // cD = dst

plane3:
	MOVQ         blk_base+96(FP), cBlk        // the first block

block3:
	MOVQ         ow+144(FP), AX               // AX = ow
	DECQ         AX                           // the last column
	SHRQ         $4, AX                       // its vector
	MOVQ         AX, cCol                     // cCol = its first column
	SHLQ         $4, cCol
	IMULQ        $192, AX                     // its entries (four a vector)
	ADDQ         tab_base+72(FP), AX
	MOVQ         AX, cEnt                     // cEnt

vector3:
	KMOVW        0(cEnt), K1                  // K1–K3 = the taps' lanes
	KMOVW        48(cEnt), K2
	KMOVW        96(cEnt), K3
	MOVQ         32(cEnt), cO0                // the taps' byte offsets
	MOVQ         80(cEnt), cO1
	MOVQ         128(cEnt), cO2
	VMOVAPS      Z15, Z0                      // the sums = init
	VMOVAPS      Z15, Z1
	VMOVAPS      Z15, Z2
	VMOVAPS      Z15, Z3
	VMOVAPS      Z15, Z4
	VMOVAPS      Z15, Z5
	VMOVAPS      Z15, Z6
	VMOVAPS      Z15, Z7
	MOVQ         208(cBlk), cBits             // cBits = the rows inside
	MOVQ         216(cBlk), cWin              // cWin = window row 0
	ADDQ         cX, cWin                     // in the plane

	BTL          $0, cBits                    // window row 0 inside?
	JCC          w0                           // no: left out
	LOAD3
	KROW0(Z0)                                 // row 0, kernel row 0
w0:
	ADDQ         cLdxB, cWin                  // window row 1
	BTL          $1, cBits
	JCC          w1
	LOAD3
	KROW0(Z1)
	KROW1(Z0)
w1:
	ADDQ         cLdxB, cWin                  // window row 2
	BTL          $2, cBits
	JCC          w2
	LOAD3
	KROW0(Z2)
	KROW1(Z1)
	KROW2(Z0)
w2:
	ADDQ         cLdxB, cWin                  // window row 3
	BTL          $3, cBits
	JCC          w3
	LOAD3
	KROW0(Z3)
	KROW1(Z2)
	KROW2(Z1)
w3:
	ADDQ         cLdxB, cWin                  // window row 4
	BTL          $4, cBits
	JCC          w4
	LOAD3
	KROW0(Z4)
	KROW1(Z3)
	KROW2(Z2)
w4:
	ADDQ         cLdxB, cWin                  // window row 5
	BTL          $5, cBits
	JCC          w5
	LOAD3
	KROW0(Z5)
	KROW1(Z4)
	KROW2(Z3)
w5:
	ADDQ         cLdxB, cWin                  // window row 6
	BTL          $6, cBits
	JCC          w6
	LOAD3
	KROW0(Z6)
	KROW1(Z5)
	KROW2(Z4)
w6:
	ADDQ         cLdxB, cWin                  // window row 7
	BTL          $7, cBits
	JCC          w7
	LOAD3
	KROW0(Z7)
	KROW1(Z6)
	KROW2(Z5)
w7:
	ADDQ         cLdxB, cWin                  // window row 8
	BTL          $8, cBits
	JCC          w8
	LOAD3
	KROW1(Z7)
	KROW2(Z6)
w8:
	ADDQ         cLdxB, cWin                  // window row 9
	BTL          $9, cBits
	JCC          w9
	LOAD3
	KROW2(Z7)
w9:
	LEAQ         (cD)(cCol*4), AX             // AX = the plane at the column
	LEAQ         16(cCol), cO1                // cO1 = the vector's end
	CMPQ         cO1, 192(cBlk)               // past the whole stores?
	JGT          masked3                      // then masked
	STORE3(128, Z0)                           // rows 0–6
	STORE3(136, Z1)
	STORE3(144, Z2)
	STORE3(152, Z3)
	STORE3(160, Z4)
	STORE3(168, Z5)
	STORE3(176, Z6)
	CMPQ         200(cBlk), $8                // a block of seven?
	JLT          stored3                      // then row 7 is not one
	STORE3(184, Z7)
	JMP          stored3

masked3:
	KMOVW        144(cEnt), K4                // K4 = columns < ow
	STORE3M(128, Z0)
	STORE3M(136, Z1)
	STORE3M(144, Z2)
	STORE3M(152, Z3)
	STORE3M(160, Z4)
	STORE3M(168, Z5)
	STORE3M(176, Z6)
	CMPQ         200(cBlk), $8
	JLT          stored3
	STORE3M(184, Z7)

stored3:
	SUBQ         $192, cEnt                   // the previous vector
	SUBQ         $16, cCol
	JGE          vector3                      // any left?
	ADDQ         $256, cBlk                   // the next block
	MOVQ         blk_base+96(FP), AX          // AX = blk's end
	MOVQ         blk_len+104(FP), cO0
	LEAQ         (AX)(cO0*8), AX
	CMPQ         cBlk, AX                     // any blocks left?
	JLT          block3
	MOVQ         xPlane+128(FP), AX           // the next planes
	LEAQ         (cX)(AX*4), cX
	MOVQ         dPlane+136(FP), AX
	LEAQ         (cD)(AX*4), cD
	DECQ         cN                           // a plane done
	JNZ          plane3

done3:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------
// Weight gradient, three consecutive kernel rows of three taps, row
// stride 1: dwGrad3AVX512(gy, x, tab, acc, n, xPlane, gPlane, ow, oh,
// ldx, pre, xStart, steps, nvec) (its twin: dwGrad3Go). For each vector of
// columns and each plane, the input rows are walked down once: each input
// row's three taps are loaded under their lane masks (tab: the forward
// table, dwEntries) and multiplied with the output gradient rows that
// kernel rows 0, 1 and 2 pair with it, the last three rows of gy held in
// registers (zero past the plane's last row: a zero product then, as the
// first pre steps, whose input rows are above the image, only load gy).
// Each tap's products go to two chains, of the even and the odd output
// rows; at the end of a plane the chains are added and added to the
// tap's total at acc (zero at the start).

// Register roles.
#define hXr   BX  // the input row in hand
#define hGr   DX  // the next output gradient row, at the vector
#define hOwB  R8  // an output row in bytes
#define hO0   R9  // tap 0's byte offset in its row
#define hO1   R10 // tap 1's
#define hO2   R11 // tap 2's
#define hLdxB R12 // an input row in bytes
#define hCnt  R13 // steps left
#define hLeft R14 // gy rows left
#define hEnt  DI  // the vector's entries
#define hAcc  SI  // the partial sums
#define hN    CX  // planes left

// Frame locals.
#define hXP   xPlaneL-8(SP)   // the input plane
#define hGP   gPlaneL-16(SP)  // the gradient plane
#define hVecs vecsLeft-24(SP) // vectors left
#define hColB colBytes-32(SP) // the vector's first column in bytes

// The steps: Z0–Z8 the even rows' chains of the taps (kernel row kh,
// column kw: Z(3·kh+kw)), Z9–Z17 the odd rows', Z18–Z20 the gy rows that
// kernel rows 0, 1 and 2 pair with the input row in hand, Z21–Z23 its
// taps' x (zero off their lanes K1–K3); K4 the output's lanes.
#define NEXTG \
	VMOVAPS      Z19, Z20;                    /* kernel row 2's gy       */ \
	VMOVAPS      Z18, Z19;                    /* kernel row 1's          */ \
	VXORPS       Z18, Z18, Z18;               /* kernel row 0's: zero    */ \
	DECQ         hLeft;                       /* past the last row?      */ \
	JS           3(PC);                       /* then it stays zero      */ \
	VMOVUPS.Z    (hGr), K4, Z18;              /* or the next gy row      */ \
	ADDQ         hOwB, hGr                    /* and on                  */
#define LOADXT \
	VMOVUPS.Z    (hXr)(hO0*1), K1, Z21;       /* Z21 = tap 0's x         */ \
	VMOVUPS.Z    (hXr)(hO1*1), K2, Z22;       /* Z22 = tap 1's           */ \
	VMOVUPS.Z    (hXr)(hO2*1), K3, Z23;       /* Z23 = tap 2's           */ \
	ADDQ         hLdxB, hXr                   /* the next input row      */
#define GROW(g, s0, s1, s2) \
	VFMADD231PS  Z21, g, K1, s0;              /* s0 += gy·x, tap 0       */ \
	VFMADD231PS  Z22, g, K2, s1;              /* tap 1                   */ \
	VFMADD231PS  Z23, g, K3, s2               /* tap 2                   */
#define FLUSH(e, o, off) \
	VADDPS       o, e, e;                     /* even + odd rows         */ \
	VADDPS       off(hAcc), e, e;             /* + the total             */ \
	VMOVUPS      e, off(hAcc)                 /* the total               */

// func dwGrad3AVX512(gy, x []float32, tab []uint64, acc []float32, n, xPlane, gPlane, ow, oh, ldx, pre, xStart, steps, nvec int)
TEXT ·dwGrad3AVX512(SB), NOSPLIT, $32-176
	MOVQ         acc_base+72(FP), hAcc        // acc = 0
	VXORPS       Z0, Z0, Z0
	VMOVUPS      Z0, 0(hAcc)
	VMOVUPS      Z0, 64(hAcc)
	VMOVUPS      Z0, 128(hAcc)
	VMOVUPS      Z0, 192(hAcc)
	VMOVUPS      Z0, 256(hAcc)
	VMOVUPS      Z0, 320(hAcc)
	VMOVUPS      Z0, 384(hAcc)
	VMOVUPS      Z0, 448(hAcc)
	VMOVUPS      Z0, 512(hAcc)
	CMPQ         n+96(FP), $0                 // no planes?
	JLE          done4
	MOVQ         ow+120(FP), hOwB             // hOwB = ow in bytes
	SHLQ         $2, hOwB
	MOVQ         tab_base+48(FP), hEnt        // vector 0's entries
	MOVQ         ldx+136(FP), hLdxB           // hLdxB = ldx in bytes
	SHLQ         $2, hLdxB
	MOVQ         nvec+168(FP), AX             // hVecs = nvec
	MOVQ         AX, hVecs
	MOVQ         $0, hColB                    // hColB = 0

vector4:
	KMOVW        0(hEnt), K1                  // K1–K3 = the taps' lanes
	KMOVW        48(hEnt), K2
	KMOVW        96(hEnt), K3
	KMOVW        144(hEnt), K4                // K4 = columns < ow
	MOVQ         32(hEnt), hO0                // the taps' byte offsets
	MOVQ         80(hEnt), hO1
	MOVQ         128(hEnt), hO2
	MOVQ         x_base+24(FP), AX            // the first planes
	MOVQ         AX, hXP
	MOVQ         gy_base+0(FP), AX
	MOVQ         AX, hGP
	MOVQ         n+96(FP), hN                 // hN = n

plane4:
	VXORPS       Z0, Z0, Z0                   // the chains = 0
	VXORPS       Z1, Z1, Z1
	VXORPS       Z2, Z2, Z2
	VXORPS       Z3, Z3, Z3
	VXORPS       Z4, Z4, Z4
	VXORPS       Z5, Z5, Z5
	VXORPS       Z6, Z6, Z6
	VXORPS       Z7, Z7, Z7
	VXORPS       Z8, Z8, Z8
	VXORPS       Z9, Z9, Z9
	VXORPS       Z10, Z10, Z10
	VXORPS       Z11, Z11, Z11
	VXORPS       Z12, Z12, Z12
	VXORPS       Z13, Z13, Z13
	VXORPS       Z14, Z14, Z14
	VXORPS       Z15, Z15, Z15
	VXORPS       Z16, Z16, Z16
	VXORPS       Z17, Z17, Z17
	VXORPS       Z18, Z18, Z18                // no gy rows yet
	VXORPS       Z19, Z19, Z19
	MOVQ         hGP, hGr                     // hGr = gy's row 0
	ADDQ         hColB, hGr                   // at the vector
	MOVQ         hXP, hXr                     // hXr = the first input row
	ADDQ         xStart+152(FP), hXr
	MOVQ         oh+128(FP), hLeft            // hLeft = oh
	MOVQ         pre+144(FP), hCnt            // hCnt = pre
	JMP          preTest4

preStep4:
	NEXTG                                     // gy rows above the image
preTest4:
	DECQ         hCnt
	JNS          preStep4
	MOVQ         steps+160(FP), hCnt          // hCnt = steps
	MOVQ         pre+144(FP), AX              // even or odd first?
	BTL          $0, AX
	JCS          odd4

even4:
	DECQ         hCnt                         // a step left?
	JS           flush4
	NEXTG
	LOADXT
	GROW(Z18, Z0, Z1, Z2)                     // kernel row 0: even
	GROW(Z19, Z12, Z13, Z14)                  // kernel row 1: odd
	GROW(Z20, Z6, Z7, Z8)                     // kernel row 2: even
odd4:
	DECQ         hCnt
	JS           flush4
	NEXTG
	LOADXT
	GROW(Z18, Z9, Z10, Z11)                   // kernel row 0: odd
	GROW(Z19, Z3, Z4, Z5)                     // kernel row 1: even
	GROW(Z20, Z15, Z16, Z17)                  // kernel row 2: odd
	JMP          even4

flush4:
	FLUSH(Z0, Z9, 0)                          // the taps' totals
	FLUSH(Z1, Z10, 64)
	FLUSH(Z2, Z11, 128)
	FLUSH(Z3, Z12, 192)
	FLUSH(Z4, Z13, 256)
	FLUSH(Z5, Z14, 320)
	FLUSH(Z6, Z15, 384)
	FLUSH(Z7, Z16, 448)
	FLUSH(Z8, Z17, 512)
	MOVQ         xPlane+104(FP), AX           // the next planes
	SHLQ         $2, AX
	ADDQ         AX, hXP
	MOVQ         gPlane+112(FP), AX
	SHLQ         $2, AX
	ADDQ         AX, hGP
	DECQ         hN
	JNZ          plane4
	ADDQ         $192, hEnt                   // the next vector
	ADDQ         $64, hColB
	DECQ         hVecs
	JNZ          vector4

done4:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------
// Input gradient of a 3×3 depthwise convolution of stride 2, padding 1,
// of planes of 2·oh × 2·ow: dwInputS2AVX512(gx, gy, w, masks, n, gxPlane,
// gPlane, oh, ow) (its twin: dwInputS2Go). For each vector of 16 columns
// j of gy and each row i, the four phases of gx's rows 2i and 2i+1 and
// columns 2j and 2j+1 are summed from gy's rows i and i+1 at columns j
// and j+1 (those inside: masks K2 and the last row's test), the taps
// flipped, as the phase planes of device/cpu's strided path sum them,
// and each row's two column phases interleaved (VPERMT2PS) and stored
// straight into gx. masks holds, for each vector, the lanes of gy's
// columns, of the columns j+1 inside, and of the two stores.

DATA dwS2Idx<>+0(SB)/4, $0
DATA dwS2Idx<>+4(SB)/4, $16
DATA dwS2Idx<>+8(SB)/4, $1
DATA dwS2Idx<>+12(SB)/4, $17
DATA dwS2Idx<>+16(SB)/4, $2
DATA dwS2Idx<>+20(SB)/4, $18
DATA dwS2Idx<>+24(SB)/4, $3
DATA dwS2Idx<>+28(SB)/4, $19
DATA dwS2Idx<>+32(SB)/4, $4
DATA dwS2Idx<>+36(SB)/4, $20
DATA dwS2Idx<>+40(SB)/4, $5
DATA dwS2Idx<>+44(SB)/4, $21
DATA dwS2Idx<>+48(SB)/4, $6
DATA dwS2Idx<>+52(SB)/4, $22
DATA dwS2Idx<>+56(SB)/4, $7
DATA dwS2Idx<>+60(SB)/4, $23
DATA dwS2Idx<>+64(SB)/4, $8
DATA dwS2Idx<>+68(SB)/4, $24
DATA dwS2Idx<>+72(SB)/4, $9
DATA dwS2Idx<>+76(SB)/4, $25
DATA dwS2Idx<>+80(SB)/4, $10
DATA dwS2Idx<>+84(SB)/4, $26
DATA dwS2Idx<>+88(SB)/4, $11
DATA dwS2Idx<>+92(SB)/4, $27
DATA dwS2Idx<>+96(SB)/4, $12
DATA dwS2Idx<>+100(SB)/4, $28
DATA dwS2Idx<>+104(SB)/4, $13
DATA dwS2Idx<>+108(SB)/4, $29
DATA dwS2Idx<>+112(SB)/4, $14
DATA dwS2Idx<>+116(SB)/4, $30
DATA dwS2Idx<>+120(SB)/4, $15
DATA dwS2Idx<>+124(SB)/4, $31
GLOBL dwS2Idx<>(SB), RODATA|NOPTR, $128

// Register roles.
#define sG    BX  // gy's row i, at the vector
#define sX    DX  // gx's row 2i, at the vector
#define sOwB  R8  // a gy row in bytes
#define sWB   R9  // a gx row in bytes
#define sRows R10 // gy rows left
#define sMask R11 // the vector's masks
#define sVecs R12 // vectors left
#define sGP   R13 // the gy plane
#define sXP   R14 // the gx plane
#define sN    CX  // planes left
#define sCol  SI  // the vector's first column in bytes (of gy)

// The steps: Z0 and Z1 gy's row i at columns j and j+1, Z2 and Z3 row
// i+1's, Z4–Z7 the phases (even and odd rows, even and odd columns),
// Z8 and Z9 a row's interleaved halves, Z16–Z24 the weights (w[kh][kw]:
// Z(16+3·kh+kw)), Z25 and Z26 the interleaving's indices.
#define S2ROWI \
	VXORPS       Z4, Z4, Z4;                  /* the phases = 0          */ \
	VXORPS       Z5, Z5, Z5;                                                \
	VXORPS       Z6, Z6, Z6;                                                \
	VXORPS       Z7, Z7, Z7;                                                \
	VFMADD231PS  Z0, Z20, Z4;                 /* even, even: w11·g       */ \
	VFMADD231PS  Z0, Z21, Z5;                 /* even, odd: w12·g        */ \
	VFMADD231PS  Z1, Z19, K2, Z5;             /* + w10·g(j+1)            */ \
	VFMADD231PS  Z0, Z23, Z6;                 /* odd, even: w21·g        */ \
	VFMADD231PS  Z0, Z24, Z7;                 /* odd, odd: w22·g         */ \
	VFMADD231PS  Z1, Z22, K2, Z7              /* + w20·g(j+1)            */
#define S2ROWI1 \
	VFMADD231PS  Z2, Z17, Z6;                 /* odd, even: + w01·g(i+1) */ \
	VFMADD231PS  Z2, Z18, Z7;                 /* odd, odd: + w02·g(i+1)  */ \
	VFMADD231PS  Z3, Z16, K2, Z7              /* + w00·g(i+1, j+1)       */
#define S2STORE(e, o, off) \
	VMOVAPS      e, Z8;                       /* interleave e and o      */ \
	VPERMT2PS    o, Z25, Z8;                  /* columns 0–15            */ \
	VMOVAPS      e, Z9;                                                     \
	VPERMT2PS    o, Z26, Z9;                  /* columns 16–31           */ \
	VMOVUPS      Z8, K3, off(sX);             /* store                   */ \
	VMOVUPS      Z9, K4, 64+off(sX)

// func dwInputS2AVX512(gx, gy, w []float32, masks []uint64, n, gxPlane, gPlane, oh, ow int)
TEXT ·dwInputS2AVX512(SB), NOSPLIT, $0-136
	MOVQ         n+96(FP), sN                 // sN = n
	TESTQ        sN, sN                       // no planes?
	JZ           done5
	MOVQ         w_base+48(FP), AX            // the nine weights
	VBROADCASTSS 0(AX), Z16
	VBROADCASTSS 4(AX), Z17
	VBROADCASTSS 8(AX), Z18
	VBROADCASTSS 12(AX), Z19
	VBROADCASTSS 16(AX), Z20
	VBROADCASTSS 20(AX), Z21
	VBROADCASTSS 24(AX), Z22
	VBROADCASTSS 28(AX), Z23
	VBROADCASTSS 32(AX), Z24
	VMOVDQU32    dwS2Idx<>+0(SB), Z25         // the interleavings
	VMOVDQU32    dwS2Idx<>+64(SB), Z26
	MOVQ         ow+128(FP), sOwB             // sOwB = ow in bytes
	SHLQ         $2, sOwB
	LEAQ         (sOwB)(sOwB*1), sWB          // sWB = 2·ow in bytes
	MOVQ         gy_base+24(FP), sGP          // the first planes
	MOVQ         gx_base+0(FP), sXP

plane5:
	MOVQ         masks_base+72(FP), sMask     // vector 0's masks
	MOVQ         ow+128(FP), sVecs            // sVecs = its vectors
	ADDQ         $15, sVecs
	SHRQ         $4, sVecs
	MOVQ         $0, sCol                     // sCol = 0

vector5:
	KMOVW        0(sMask), K1                 // K1 = gy's columns
	KMOVW        8(sMask), K2                 // K2 = its columns j+1 inside
	KMOVW        16(sMask), K3                // K3, K4 = the stores'
	KMOVW        24(sMask), K4
	LEAQ         (sGP)(sCol*1), sG            // sG = gy's row 0
	LEAQ         (sXP)(sCol*2), sX            // sX = gx's row 0
	VMOVUPS.Z    (sG), K1, Z0                 // row 0 at j
	VMOVUPS.Z    4(sG), K2, Z1                // and j+1
	MOVQ         oh+120(FP), sRows            // sRows = oh

row5:
	DECQ         sRows                        // the last row?
	JZ           last5
	VMOVUPS.Z    (sG)(sOwB*1), K1, Z2         // row i+1 at j
	VMOVUPS.Z    4(sG)(sOwB*1), K2, Z3        // and j+1
	S2ROWI                                    // row i's taps
	S2ROWI1                                   // row i+1's
	S2STORE(Z4, Z5, 0)                        // gx's row 2i
	ADDQ         sWB, sX
	S2STORE(Z6, Z7, 0)                        // row 2i+1
	ADDQ         sWB, sX
	VMOVAPS      Z2, Z0                       // row i+1 is next
	VMOVAPS      Z3, Z1
	ADDQ         sOwB, sG
	JMP          row5

last5:
	S2ROWI                                    // row i's taps alone
	S2STORE(Z4, Z5, 0)
	ADDQ         sWB, sX
	S2STORE(Z6, Z7, 0)
	ADDQ         $32, sMask                   // the next vector
	ADDQ         $64, sCol
	DECQ         sVecs
	JNZ          vector5
	MOVQ         gPlane+112(FP), AX           // the next planes
	LEAQ         (sGP)(AX*4), sGP
	MOVQ         gxPlane+104(FP), AX
	LEAQ         (sXP)(AX*4), sXP
	DECQ         sN
	JNZ          plane5

done5:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------
// Weight gradient of a 3×3 depthwise convolution of stride 2, padding 1,
// of planes of 2·oh × 2·ow: dwGradS2AVX512(gy, x, acc, masks, n, xPlane,
// gPlane, oh, ow) (its twin: dwGradS2Go). For each vector of 16 columns j
// of gy and each plane, gy's rows are walked down once; each input row
// is read as 32 columns from 2j and from 2j−1 and split (VPERMI2PS) into
// its columns 2j−1, 2j and 2j+1, the three taps of a kernel row: input
// row 2i's with gy's row i (kernel row 1), row 2i+1's with rows i (kernel
// row 2) and i+1 (kernel row 0, held for the next step). One chain a tap
// a plane, added to the tap's total at acc (zero at the start). masks
// holds, for each vector, the lanes of tap 0 (the columns inside from
// 2j−1), of gy's columns, and of the four loads of an input row.

DATA dwS2Split<>+0(SB)/4, $0
DATA dwS2Split<>+4(SB)/4, $2
DATA dwS2Split<>+8(SB)/4, $4
DATA dwS2Split<>+12(SB)/4, $6
DATA dwS2Split<>+16(SB)/4, $8
DATA dwS2Split<>+20(SB)/4, $10
DATA dwS2Split<>+24(SB)/4, $12
DATA dwS2Split<>+28(SB)/4, $14
DATA dwS2Split<>+32(SB)/4, $16
DATA dwS2Split<>+36(SB)/4, $18
DATA dwS2Split<>+40(SB)/4, $20
DATA dwS2Split<>+44(SB)/4, $22
DATA dwS2Split<>+48(SB)/4, $24
DATA dwS2Split<>+52(SB)/4, $26
DATA dwS2Split<>+56(SB)/4, $28
DATA dwS2Split<>+60(SB)/4, $30
GLOBL dwS2Split<>(SB), RODATA|NOPTR, $64

// Register roles.
#define tG    BX  // gy's row in hand, at the vector
#define tX    DX  // the input row in hand, at column 2j
#define tOwB  R8  // a gy row in bytes
#define tWB   R9  // an input row in bytes
#define tRows R10 // gy rows left
#define tMask R11 // the vector's masks
#define tVecs R12 // vectors left
#define tGP   R13 // the gy plane
#define tXP   R14 // the input plane
#define tN    CX  // planes left
#define tAcc  SI  // the totals
#define tCol  DI  // the vector's first column in bytes (of gy)

// The steps: Z0–Z8 the taps' chains (Z(3·kh+kw)), Z9 gy's row, Z10–Z12
// input row 2i+1's taps (kept for kernel row 0 of the next row), Z17–Z19
// row 2i's, Z13–Z16 the loads, Z20 the even lanes' indices (Z21 the odd
// ones': Z20 + 1); K1 tap 0's lanes, K2 gy's, K3–K6 the loads'.
#define SPLIT(s, e, o) \
	VMOVUPS.Z    (tX), K3, Z13;               /* columns 2j …            */ \
	VMOVUPS.Z    64(tX), K4, Z14;             /* … 2j+31                 */ \
	VMOVUPS.Z    -4(tX), K5, Z15;             /* columns 2j−1 …          */ \
	VMOVUPS.Z    60(tX), K6, Z16;             /* … 2j+30                 */ \
	VMOVAPS      Z20, e;                      /* e = columns 2j          */ \
	VPERMI2PS    Z14, Z13, e;                                               \
	VMOVAPS      Z21, o;                      /* o = columns 2j+1        */ \
	VPERMI2PS    Z14, Z13, o;                                               \
	VMOVAPS      Z20, s;                      /* s = columns 2j−1        */ \
	VPERMI2PS    Z16, Z15, s
#define KROWS2(s, e, o, a0, a1, a2) \
	VFMADD231PS  s, Z9, K1, a0;               /* tap 0 += gy·x           */ \
	VFMADD231PS  e, Z9, K2, a1;               /* tap 1                   */ \
	VFMADD231PS  o, Z9, K2, a2                /* tap 2                   */
#define FLUSH2(a, off) \
	VADDPS       off(tAcc), a, a;             /* the total + the chain   */ \
	VMOVUPS      a, off(tAcc)

// func dwGradS2AVX512(gy, x, acc []float32, masks []uint64, n, xPlane, gPlane, oh, ow int)
TEXT ·dwGradS2AVX512(SB), NOSPLIT, $0-136
	MOVQ         acc_base+48(FP), tAcc        // the totals = 0
	VXORPS       Z0, Z0, Z0
	VMOVUPS      Z0, 0(tAcc)
	VMOVUPS      Z0, 64(tAcc)
	VMOVUPS      Z0, 128(tAcc)
	VMOVUPS      Z0, 192(tAcc)
	VMOVUPS      Z0, 256(tAcc)
	VMOVUPS      Z0, 320(tAcc)
	VMOVUPS      Z0, 384(tAcc)
	VMOVUPS      Z0, 448(tAcc)
	VMOVUPS      Z0, 512(tAcc)
	CMPQ         n+96(FP), $0                 // no planes or rows?
	JLE          done6
	CMPQ         oh+120(FP), $0
	JLE          done6
	VMOVDQU32    dwS2Split<>+0(SB), Z20       // the even lanes
	MOVL         $1, AX                       // Z21 = the odd lanes
	VPBROADCASTD AX, Z21
	VPADDD       Z20, Z21, Z21
	MOVQ         ow+128(FP), tOwB             // tOwB = ow in bytes
	SHLQ         $2, tOwB
	LEAQ         (tOwB)(tOwB*1), tWB          // tWB = 2·ow in bytes
	MOVQ         masks_base+72(FP), tMask     // vector 0's masks
	MOVQ         ow+128(FP), tVecs            // tVecs = its vectors
	ADDQ         $15, tVecs
	SHRQ         $4, tVecs
	MOVQ         $0, tCol

vector6:
	KMOVW        0(tMask), K1                 // the lanes
	KMOVW        8(tMask), K2
	KMOVW        16(tMask), K3
	KMOVW        24(tMask), K4
	KMOVW        32(tMask), K5
	KMOVW        40(tMask), K6
	MOVQ         gy_base+0(FP), tGP           // the first planes
	MOVQ         x_base+24(FP), tXP
	MOVQ         n+96(FP), tN

plane6:
	VXORPS       Z0, Z0, Z0                   // the chains = 0
	VXORPS       Z1, Z1, Z1
	VXORPS       Z2, Z2, Z2
	VXORPS       Z3, Z3, Z3
	VXORPS       Z4, Z4, Z4
	VXORPS       Z5, Z5, Z5
	VXORPS       Z6, Z6, Z6
	VXORPS       Z7, Z7, Z7
	VXORPS       Z8, Z8, Z8
	LEAQ         (tGP)(tCol*1), tG            // gy's row 0
	LEAQ         (tXP)(tCol*2), tX            // the input's row 0
	MOVQ         oh+120(FP), tRows
	VMOVUPS.Z    (tG), K2, Z9                 // gy row 0 (kernel row 0
	SPLIT(Z17, Z18, Z19)                      // reads above the image)
	KROWS2(Z17, Z18, Z19, Z3, Z4, Z5)         // input row 0: kernel row 1
	ADDQ         tWB, tX
	SPLIT(Z10, Z11, Z12)
	KROWS2(Z10, Z11, Z12, Z6, Z7, Z8)         // row 1: kernel row 2
	ADDQ         tWB, tX
	ADDQ         tOwB, tG
	DECQ         tRows
	JZ           flush6

row6:
	VMOVUPS.Z    (tG), K2, Z9                 // gy row i
	KROWS2(Z10, Z11, Z12, Z0, Z1, Z2)         // input row 2i−1: kernel row 0
	SPLIT(Z17, Z18, Z19)
	KROWS2(Z17, Z18, Z19, Z3, Z4, Z5)         // row 2i: kernel row 1
	ADDQ         tWB, tX
	SPLIT(Z10, Z11, Z12)
	KROWS2(Z10, Z11, Z12, Z6, Z7, Z8)         // row 2i+1: kernel row 2
	ADDQ         tWB, tX
	ADDQ         tOwB, tG
	DECQ         tRows
	JNZ          row6

flush6:
	FLUSH2(Z0, 0)                             // the taps' totals
	FLUSH2(Z1, 64)
	FLUSH2(Z2, 128)
	FLUSH2(Z3, 192)
	FLUSH2(Z4, 256)
	FLUSH2(Z5, 320)
	FLUSH2(Z6, 384)
	FLUSH2(Z7, 448)
	FLUSH2(Z8, 512)
	MOVQ         gPlane+112(FP), AX           // the next planes
	LEAQ         (tGP)(AX*4), tGP
	MOVQ         xPlane+104(FP), AX
	LEAQ         (tXP)(AX*4), tXP
	DECQ         tN
	JNZ          plane6
	ADDQ         $48, tMask                   // the next vector
	ADDQ         $64, tCol
	DECQ         tVecs
	JNZ          vector6

done6:
	VZEROUPPER
	RET
