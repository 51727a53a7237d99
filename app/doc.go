// Package app wires slosh together: it is the only package that knows every mode. It opens scenes, picks and
// builds solvers (falling back from a GPU mode to its CPU twin where compute shaders are missing), applies
// parameters in a fixed order (the scene's overrides, then --particles and --set, then Reset), and drives them
// in three ways:
//
//   - Window: the interactive sandbox. One thread owns GLFW and GL (main locks it in init). GPU modes are stepped
//     on that thread; CPU modes run in a Runner goroutine that publishes frames the GL thread draws without ever
//     waiting for the solver.
//   - Run: a batch run without a visible window that prints one line of statistics per frame and can save the
//     last frame as a PNG. A CPU mode without a screenshot needs no GL and no display.
//   - Bench: warm up, then time a number of frames per pass, and write the results as a table and as JSON.
//
// Errors from how slosh was called (a bad flag value, an unknown mode, an invalid --set) are *UsageError, for
// which the command line exits with status 2; everything else is a plain error (status 1).
package app
