package kernel

import (
	"math"
	"math/rand"
	"testing"
)

type radial struct {
	name string
	w    func(r float64) float64
	grad func(x, y, z float64) (float64, float64, float64)
	at0  float64 // exact W(0); NaN where the kernel is singular there
}

func kernels(h float64) []radial {
	p6 := NewPoly6(h)
	sp := NewSpiky(h)
	vi := NewViscosity(h)
	cs := NewCubicSpline(h)
	si := NewSine(h)
	return []radial{
		{"poly6", func(r float64) float64 { return p6.W(r * r) }, p6.Grad, 315 / (64 * math.Pi * math.Pow(h, 3))},
		{"spiky", sp.W, sp.Grad, 15 / (math.Pi * math.Pow(h, 3))},
		{"viscosity", vi.W, vi.Grad, math.NaN()},
		{"cubic", cs.W, cs.Grad, 8 / (math.Pi * h * h * h)},
		{"sine", si.W, si.Grad, math.Pi / (8 * math.Pow(h, 4) * (math.Pi/3 - 8/math.Pi + 16/(math.Pi*math.Pi))) * 2 * h / math.Pi},
	}
}

// ∫W dV = 4π ∫ r² W(r) dr = 1, by composite Simpson on [0, h] with many intervals.
func TestNormalisation(t *testing.T) {
	for _, h := range []float64{0.1, 1, 2.5} {
		for _, k := range kernels(h) {
			const n = 20000
			dr := h / n
			sum := 0.0
			for i := 0; i <= n; i++ {
				r := float64(i) * dr
				f := r * r * k.w(r)
				if i == 0 {
					f = 0 // r²W → 0 even for the singular viscosity kernel
				}
				wgt := 2.0
				switch {
				case i == 0 || i == n:
					wgt = 1
				case i%2 == 1:
					wgt = 4
				}
				sum += wgt * f
			}
			integral := 4 * math.Pi * sum * dr / 3
			if math.Abs(integral-1) > 1e-4 {
				t.Errorf("%s h=%g: ∫W dV = %.6f, want 1", k.name, h, integral)
			}
		}
	}
}

func TestValuesAtZeroAndSupport(t *testing.T) {
	h := 0.37
	for _, k := range kernels(h) {
		if !math.IsNaN(k.at0) {
			if got := k.w(0); math.Abs(got-k.at0) > 1e-9*k.at0 {
				t.Errorf("%s: W(0) = %g, want %g", k.name, got, k.at0)
			}
		}
		if got := k.w(h); math.Abs(got) > 1e-9 {
			t.Errorf("%s: W(h) = %g, want 0", k.name, got)
		}
		if got := k.w(1.01 * h); got != 0 {
			t.Errorf("%s: W(1.01h) = %g, want 0 outside the support", k.name, got)
		}
		for r := 0.01 * h; r < h; r += 0.01 * h {
			if w := k.w(r); w < 0 {
				t.Errorf("%s: W(%g) = %g is negative", k.name, r, w)
			}
		}
	}
}

// ∇W against central differences of W at random points inside the support.
func TestGradientMatchesFiniteDifferences(t *testing.T) {
	h := 0.5
	rng := rand.New(rand.NewSource(1))
	for _, k := range kernels(h) {
		w3 := func(x, y, z float64) float64 { return k.w(math.Sqrt(x*x + y*y + z*z)) }
		for n := 0; n < 200; n++ {
			var x, y, z float64
			for {
				x, y, z = (2*rng.Float64()-1)*h, (2*rng.Float64()-1)*h, (2*rng.Float64()-1)*h
				r := math.Sqrt(x*x + y*y + z*z)
				if r > 0.05*h && r < 0.95*h && math.Abs(r-0.5*h) > 0.01*h {
					break
				}
			}
			const e = 1e-6
			fx := (w3(x+e, y, z) - w3(x-e, y, z)) / (2 * e)
			fy := (w3(x, y+e, z) - w3(x, y-e, z)) / (2 * e)
			fz := (w3(x, y, z+e) - w3(x, y, z-e)) / (2 * e)
			gx, gy, gz := k.grad(x, y, z)
			scale := math.Max(1, math.Sqrt(fx*fx+fy*fy+fz*fz))
			if d := math.Sqrt((gx-fx)*(gx-fx) + (gy-fy)*(gy-fy) + (gz-fz)*(gz-fz)); d > 1e-5*scale {
				t.Fatalf("%s at (%g,%g,%g): ∇W = (%g,%g,%g), finite differences (%g,%g,%g)", k.name, x, y, z, gx, gy, gz, fx, fy, fz)
			}
		}
		// ∇W points inwards (W decreases with r) and vanishes outside the support.
		if gx, _, _ := k.grad(0.3*h, 0, 0); gx >= 0 {
			t.Errorf("%s: ∂W/∂x at (0.3h,0,0) = %g, want < 0", k.name, gx)
		}
		if gx, gy, gz := k.grad(1.2*h, 0, 0); gx != 0 || gy != 0 || gz != 0 {
			t.Errorf("%s: ∇W outside the support = (%g,%g,%g)", k.name, gx, gy, gz)
		}
	}
}

// The float32 instantiations agree with float64 to single precision.
func TestFloat32MatchesFloat64(t *testing.T) {
	h := 0.1
	p64, p32 := NewPoly6(h), NewPoly6(float32(h))
	s64, s32 := NewSpiky(h), NewSpiky(float32(h))
	for r := 0.0; r < h; r += h / 37 {
		if a, b := p64.W(r*r), float64(p32.W(float32(r*r))); math.Abs(a-b) > 1e-5*p64.W(0) {
			t.Errorf("poly6(%g): %g vs %g", r, a, b)
		}
		if a, b := s64.GradScale(r)*r, float64(s32.GradScale(float32(r)))*r; math.Abs(a-b) > 1e-5*math.Abs(s64.GradCoef())*h*h {
			t.Errorf("spiky grad(%g): %g vs %g", r, a, b)
		}
	}
}

// The sine kernel's one-evaluation WGrad agrees with W and Grad (math.Sin and math.Cos) to 1e-9 of the kernel's
// largest value and of its largest gradient, across the support and just beyond it.
func TestSineWGradAgrees(t *testing.T) {
	for _, h := range []float64{0.01, 1} {
		k := NewSine(h)
		w0 := k.W(0)
		gmax := 0.0
		for i := 1; i <= 1000; i++ {
			gx, _, _ := k.Grad(float64(i)*h/1000, 0, 0)
			gmax = math.Max(gmax, math.Abs(gx))
		}
		for i := 0; i <= 1100; i++ {
			r := float64(i) * h / 1000
			w, g := k.WGrad(r)
			gx, _, _ := k.Grad(r, 0, 0)
			if math.Abs(w-k.W(r)) > 1e-9*w0 || math.Abs(g*r-gx) > 1e-9*gmax {
				t.Fatalf("h %g, r %g: WGrad gives %g, %g; W and Grad %g, %g", h, r, w, g*r, k.W(r), gx)
			}
		}
	}
}
