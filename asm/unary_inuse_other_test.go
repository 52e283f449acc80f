//go:build purego || !(amd64 || arm64)

package asm

const runtimeHasUnaryAsm = false
