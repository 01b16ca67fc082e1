//go:build !purego

#include "textflag.h"

// EDGE is edge j of the chunk at R8: X4 += [p,w]·st[u][0:2] (v's sums);
// st[u][2:4] += [p,w]·X3 (X3 = st[v][0:2]). SI is st's base, which is
// 16-byte aligned (jointSweep checks), so the packed operations may read
// the state directly.
#define EDGE(pw, uo) \
	MOVLQSX uo(R8), R9        \
	MOVUPD  pw(R8), X5        \
	MOVAPD  X5, X7            \
	MULPD   (SI)(R9*1), X7    \
	ADDPD   X7, X4            \
	MULPD   X3, X5            \
	ADDPD   16(SI)(R9*1), X5  \
	MOVAPD  X5, 16(SI)(R9*1)

// func chunkWalk(st [][4]float64, chunks []sweepChunk)
//
// sweepChunk is {pw [4][2]float64; uo [4]int32; vo int32; _ int32}: 88
// bytes, uo at 64, vo at 80, the offsets in bytes.
TEXT ·chunkWalk(SB), NOSPLIT, $0-48
	MOVQ  st_base+0(FP), SI
	MOVQ  chunks_base+24(FP), R8
	MOVQ  chunks_len+32(FP), CX
	IMULQ $88, CX
	LEAQ  (R8)(CX*1), R11
	CMPQ  R8, R11
	JAE   walkdone

chunk:
	MOVLQSX 80(R8), R10
	MOVAPD  (SI)(R10*1), X3
	MOVAPD  16(SI)(R10*1), X4
	EDGE(0, 64)
	EDGE(16, 68)
	EDGE(32, 72)
	EDGE(48, 76)
	MOVAPD  X4, 16(SI)(R10*1)
	ADDQ    $88, R8
	CMPQ    R8, R11
	JB      chunk

walkdone:
	RET

// func sweepTailsAsm(st [][4]float64, nc []nodeConst, alpha, d, dangling float64) (delta, errSum float64)
//
// The tail of jointSweepGo for every node, in SSE2, the same operations in
// the same order. nodeConst is
// {base, invP, tel, pers, invW, x float64}: 48 bytes. Registers: SI &st[v],
// DX &nc[v], CX nodes left; X0 alpha, X1 d, X2 dangling, X10 |x| mask,
// X11 zero, X13 errSum, X14 delta.
TEXT ·sweepTailsAsm(SB), NOSPLIT, $0-88
	MOVQ    st_base+0(FP), SI
	MOVQ    st_len+8(FP), CX
	MOVQ    nc_base+24(FP), DX
	MOVSD   alpha+48(FP), X0
	MOVSD   d+56(FP), X1
	MOVSD   dangling+64(FP), X2
	PCMPEQL X10, X10
	PSRLQ   $1, X10
	XORPS   X11, X11
	XORPS   X13, X13
	XORPS   X14, X14
	TESTQ   CX, CX
	JZ      taildone

tail:
	MOVAPD (SI), X3
	MOVAPD 16(SI), X4
	// nf = base + alpha*(f*invP); delta = max(delta, |nf - φ_v|)
	MOVSD  8(DX), X5
	MULSD  X4, X5
	MULSD  X0, X5
	ADDSD  (DX), X5
	MOVAPD X5, X6
	SUBSD  X3, X6
	ANDPD  X10, X6
	MAXSD  X6, X14
	// nx = d*(g + dangling*pers) + tel; errSum += |nx - x|; x = nx
	MOVSD    24(DX), X7
	MULSD    X2, X7
	UNPCKHPD X4, X4
	ADDSD    X4, X7
	MULSD    X1, X7
	ADDSD    16(DX), X7
	MOVAPD   X7, X8
	SUBSD    40(DX), X8
	ANDPD    X10, X8
	ADDSD    X8, X13
	MOVSD    X7, 40(DX)
	// st[v] = [nf, nx/W_v, 0, 0]
	MULSD    32(DX), X7
	UNPCKLPD X7, X5
	MOVAPD   X5, (SI)
	MOVAPD   X11, 16(SI)
	ADDQ     $32, SI
	ADDQ     $48, DX
	DECQ     CX
	JNZ      tail

taildone:
	MOVSD X14, delta+72(FP)
	MOVSD X13, errSum+80(FP)
	RET
