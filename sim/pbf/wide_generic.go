//go:build !(goexperiment.simd && amd64)

package pbf

// wideCPU reports whether the pair passes can take 16 particles side by side: never without Go's SIMD package.
func wideCPU() bool { return false }

func lambdaBlock(*lambdaPass, int, int) bool { return false }

func deltaBlock(*deltaPass, int, int) bool { return false }

func vortBlock(*vortPass, int, int) bool { return false }

func confineBlock(*confinePass, int, int) bool { return false }
