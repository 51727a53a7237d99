package render

import (
	"testing"

	"github.com/slosh/slosh/gpu/gltest"
)

func TestMain(m *testing.M) { gltest.Main(m) }
