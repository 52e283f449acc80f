//go:build purego || !(amd64 || arm64)

package asm

func lerpKernel() func(dst, x []float32, a float32, y []float32, b float32) { return lerpGo }
