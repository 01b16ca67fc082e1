//go:build !purego

#include "textflag.h"

// EDGE is edge j of the chunk at R8: X4 += [p,w]·st[u][0:2] (v's sums);
// st[u][2:4] += [p,w]·X3 (X3 = st[v][0:2]). SI is st's base.
#define EDGE(pw, uo) \
	MOVLQSX uo(R8), R9        \
	SHLQ    $5, R9            \
	MOVUPD  pw(R8), X5        \
	MOVUPD  (SI)(R9*1), X7    \
	MULPD   X5, X7            \
	ADDPD   X7, X4            \
	MULPD   X3, X5            \
	MOVUPD  16(SI)(R9*1), X8  \
	ADDPD   X5, X8            \
	MOVUPD  X8, 16(SI)(R9*1)

// func chunkWalk(st [][4]float64, chunks []sweepChunk)
//
// sweepChunk is {pw [4][2]float64; u [4]int32; v int32; _ int32}: 88 bytes,
// u at 64, v at 80.
TEXT ·chunkWalk(SB), NOSPLIT, $0-48
	MOVQ  st_base+0(FP), SI
	MOVQ  chunks_base+24(FP), R8
	MOVQ  chunks_len+32(FP), CX
	IMULQ $88, CX
	LEAQ  (R8)(CX*1), R11
	CMPQ  R8, R11
	JAE   done

chunk:
	MOVLQSX 80(R8), R10
	SHLQ    $5, R10
	MOVUPD  (SI)(R10*1), X3
	MOVUPD  16(SI)(R10*1), X4
	EDGE(0, 64)
	EDGE(16, 68)
	EDGE(32, 72)
	EDGE(48, 76)
	MOVUPD  X4, 16(SI)(R10*1)
	ADDQ    $88, R8
	CMPQ    R8, R11
	JB      chunk

done:
	RET
