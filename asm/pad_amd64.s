//go:build !purego

#include "textflag.h"

// Padded rows, AVX2: each row's left fill and right fill one element a
// store (pads are a few elements), its copy eight elements a 32-byte
// move, the last move ending at the row's last copied element (it writes
// again elements already written, with the same values).

// Register roles.
#define xPtr  DI  // the row of x
#define sPtr  SI  // the row of src
#define ldX   R8  // row stride of x in bytes
#define ldS   R9  // row stride of src in bytes
#define nRow  CX  // rows left
#define nLeft R10 // left pad
#define nCopy R11 // elements copied a row
#define nRght R12 // right pad
#define val   AX  // v
#define jEl   R13 // element counter
#define lastB R14 // the last move's first element: n − 8
#define dPtr  DX  // where the row's next element goes

// func padRowsU32AVX2(x []uint32, ldx int, src []uint32, lds, rows, left, n, right int, v uint32)
TEXT ·padRowsU32AVX2(SB), NOSPLIT, $0-100
	MOVQ x_base+0(FP), xPtr    // xPtr = x
	MOVQ ldx+24(FP), ldX       // ldX = ldx
	SHLQ $2, ldX               // in bytes
	MOVQ src_base+32(FP), sPtr // sPtr = src
	MOVQ lds+56(FP), ldS       // ldS = lds
	SHLQ $2, ldS               // in bytes
	MOVQ rows+64(FP), nRow     // nRow = rows
	MOVQ left+72(FP), nLeft    // nLeft = left
	MOVQ n+80(FP), nCopy       // nCopy = n
	MOVQ right+88(FP), nRght   // nRght = right
	MOVL v+96(FP), val         // val = v
	MOVQ nCopy, lastB          // lastB = n
	SUBQ $8, lastB             // − 8

rowLoop:
	MOVQ  xPtr, dPtr           // dPtr = the row
	MOVQ  nLeft, jEl           // jEl = left
	TESTQ jEl, jEl             // no left pad?
	JZ    copyRow              // then copy
leftLoop:
	MOVL  val, (dPtr)          // *dPtr = v
	ADDQ  $4, dPtr             // next element
	DECQ  jEl                  // one filled
	JNZ   leftLoop             // more?

copyRow:
	XORQ    jEl, jEl               // jEl = 0
copyLoop:
	VMOVDQU (sPtr)(jEl*4), Y0      // Y0 = src[j … j+7]
	VMOVDQU Y0, (dPtr)(jEl*4)      // row[left+j …] = Y0
	ADDQ    $8, jEl                // jEl += 8
	CMPQ    jEl, lastB             // another whole move?
	JLE     copyLoop               // jEl ≤ n − 8: yes
	CMPQ    jEl, nCopy             // elements left?
	JEQ     copied                 // jEl = n: none
	VMOVDQU (sPtr)(lastB*4), Y0    // Y0 = src[n−8 … n−1]
	VMOVDQU Y0, (dPtr)(lastB*4)    // row[left+n−8 …] = Y0
copied:
	LEAQ    (dPtr)(nCopy*4), dPtr  // dPtr = the right pad

	MOVQ  nRght, jEl           // jEl = right
	TESTQ jEl, jEl             // no right pad?
	JZ    rowDone              // then the row is done
rightLoop:
	MOVL  val, (dPtr)          // *dPtr = v
	ADDQ  $4, dPtr             // next element
	DECQ  jEl                  // one filled
	JNZ   rightLoop            // more?

rowDone:
	ADDQ ldX, xPtr             // next row of x
	ADDQ ldS, sPtr             // next row of src
	DECQ nRow                  // a row done
	JNZ  rowLoop               // more?
	VZEROUPPER                 // clean AVX state
	RET
