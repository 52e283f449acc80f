//go:build purego

package asm

// purego is true under -tags purego: every kernel runs its pure-Go twin.
const purego = true
