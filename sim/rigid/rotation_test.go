package rigid

import (
	"math/rand"
	"testing"

	"github.com/slosh/slosh/sim/scene"
)

// ExtractRotation recovers R from A = R S for symmetric positive S, from any start, and stays well defined for a
// flat A (a body that is a sheet).
func TestExtractRotation(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for n := 0; n < 200; n++ {
		want := AxisAngle(float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64()))
		r := want.Matrix()
		// S = diag(s) in a random frame
		f := AxisAngle(float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())).Matrix()
		sv := [3]float32{0.5 + rng.Float32(), 0.5 + rng.Float32(), 0.5 + rng.Float32()}
		if n%10 == 0 {
			sv[2] = 0 // flat
		}
		var sm, a Mat3
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				for k := 0; k < 3; k++ {
					sm[i][j] += f[i][k] * sv[k] * f[j][k]
				}
			}
		}
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				for k := 0; k < 3; k++ {
					a[i][j] += r[i][k] * sm[k][j]
				}
			}
		}
		start := IdentityQuat
		if n%2 == 1 {
			start = want.Mul(AxisAngle(0.3, -0.2, 0.1)) // warm start near the answer, as the solver has
		}
		got := ExtractRotation(&a, start).Matrix()
		iters := RotationIters
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				if d := abs32(got[i][j] - r[i][j]); d > 2e-3 {
					// a cold start from far away may need more iterations than the solver's warm-started steps
					got2 := ExtractRotation(&a, ExtractRotation(&a, ExtractRotation(&a, start))).Matrix()
					if abs32(got2[i][j]-r[i][j]) > 2e-3 {
						t.Fatalf("case %d: R[%d][%d] = %g, want %g (after %d×3 iterations)", n, i, j, got2[i][j], r[i][j], iters)
					}
				}
			}
		}
	}
}

func TestCheckCount(t *testing.T) {
	if err := CheckCount(scene.MaxBodies); err != nil {
		t.Errorf("%d bodies: %v", scene.MaxBodies, err)
	}
	if err := CheckCount(scene.MaxBodies + 1); err == nil {
		t.Errorf("%d bodies were accepted", scene.MaxBodies+1)
	}
}
