package sph

import (
	"math"

	"github.com/slosh/slosh/internal/sym3"
	"github.com/slosh/slosh/sim/rigid"
	"github.com/slosh/slosh/sim/scene"
)

// Rigid bodies of particles (004 §5.3; solids.go says how they fit the step).

// findClusters finds the rigid bodies of particles: the particles in the rigid phase connected by bonds, with their
// mass, centre of mass, inertia, linear and angular momentum at x(t).
func (s *Solver) findClusters() {
	so := &s.sol
	so.clus = so.clus[:0]
	for i := range s.rbody {
		s.rbody[i] = -1
	}
	// union–find over slots of rigid particles
	parent := make([]int32, len(so.slots))
	for k := range parent {
		parent[k] = int32(k)
	}
	var find func(a int32) int32
	find = func(a int32) int32 {
		for parent[a] != a {
			parent[a] = parent[parent[a]]
			a = parent[a]
		}
		return a
	}
	rigidSlot := func(sl int32) bool {
		o := so.slots[sl].owner
		return o >= 0 && s.phase(int(o)) == phaseRigid
	}
	for k := range so.slots {
		a := int32(k)
		if !rigidSlot(a) {
			continue
		}
		st := &so.slots[k]
		for b := range st.N {
			c := st.Bonds[b].Slot
			if rigidSlot(c) {
				ra, rc := find(a), find(c)
				if ra != rc {
					parent[max(ra, rc)] = min(ra, rc)
				}
			}
		}
	}
	index := map[int32]int32{}
	for i := range s.x {
		sl := s.slot[i]
		if sl < 0 || !rigidSlot(sl) {
			continue
		}
		r := find(sl)
		c, ok := index[r]
		if !ok {
			c = int32(len(so.clus))
			index[r] = c
			so.clus = append(so.clus, cluster{})
		}
		s.rbody[i] = c
		so.clus[c].members = append(so.clus[c].members, int32(i))
	}
	a := float64(s.dv.Spacing) / 2
	for c := range so.clus {
		s.measureCluster(&so.clus[c], a)
	}
}

// measureCluster sets a cluster's mass, centre of mass, inverse inertia, momentum and angular momentum from its
// particles (a the particles' radius, for clusters without an inverse inertia).
func (s *Solver) measureCluster(c *cluster, a float64) {
	m, cm, p := s.means(c.members, s.x, s.v)
	var in [3][3]float64
	var l scene.Vec3
	for _, i := range c.members {
		mi := float64(s.mass[s.mat[i]])
		r := vec64(s.x[i]).Sub(cm)
		for x := range 3 {
			for y := range 3 {
				in[x][y] -= mi * r[x] * r[y]
			}
			in[x][x] += mi * r.Dot(r)
		}
		l = l.Add(r.Cross(vec64(s.v[i])).Scale(mi))
	}
	// a cluster of one particle, two, or a line of them has no inverse inertia, and one nearly a line an inverse
	// that turns the smallest torque into a spin no step can follow: each of the inertia's principal moments is
	// held at least 2/5 M a², a solid sphere's of the cluster's mass and a particle's radius, which a body that
	// spans a few spacings in every direction exceeds many times (it keeps L exactly; TestRigidClustersStayRigid);
	// a line of particles, which its L does not see turning about itself, slowly loses that spin
	val, vec := sym3.Eigen(in)
	floor := 0.4 * m * a * a
	var inv scene.Mat3
	for e := range 3 {
		w := 1 / math.Max(val[e], floor)
		for x := range 3 {
			for y := range 3 {
				inv[x][y] += w * vec[x][e] * vec[y][e]
			}
		}
	}
	c.mass, c.cm, c.vel, c.ang, c.inv = m, cm, p, l, inv
}

// moveClusters replaces the predicted positions and velocities of the rigid clusters' particles by their cluster's
// rigid motion under the accelerations anp + ap (the force and torque of eq. 5.9–5.11), then projects them out of
// the solids, fitting the cluster's motion to the projected positions where the projection moved any.
func (s *Solver) moveClusters(dt float32) {
	so := &s.sol
	if len(so.clus) == 0 {
		return
	}
	h := float64(dt)
	s.pool.For(len(so.clus), 1, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			cl := &so.clus[c]
			var f, tau scene.Vec3
			for _, i := range cl.members {
				fi := vec64(s.anp[i]).Add(vec64(s.ap[i])).Scale(float64(s.mass[s.mat[i]]))
				f = f.Add(fi)
				tau = tau.Add(vec64(s.x[i]).Sub(cl.cm).Cross(fi))
			}
			v := cl.vel.Add(f.Scale(h / cl.mass))
			l := cl.ang.Add(tau.Scale(h))
			cm := cl.cm.Add(v.Scale(h))
			rot := rotation(cl.inv.MulVec(l), h)
			// ω at t + Δt from the rotated inertia R I Rᵀ, so that the cluster's L at the next step's start is
			// this L: a free body keeps its angular momentum as it turns
			wn := rot.Mul(cl.inv).Mul(rot.Transpose()).MulVec(l)
			moved := false
			for _, i := range cl.members {
				rr := rot.MulVec(vec64(s.x[i]).Sub(cl.cm))
				q := [4]float32{float32(cm[0] + rr[0]), float32(cm[1] + rr[1]), float32(cm[2] + rr[2]), 0}
				wr := v.Add(wn.Cross(rr))
				s.vs[i] = [4]float32{float32(wr[0]), float32(wr[1]), float32(wr[2]), 0}
				c := q
				s.bodyApply(&c)
				s.col.Apply(&c)
				moved = moved || c != q
				s.xs[i], s.tmp[i] = q, c
			}
			if moved {
				s.fitCluster(cl, dt)
			}
		}
	})
}

// means is the members' mass and the mass-weighted means of their values in a and in b (a centre of mass and a
// momentum per mass, say).
func (s *Solver) means(members []int32, a, b [][4]float32) (m float64, ma, mb scene.Vec3) {
	for _, i := range members {
		mi := float64(s.mass[s.mat[i]])
		m += mi
		for k := range 3 {
			ma[k] += mi * float64(a[i][k])
			mb[k] += mi * float64(b[i][k])
		}
	}
	for k := range 3 {
		ma[k] /= m
		mb[k] /= m
	}
	return m, ma, mb
}

// fitCluster moves a cluster whose particles the collision projection moved (their projected positions in tmp) to
// the rigid motion that best fits them: the mass-weighted centroid and the rotation of the cross-covariance
// (shape matching), velocities from the positions' change over the step.
func (s *Solver) fitCluster(cl *cluster, dt float32) {
	m, p, c := s.means(cl.members, s.xs, s.tmp)
	var a rigid.Mat3
	for _, i := range cl.members {
		mi := float64(s.mass[s.mat[i]])
		for x := range 3 {
			for y := range 3 {
				a[x][y] += float32(mi / m * (float64(s.tmp[i][x]) - c[x]) * (float64(s.xs[i][y]) - p[y]))
			}
		}
	}
	r := rigid.ExtractRotation(&a, rigid.IdentityQuat).Matrix()
	inv := 1 / dt
	for _, i := range cl.members {
		q := s.xs[i]
		x, y, z := r.Apply(float32(float64(q[0])-p[0]), float32(float64(q[1])-p[1]), float32(float64(q[2])-p[2]))
		n := [4]float32{float32(c[0]) + x, float32(c[1]) + y, float32(c[2]) + z, 0}
		s.xs[i] = n
		s.vs[i] = [4]float32{(n[0] - s.x[i][0]) * inv, (n[1] - s.x[i][1]) * inv, (n[2] - s.x[i][2]) * inv, 0}
	}
}

// vec64 is the position or velocity p in float64.
func vec64(p [4]float32) scene.Vec3 { return scene.Vec3{float64(p[0]), float64(p[1]), float64(p[2])} }

// rotation is the rotation by the angle |w| h about w (Rodrigues).
func rotation(w scene.Vec3, h float64) scene.Mat3 {
	th := w.Len() * h
	if th == 0 {
		return scene.Mat3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	}
	k := w.Scale(h / th)
	c, s := math.Cos(th), math.Sin(th)
	t := 1 - c
	return scene.Mat3{
		{c + t*k[0]*k[0], t*k[0]*k[1] - s*k[2], t*k[0]*k[2] + s*k[1]},
		{t*k[1]*k[0] + s*k[2], c + t*k[1]*k[1], t*k[1]*k[2] - s*k[0]},
		{t*k[2]*k[0] - s*k[1], t*k[2]*k[1] + s*k[0], c + t*k[2]*k[2]},
	}
}
