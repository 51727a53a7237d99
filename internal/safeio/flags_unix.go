//go:build unix

package safeio

import "syscall"

// openFlags makes opening a pipe return at once instead of waiting for a writer; regular files ignore it.
const openFlags = syscall.O_NONBLOCK
