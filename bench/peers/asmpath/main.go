// Command asmpath prints the kernel family goaten's asm package runs on
// this machine and the CPU features it found, for bench/compare.sh.
package main

import (
	"fmt"

	"github.com/goaten/goaten/asm"
)

func main() { fmt.Printf("%s (%s)\n", asm.Path(), asm.Features()) }
