//go:build (amd64 || arm64) && !purego

package goid

const haveG = true

// gword returns word i of the calling goroutine's g (the runtime's
// goroutine descriptor).
//
//go:noescape
func gword(i uintptr) uint64
