// Package stage holds the one type the timers of every layer share: the time a named stage of a step or a frame
// took. It sits below sim and the GL helpers, so that gpu/glh reports GPU timings without importing sim (and
// through it scenes and meshes); sim.Pass is this type.
package stage

// Pass is the time one stage took.
type Pass struct {
	Name string
	Ms   float64
}
