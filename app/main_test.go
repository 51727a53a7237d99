package app

import (
	"testing"

	"github.com/slosh/slosh/gpu/gltest"
)

// GL tests share one hidden window; the others run without it.
func TestMain(m *testing.M) { gltest.Main(m) }
