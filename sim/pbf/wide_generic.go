//go:build !(goexperiment.simd && amd64)

package pbf

// wideCPU reports whether the pair passes can take 16 particles side by side: never without Go's SIMD package, so
// the passes below are never called.
func wideCPU() bool { return false }

const noSIMD = "pbf: a SIMD pass called in a build without Go's SIMD package"

func lambdaBlock(*lambdaPass, int, int) { panic(noSIMD) }

func deltaBlock(*deltaPass, int, int) { panic(noSIMD) }

func vortBlock(*vortPass, int, int) { panic(noSIMD) }

func confineBlock(*confinePass, int, int) { panic(noSIMD) }
