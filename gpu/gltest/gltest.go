// Package gltest gives GL packages' tests a real OpenGL context: a hidden GLFW window opened once per test binary
// (under Xvfb with Mesa's llvmpipe on machines without a GPU).
//
// Without a context the tests are skipped, except under SLOSH_REQUIRE_GL=1 (which `make test` sets), where the
// whole binary fails: a GL test that cannot run must never count as a pass.
//
//	func TestMain(m *testing.M) { gltest.Main(m) }
//	func TestX(t *testing.T) { ctx := gltest.Acquire(t); ... }
package gltest

import (
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/go-gl/glfw/v3.3/glfw"

	"github.com/slosh/slosh/gpu/glh"
)

var (
	shared  *glh.Context
	openErr error
)

func init() { runtime.LockOSThread() } // GLFW is initialised on the main thread

// Main opens the shared context and runs the tests.
func Main(m *testing.M) {
	shared, openErr = glh.Open(glh.Options{Width: 256, Height: 256, Title: "slosh test"})
	if openErr != nil {
		if glh.RequireGL() {
			fmt.Fprintf(os.Stderr, "FAIL: SLOSH_REQUIRE_GL=1 but no OpenGL context: %v\n", openErr)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "gltest: no OpenGL context, GL tests will be skipped: %v\n", openErr)
	} else {
		glfw.DetachCurrentContext()
	}
	code := m.Run()
	if shared != nil {
		shared.Window.MakeContextCurrent()
		shared.Close()
	}
	os.Exit(code)
}

// Acquire makes the shared context current on the test's (locked) thread until the test ends.
func Acquire(t testing.TB) *glh.Context {
	t.Helper()
	if shared == nil {
		if glh.RequireGL() {
			t.Fatalf("no OpenGL context: %v", openErr)
		}
		t.Skipf("no OpenGL context: %v", openErr)
	}
	runtime.LockOSThread()
	shared.Window.MakeContextCurrent()
	t.Cleanup(func() {
		glfw.DetachCurrentContext()
		runtime.UnlockOSThread()
	})
	return shared
}

// RequireCompute fails (under SLOSH_REQUIRE_GL=1) or skips when the context lacks compute shaders.
func RequireCompute(t testing.TB, ctx *glh.Context) {
	t.Helper()
	if !ctx.Compute {
		if glh.RequireGL() {
			t.Fatalf("OpenGL 4.3 compute shaders are required: %s", ctx)
		}
		t.Skipf("no compute shaders: %s", ctx)
	}
}
