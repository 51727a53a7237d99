package compute

import (
	"math/rand"
	"testing"

	gl "github.com/go-gl/gl/v4.3-core/gl"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/gltest"
)

func TestMain(m *testing.M) { gltest.Main(m) }

// The GPU scan equals a sequential exclusive prefix sum, for sizes around the block and level boundaries.
func TestScanMatchesSequential(t *testing.T) {
	ctx := gltest.Acquire(t)
	gltest.RequireCompute(t, ctx)
	rng := rand.New(rand.NewSource(1))
	sizes := []int{1, 2, 511, 1024, 1025, 4096, 100003, 1024*1024 + 17}
	progs, err := NewScanPrograms()
	if err != nil {
		t.Fatal(err)
	}
	defer progs.Delete()
	s, err := NewScan(progs, sizes[len(sizes)-1])
	if err != nil {
		t.Fatal(err)
	}
	defer s.Delete()
	for _, n := range sizes {
		in := make([]uint32, n+1)
		for i := 0; i < n; i++ {
			in[i] = uint32(rng.Intn(40))
		}
		in[n] = 12345 // past the end: must be left alone
		buf, err := glh.NewBuffer(4*(n+1), gl.DYNAMIC_COPY)
		if err != nil {
			t.Fatal(err)
		}
		glh.Upload(buf, 0, in)
		s.Run(buf, n)
		out := make([]uint32, n+1)
		glh.Read(buf, 0, out)
		buf.Delete()
		sum := uint32(0)
		for i := 0; i < n; i++ {
			if out[i] != sum {
				t.Fatalf("n=%d: element %d = %d, want %d", n, i, out[i], sum)
			}
			sum += in[i]
		}
		if out[n] != 12345 {
			t.Fatalf("n=%d: the scan wrote past its end", n)
		}
	}
}
