package mesh

import (
	"math"
	"math/rand"
	"testing"
)

func matDiff(a, b Mat3) float64 {
	d := 0.0
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			d = math.Max(d, math.Abs(a[i][j]-b[i][j]))
		}
	}
	return d
}

// angleDiff is the difference of two angles in degrees, wrapped into [0, 180].
func angleDiff(a, b float64) float64 {
	d := math.Mod(math.Abs(a-b), 360)
	return math.Min(d, 360-d)
}

// EulerDegrees inverts Rotation: away from gimbal lock it gives back the angles, and everywhere, at ±90° pitch
// and just beside it included, the matrix.
func TestEulerDegreesInvertsRotation(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	angle := func(lim float64) float64 { return (rng.Float64()*2 - 1) * lim }
	for n := 0; n < 5000; n++ {
		a := Vec3{angle(180), angle(89.9), angle(180)}
		got := EulerDegrees(Rotation(a))
		for c := 0; c < 3; c++ {
			if angleDiff(got[c], a[c]) > 1e-9 {
				t.Fatalf("EulerDegrees(Rotation(%v)) = %v", a, got)
			}
		}
		if got[1] < -90 || got[1] > 90 || got[0] <= -180 || got[0] > 180 || got[2] <= -180 || got[2] > 180 {
			t.Fatalf("EulerDegrees(Rotation(%v)) = %v out of range", a, got)
		}
	}
	// products of rotations, and pitches at and beside ±90°
	for n := 0; n < 5000; n++ {
		var m Mat3
		switch n % 4 {
		case 0:
			m = Rotation(Vec3{angle(180), angle(180), angle(180)}).Mul(Rotation(Vec3{angle(180), angle(180), angle(180)}))
		case 1:
			m = Rotation(Vec3{angle(180), 90, angle(180)})
		case 2:
			m = Rotation(Vec3{angle(180), -90, angle(180)})
		case 3:
			m = Rotation(Vec3{angle(180), 90 - math.Pow(10, -1-8*rng.Float64()), angle(180)})
		}
		got := EulerDegrees(m)
		if d := matDiff(Rotation(got), m); d > 1e-12 {
			t.Fatalf("case %d: Rotation(EulerDegrees(m)) differs from m by %g:\nm = %v\nangles %v", n%4, d, m, got)
		}
		if n%4 == 1 || n%4 == 2 {
			if math.Abs(math.Abs(got[1])-90) > 1e-6 || got[0] != 0 {
				t.Fatalf("gimbal lock: angles %v, want x = 0 and y = ±90", got)
			}
		}
	}
	if got := EulerDegrees(Rotation(Vec3{})); got != (Vec3{}) {
		t.Errorf("EulerDegrees(I) = %v", got)
	}
}

func TestMat3Mul(t *testing.T) {
	a, b := Rotation(Vec3{10, 20, 30}), Rotation(Vec3{-40, 50, 60})
	p := Vec3{0.3, -1.2, 2}
	if d := a.Mul(b).MulVec(p).Sub(a.MulVec(b.MulVec(p))).Len(); d > 1e-14 {
		t.Errorf("(a·b)·p differs from a·(b·p) by %g", d)
	}
	// Rotation is Rz·Ry·Rx
	if d := matDiff(Rotation(Vec3{10, 20, 30}), Rotation(Vec3{0, 0, 30}).Mul(Rotation(Vec3{0, 20, 0})).Mul(Rotation(Vec3{10, 0, 0}))); d > 1e-15 {
		t.Errorf("Rotation differs from Rz·Ry·Rx by %g", d)
	}
}
