module github.com/goaten/goaten

go 1.26

require (
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/x448/float16 v0.8.4
	gonum.org/v1/gonum v0.17.0
)

require golang.org/x/sys v0.41.0 // indirect
