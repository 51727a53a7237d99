package sph

import (
	"math"
	"sync/atomic"

	"github.com/slosh/slosh/sim/scene"
)

// The solids' elasticity, plasticity and fracture (004 §5.2; solids.go says how they fit the step).

// elasticForces adds the elastic forces (eq. 5.3) of the particles in the elastic phase to the non-pressure
// accelerations, after updating their plastic strains and breaking overstretched bonds.
func (s *Solver) elasticForces() {
	so := &s.sol
	if len(so.slots) == 0 {
		return
	}
	sine := so.sine
	// body volumes (eq. 5.2)
	s.pool.For(len(so.slots), 256, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			st := &so.slots[k]
			if st.owner < 0 {
				continue
			}
			i := st.owner
			sum := s.mass[s.mat[i]] * sine.W(0)
			for b := range st.N {
				j := so.slots[st.Bonds[b].Slot].owner
				x := st.Bonds[b].X
				sum += s.mass[s.mat[j]] * sine.W(sqrt32(dot3(x, x)))
				gx, gy, gz := sine.Grad(x[0], x[1], x[2])
				st.grad[b] = [3]float32{gx, gy, gz} // for the two passes below
			}
			st.vol = s.mass[s.mat[i]] / sum
		}
	})
	// stresses: m_i = −V_i F S, the plastic strain, fracture
	var broken atomic.Int64
	h2 := s.dv.H * s.dv.H
	s.pool.For(len(so.slots), 256, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			st := &so.slots[k]
			st.m = [9]float32{}
			if st.owner < 0 {
				continue
			}
			i := int(st.owner)
			mt := &so.mats[s.mat[i]]
			broken.Add(int64(s.fracture(st, mt.fracture2, h2)))
			p, frac := mt.phaseOf(s.temp[i])
			if p != phaseElastic || st.N == 0 {
				continue
			}
			// A = Σ_j (r_j − r_i) g_ijᵀ and its reference K = Σ_j (−x_ij) g_ijᵀ
			var am, km [3][3]float64
			xi := s.x[i]
			for b := range st.N {
				bd := &st.Bonds[b]
				o := &so.slots[bd.Slot]
				xj := s.x[o.owner]
				r := [3]float32{xj[0] - xi[0], xj[1] - xi[1], xj[2] - xi[2]}
				gr := &st.grad[b]
				gv := [3]float32{o.vol * gr[0], o.vol * gr[1], o.vol * gr[2]}
				for a := range 3 {
					for c := range 3 {
						am[a][c] += float64(r[a] * gv[c])
						km[a][c] -= float64(bd.X[a] * gv[c])
					}
				}
			}
			f, l := deformation(am, km)
			st.m = stress(f, l, &st.Plastic, mt, frac*s.Cfg.StiffnessScale, st.vol)
		}
	})
	so.broken += int(broken.Load())
	// forces: f_a = Σ_i m_i g_ia − m_a Σ_k g_ak, with g_ia = −V_a ∇W(x_ai) and g_ak = V_k ∇W(x_ak)
	s.pool.For(len(so.slots), 256, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			st := &so.slots[k]
			if st.owner < 0 {
				continue
			}
			a := int(st.owner)
			var f, own [3]float32
			for b := range st.N {
				bd := &st.Bonds[b]
				o := &so.slots[bd.Slot]
				gx, gy, gz := st.grad[b][0], st.grad[b][1], st.grad[b][2]
				// neighbour i's stress on a: m_i (−V_a ∇W(x_ai))
				mi := &o.m
				va := st.vol
				f[0] -= va * (mi[0]*gx + mi[1]*gy + mi[2]*gz)
				f[1] -= va * (mi[3]*gx + mi[4]*gy + mi[5]*gz)
				f[2] -= va * (mi[6]*gx + mi[7]*gy + mi[8]*gz)
				own[0] += o.vol * gx
				own[1] += o.vol * gy
				own[2] += o.vol * gz
			}
			m := &st.m
			f[0] -= m[0]*own[0] + m[1]*own[1] + m[2]*own[2]
			f[1] -= m[3]*own[0] + m[4]*own[1] + m[5]*own[2]
			f[2] -= m[6]*own[0] + m[7]*own[1] + m[8]*own[2]
			im := 1 / s.mass[s.mat[a]]
			s.anp[a][0] += f[0] * im
			s.anp[a][1] += f[1] * im
			s.anp[a][2] += f[2] * im
		}
	})
}

// fracture drops the bonds of st stretched beyond the squared ratio f2 of their reference length (0: no fracture
// distance), and, whatever the material, those both longer than the kernel radius (h2 = h²) and stretched to more
// than twice their reference: a neighbour that far has left the particle's support, and a bond held across it grows
// a force no step can follow (at 40k particles hot-into-cold's thin shell flung particles at 170 m/s and the run
// diverged). Bonds made near h still stretch as far as the body's own elasticity takes them. Both sides of a bond
// measure the same lengths, so both drop it in the same step. It returns how many it dropped.
func (s *Solver) fracture(st *solidSlot, f2, h2 float32) int {
	so := &s.sol
	xi := s.x[st.owner]
	n := 0
	for b := int32(0); b < st.N; {
		bd := &st.Bonds[b]
		d := sub3(xi, s.x[so.slots[bd.Slot].owner])
		x2 := dot3(bd.X, bd.X)
		if l2 := dot3(d, d); l2 > max(h2, 4*x2) || f2 > 0 && l2 > f2*x2 {
			copy(st.Bonds[b:st.N], st.Bonds[b+1:st.N])
			st.N--
			st.Bonds[st.N] = bond{}
			n++
			continue
		}
		b++
	}
	return n
}

// minCorrection is the smallest eigenvalue of a particle's reference moment K (deformation) for which K is
// inverted. On the cubic lattice K ≈ I inside a body, and its smallest eigenvalue is 0.46–0.51 on a face, 0.31 on an
// edge and 0.28 at a corner. A fragment of a few particles that a melt or a freeze leaves has less, in some direction
// none at all, and inverting its K there multiplied the stress up to tenfold: a pair of particles bonded only to
// each other in hot-into-cold, and fragments in merge-on-a-plate, flew apart.
const minCorrection = 0.25

// deformation is the deformation gradient F of a particle from A = Σ_j (r_j − r_i) g_ijᵀ and its reference
// K = Σ_j (−x_ij) g_ijᵀ, and the correction that multiplies its stress: where K's smallest eigenvalue is at least
// minCorrection, F = A K⁻¹ with the correction K⁻¹; elsewhere eq. 5.5's own F = I + ∇uᵀ = I + A − K with none.
//
// Eq. 5.5 takes F = I + ∇uᵀ with the plain SPH gradient, which is exact only where K = I. Inside a body the sine
// kernel's K is near I, but at its surface, with half the neighbours, it is not, and then a body rotated without
// deforming measures a strain: a block spun rigidly at 3 rad/s tore itself apart within 0.2 s, and a free body's
// angular momentum drifted 15 times more. With K⁻¹ (the kernel gradient correction of Bonet & Lok 1999) a rigid
// rotation Q of the neighbours gives F = Q, the strain energy is invariant under rotation, and the forces keep
// angular momentum (TestSpinningElasticBlockKeepsItsShape, TestFreeBodiesKeepMomentum). Fragments whose bonds do
// not span three dimensions keep the thesis's plain gradient, which it chose SPH over MLS for (§5.2.1, Figure
// 5.2): stable where there is no inverse, at the price of measuring a strain where such a fragment turns.
func deformation(a, k [3][3]float64) (f [3][3]float32, kp [3][3]float32) {
	if !(minEigen(k) >= minCorrection) {
		for x := range 3 {
			for y := range 3 {
				v := a[x][y] - k[x][y]
				if x == y {
					v++
				}
				f[x][y] = float32(v)
			}
			kp[x][x] = 1
		}
		return f, kp
	}
	kinv := inverse(k)
	ak := scene.Mat3(a).Mul(kinv)
	for x := range 3 {
		for y := range 3 {
			f[x][y], kp[x][y] = float32(ak[x][y]), float32(kinv[x][y])
		}
	}
	return f, kp
}

// minEigen is the smallest eigenvalue of a symmetric 3×3 matrix, in closed form (the trigonometric solution of
// its characteristic cubic): a step asks it of every elastic particle, where Jacobi sweeps took a third of the
// elastic pass.
func minEigen(m [3][3]float64) float64 {
	lo, _ := eigenRange(m)
	return lo
}

// eigenRange is the smallest and the largest eigenvalue of a symmetric 3×3 matrix, in the same closed form.
func eigenRange(m [3][3]float64) (lo, hi float64) {
	p1 := m[0][1]*m[0][1] + m[0][2]*m[0][2] + m[1][2]*m[1][2]
	q := (m[0][0] + m[1][1] + m[2][2]) / 3
	if p1 == 0 {
		return min(m[0][0], m[1][1], m[2][2]), max(m[0][0], m[1][1], m[2][2])
	}
	d0, d1, d2 := m[0][0]-q, m[1][1]-q, m[2][2]-q
	p := math.Sqrt((d0*d0 + d1*d1 + d2*d2 + 2*p1) / 6)
	// B = (M − qI)/p, r = det(B)/2
	b := [3][3]float64{{d0 / p, m[0][1] / p, m[0][2] / p}, {m[1][0] / p, d1 / p, m[1][2] / p}, {m[2][0] / p, m[2][1] / p, d2 / p}}
	r := (b[0][0]*(b[1][1]*b[2][2]-b[1][2]*b[2][1]) - b[0][1]*(b[1][0]*b[2][2]-b[1][2]*b[2][0]) + b[0][2]*(b[1][0]*b[2][1]-b[1][1]*b[2][0])) / 2
	phi := math.Acos(max(-1, min(1, r))) / 3
	return q + 2*p*math.Cos(phi+2*math.Pi/3), q + 2*p*math.Cos(phi)
}

// inverse is the inverse of a 3×3 matrix by cofactors (a nonsingular one: deformation inverts only K whose
// eigenvalues are at least minCorrection).
func inverse(m [3][3]float64) scene.Mat3 {
	c00 := m[1][1]*m[2][2] - m[1][2]*m[2][1]
	c01 := m[1][2]*m[2][0] - m[1][0]*m[2][2]
	c02 := m[1][0]*m[2][1] - m[1][1]*m[2][0]
	d := 1 / (m[0][0]*c00 + m[0][1]*c01 + m[0][2]*c02)
	return scene.Mat3{
		{c00 * d, (m[0][2]*m[2][1] - m[0][1]*m[2][2]) * d, (m[0][1]*m[1][2] - m[0][2]*m[1][1]) * d},
		{c01 * d, (m[0][0]*m[2][2] - m[0][2]*m[2][0]) * d, (m[0][2]*m[1][0] - m[0][0]*m[1][2]) * d},
		{c02 * d, (m[0][1]*m[2][0] - m[0][0]*m[2][1]) * d, (m[0][0]*m[1][1] - m[0][1]*m[1][0]) * d},
	}
}

// stress is −V F S K⁺ for the deformation gradient f and the correction kp (deformation): the Green–Saint-Venant
// strain, the plastic flow of a plastic material (updating ep), Hooke's stress at the fraction frac of E. The force
// on body neighbour j is the result times g_ij.
func stress(f, kp [3][3]float32, ep *[6]float32, mt *solidMat, frac, vol float32) [9]float32 {
	var g [3][3]float32 // G = F − I
	for a := range 3 {
		for b := range 3 {
			g[a][b] = f[a][b]
		}
		g[a][a]--
	}
	var e [3][3]float32 // ε = ½(G + Gᵀ + GᵀG)
	for a := range 3 {
		for b := range 3 {
			gg := g[0][a]*g[0][b] + g[1][a]*g[1][b] + g[2][a]*g[2][b]
			e[a][b] = 0.5 * (g[a][b] + g[b][a] + gg)
		}
	}
	pl := [3][3]float32{{ep[0], ep[3], ep[5]}, {ep[3], ep[1], ep[4]}, {ep[5], ep[4], ep[2]}}
	for a := range 3 {
		for b := range 3 {
			e[a][b] -= pl[a][b]
		}
	}
	if mt.kind == scene.KindPlastic && mt.yield > 0 {
		tr := (e[0][0] + e[1][1] + e[2][2]) / 3
		var dev [3][3]float32
		n2 := float32(0)
		for a := range 3 {
			for b := range 3 {
				dev[a][b] = e[a][b]
				if a == b {
					dev[a][b] -= tr
				}
				n2 += dev[a][b] * dev[a][b]
			}
		}
		if n := sqrt32(n2); n > mt.yield {
			f := (n - mt.yield) / n
			for a := range 3 {
				for b := range 3 {
					pl[a][b] += f * dev[a][b]
				}
			}
			p2 := float32(0)
			for a := range 3 {
				for b := range 3 {
					p2 += pl[a][b] * pl[a][b]
				}
			}
			if pn := sqrt32(p2); pn > mt.pmax {
				c := mt.pmax / pn
				for a := range 3 {
					for b := range 3 {
						pl[a][b] *= c
					}
				}
			}
			*ep = [6]float32{pl[0][0], pl[1][1], pl[2][2], pl[0][1], pl[1][2], pl[0][2]}
			e = elasticPart(g, pl) // the elastic strain after the flow
		}
	}
	E := mt.e * frac
	lam := E * mt.nu / ((1 + mt.nu) * (1 - 2*mt.nu))
	mu := E / (2 * (1 + mt.nu))
	tr := e[0][0] + e[1][1] + e[2][2]
	var sg [3][3]float32
	for a := range 3 {
		for b := range 3 {
			sg[a][b] = 2 * mu * e[a][b]
		}
		sg[a][a] += lam * tr
	}
	var fs [3][3]float32 // F S
	for a := range 3 {
		for b := range 3 {
			fs[a][b] = f[a][0]*sg[0][b] + f[a][1]*sg[1][b] + f[a][2]*sg[2][b]
		}
	}
	var m [9]float32 // −V F S K⁺
	for a := range 3 {
		for b := range 3 {
			m[3*a+b] = -vol * (fs[a][0]*kp[0][b] + fs[a][1]*kp[1][b] + fs[a][2]*kp[2][b])
		}
	}
	return m
}

// elasticPart is ε(G) − ε_p.
func elasticPart(g, pl [3][3]float32) [3][3]float32 {
	var e [3][3]float32
	for a := range 3 {
		for b := range 3 {
			gg := g[0][a]*g[0][b] + g[1][a]*g[1][b] + g[2][a]*g[2][b]
			e[a][b] = 0.5*(g[a][b]+g[b][a]+gg) - pl[a][b]
		}
	}
	return e
}
