//go:build !unix

package safeio

// openFlags: systems without O_NONBLOCK rely on the checks before and after opening.
const openFlags = 0
