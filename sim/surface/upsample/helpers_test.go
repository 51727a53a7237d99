package upsample

import (
	"math"
	"math/rand/v2"
)

// block is an nx×ny×nz lattice of spacing h from the origin, each coordinate jittered uniformly by ±jitter·h.
func block(nx, ny, nz int, h, jitter float64, seed uint64) ([][4]float32, []uint32) {
	rng := rand.New(rand.NewPCG(seed, 1))
	var pos [][4]float32
	for k := 0; k < nz; k++ {
		for j := 0; j < ny; j++ {
			for i := 0; i < nx; i++ {
				p := [4]float32{}
				for c, v := range [3]int{i, j, k} {
					p[c] = float32((float64(v) + jitter*(2*rng.Float64()-1)) * h)
				}
				pos = append(pos, p)
			}
		}
	}
	return pos, ids(len(pos))
}

func ids(n int) []uint32 {
	id := make([]uint32, n)
	for i := range id {
		id[i] = uint32(i)
	}
	return id
}

// ball is a sphere of radius R (centre c) sampled at spacing h: a Fibonacci shell on the sphere and a lattice
// strictly inside R − h·0.8.
func ball(c [3]float64, R, h float64) ([][4]float32, []uint32) {
	var pos [][4]float32
	shell := int(math.Round(4 * math.Pi * R * R / (h * h * math.Sqrt(3) / 2)))
	golden := math.Pi * (3 - math.Sqrt(5))
	for i := 0; i < shell; i++ {
		y := 1 - 2*(float64(i)+0.5)/float64(shell)
		rr := math.Sqrt(1 - y*y)
		t := golden * float64(i)
		pos = append(pos, [4]float32{float32(c[0] + R*rr*math.Cos(t)), float32(c[1] + R*y), float32(c[2] + R*rr*math.Sin(t))})
	}
	m := int(R/h) + 1
	for k := -m; k <= m; k++ {
		for j := -m; j <= m; j++ {
			for i := -m; i <= m; i++ {
				x, y, z := float64(i)*h, float64(j)*h, float64(k)*h
				if math.Sqrt(x*x+y*y+z*z) < R-0.8*h {
					pos = append(pos, [4]float32{float32(c[0] + x), float32(c[1] + y), float32(c[2] + z)})
				}
			}
		}
	}
	return pos, ids(len(pos))
}

// splash is a splashing-column-like frame: a jittered column of w×ht×w particles at spacing h standing on y = 0,
// a collapsing crown of particles around its foot, and loose drops (single and in small clusters) above and
// beside it.
func splash(w, ht, drops int, h float64, seed uint64) ([][4]float32, []uint32) {
	rng := rand.New(rand.NewPCG(seed, 2))
	jit := func() float64 { return 0.15 * h * (2*rng.Float64() - 1) }
	var pos [][4]float32
	for k := 0; k < w; k++ {
		for j := 0; j < ht; j++ {
			for i := 0; i < w; i++ {
				pos = append(pos, [4]float32{float32(float64(i)*h + jit()), float32(float64(j)*h + jit()), float32(float64(k)*h + jit())})
			}
		}
	}
	// a sheet spreading from the foot: two layers on a ring
	cx, cz := float64(w-1)*h/2, float64(w-1)*h/2
	for rr := float64(w)*h/2 + h; rr < float64(w)*h*1.2; rr += h {
		n := int(2 * math.Pi * rr / h)
		for a := 0; a < n; a++ {
			t := 2 * math.Pi * float64(a) / float64(n)
			for l := 0; l < 2; l++ {
				pos = append(pos, [4]float32{float32(cx + rr*math.Cos(t) + jit()), float32(float64(l)*h + jit()), float32(cz + rr*math.Sin(t) + jit())})
			}
		}
	}
	for d := 0; d < drops; d++ {
		c := [3]float64{cx + (rng.Float64()-0.5)*float64(w)*h*2.5, float64(ht) * h * (0.3 + rng.Float64()), cz + (rng.Float64()-0.5)*float64(w)*h*2.5}
		size := 1 + rng.IntN(6)
		for s := 0; s < size; s++ {
			pos = append(pos, [4]float32{float32(c[0] + 0.9*h*float64(s%2) + jit()), float32(c[1] + 0.9*h*float64(s/2%2) + jit()), float32(c[2] + 0.9*h*float64(s/4) + jit())})
		}
	}
	return pos, ids(len(pos))
}

// cavity is a cube of side 2·half, filled at spacing h, with a spherical hole of radius R at its centre c whose
// wall is a Fibonacci shell: the hole's surface is concave.
func cavity(c [3]float64, half, R, h float64) ([][4]float32, []uint32) {
	shellPos, _ := ball(c, R, h)
	var pos [][4]float32
	for _, p := range shellPos {
		if d := math.Hypot(math.Hypot(float64(p[0])-c[0], float64(p[1])-c[1]), float64(p[2])-c[2]); math.Abs(d-R) < 1e-4 {
			pos = append(pos, p)
		}
	}
	m := int(half / h)
	for k := -m; k <= m; k++ {
		for j := -m; j <= m; j++ {
			for i := -m; i <= m; i++ {
				x, y, z := float64(i)*h, float64(j)*h, float64(k)*h
				if math.Sqrt(x*x+y*y+z*z) > R+0.8*h {
					pos = append(pos, [4]float32{float32(c[0] + x), float32(c[1] + y), float32(c[2] + z)})
				}
			}
		}
	}
	return pos, ids(len(pos))
}
