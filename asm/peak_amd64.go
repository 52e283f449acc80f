//go:build !purego

package asm

// The FMA ceiling loops of peak_amd64.s; only BenchmarkPeak calls them.

//go:noescape
func fmaPeak256(n int)

//go:noescape
func fmaPeak512(n int)
