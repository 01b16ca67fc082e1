//go:build flowexp && !purego

// Variants of chunkWalk that measure where its time goes (build tag
// flowexp; see walkexp_test.go). Neither computes the walk's values.

#include "textflag.h"

// EDGEL makes EDGE's loads and multiplies only: no sums, no stores.
#define EDGEL(pw, uo) \
	MOVLQSX uo(R8), R9        \
	MOVUPD  pw(R8), X5        \
	MOVAPD  X5, X7            \
	MULPD   (SI)(R9*1), X7    \
	MULPD   X3, X5            \
	MOVAPD  16(SI)(R9*1), X6

// func walkLoadsOnly(st [][4]float64, chunks []sweepChunk)
//
// chunkWalk's loads and multiplies without its sums and stores.
TEXT ·walkLoadsOnly(SB), NOSPLIT, $0-48
	MOVQ  st_base+0(FP), SI
	MOVQ  chunks_base+24(FP), R8
	MOVQ  chunks_len+32(FP), CX
	IMULQ $88, CX
	LEAQ  (R8)(CX*1), R11
	CMPQ  R8, R11
	JAE   walkdoneL

chunkL:
	MOVLQSX 80(R8), R10
	MOVAPD  (SI)(R10*1), X3
	MOVAPD  16(SI)(R10*1), X4
	EDGEL(0, 64)
	EDGEL(16, 68)
	EDGEL(32, 72)
	EDGEL(48, 76)
	ADDQ    $88, R8
	CMPQ    R8, R11
	JB      chunkL

walkdoneL:
	RET


// EDGEI is EDGE on the chunk at P with v's sums in A and v's values in V.
#define EDGEI(pw, uo, P, A, V) \
	MOVLQSX uo(P), R9         \
	MOVUPD  pw(P), X5         \
	MOVAPD  X5, X7            \
	MULPD   (SI)(R9*1), X7    \
	ADDPD   X7, A             \
	MULPD   V, X5             \
	ADDPD   16(SI)(R9*1), X5  \
	MOVAPD  X5, 16(SI)(R9*1)

// func walkInterleaved(st [][4]float64, chunks []sweepChunk)
//
// chunkWalk over the two halves of the chunks at once, chunk i of the
// first half beside chunk i of the second (an odd last chunk is left out):
// not the walk's order, so not its sums; it measures how much a second
// independent stream would gain.
TEXT ·walkInterleaved(SB), NOSPLIT, $0-48
	MOVQ  st_base+0(FP), SI
	MOVQ  chunks_base+24(FP), R8
	MOVQ  chunks_len+32(FP), CX
	SHRQ  $1, CX
	IMULQ $88, CX
	LEAQ  (R8)(CX*1), R11
	MOVQ  R11, R12
	CMPQ  R8, R11
	JAE   idone

ichunk:
	MOVLQSX 80(R8), R10
	MOVLQSX 80(R12), R13
	MOVAPD  (SI)(R10*1), X3
	MOVAPD  16(SI)(R10*1), X4
	MOVAPD  (SI)(R13*1), X12
	MOVAPD  16(SI)(R13*1), X13
	EDGEI(0, 64, R8, X4, X3)
	EDGEI(0, 64, R12, X13, X12)
	EDGEI(16, 68, R8, X4, X3)
	EDGEI(16, 68, R12, X13, X12)
	EDGEI(32, 72, R8, X4, X3)
	EDGEI(32, 72, R12, X13, X12)
	EDGEI(48, 76, R8, X4, X3)
	EDGEI(48, 76, R12, X13, X12)
	MOVAPD  X4, 16(SI)(R10*1)
	MOVAPD  X13, 16(SI)(R13*1)
	ADDQ    $88, R8
	ADDQ    $88, R12
	CMPQ    R8, R11
	JB      ichunk

idone:
	RET
