//go:build goexperiment.simd && amd64

package pbf

import (
	"simd/archsimd"
	"unsafe"

	"github.com/slosh/slosh/internal/soa"
	"github.com/slosh/slosh/sim/grid"
)

// The pair passes 16 particles side by side (AVX-512): lane l of every vector is particle lo+l of a block, and step
// k of the loop visits each lane's k-th neighbour. Each lane does the scalar pass's arithmetic in the scalar pass's
// order, so its sums are the same floats bit for bit (Go's scalar float arithmetic is not fused either, and a
// vector's square root and division round as the scalar ones do); only the work is shared. A lane whose list is
// shorter than k (it reads its own particle), or whose k-th neighbour has moved beyond h since the search, has its
// pair's kernel factor zeroed, so it adds ±0 to each sum (products of a zero with finite offsets and velocities),
// which leaves the sum as it is: a sum that starts at +0 or at W(0) is never −0 in round-to-nearest. Without bodies
// only: their passes stay scalar.
//
// On issue 30's dam break these passes take ... (docs/BENCHMARKS.md).

type vec = archsimd.Float32x16

// wideCPU reports whether the pair passes can take 16 particles side by side.
func wideCPU() bool { return archsimd.X86.AVX512() }

// lanes is one block's particles.
type lanes struct {
	used  int        // lanes holding particles: the block's size
	self  [16]int32  // each lane's particle (the block's last for the lanes past its end)
	count [16]int32  // its list's length (0 past the block's end)
	most  int32      // the longest list
	base  int        // where the block's lists start (grid.Slot), and its gradients
	n     [16]uint32 // the particle count, in each lane
}

// newLanes is the lanes of particles [lo, hi).
func newLanes(lo, hi, stride int, count []int32) lanes {
	ls := lanes{used: hi - lo, base: lo * stride}
	for l := range 16 {
		ls.n[l] = uint32(len(count))
		i := min(lo+l, hi-1)
		ls.self[l] = int32(i)
		if lo+l < hi {
			ls.count[l] = count[i]
			ls.most = max(ls.most, count[i])
		}
	}
	return ls
}

// step is the lanes' k-th neighbours in the lists (grid.Slot; padded by the search, so every lane holds an index).
func (ls *lanes) step(nbr []int32, k int32) *[16]int32 {
	o := ls.base + grid.Block*int(k)
	return (*[16]int32)(nbr[o : o+16])
}

// gather loads src of the 16 particles idx, transposed: x, y, z and w of each lane. The indices are checked
// against src's length at once, 16 at a time (one vector comparison instead of a bounds check a lane).
func (ls *lanes) gather(src [][4]float32, idx *[16]int32) (x, y, z, w vec) {
	if len(src) != int(ls.n[0]) || archsimd.LoadInt32x16(idx).AsUint32x16().GreaterEqual(archsimd.LoadUint32x16(&ls.n)).ToBits() != 0 {
		panic("pbf: a neighbour index out of range")
	}
	base := unsafe.Pointer(unsafe.SliceData(src))
	var a0, a1, a2, a3, a4, a5, a6, a7 archsimd.Float32x8
	a0 = a0.SetLo(load4(base, idx[0])).SetHi(load4(base, idx[1]))
	a1 = a1.SetLo(load4(base, idx[2])).SetHi(load4(base, idx[3]))
	a2 = a2.SetLo(load4(base, idx[4])).SetHi(load4(base, idx[5]))
	a3 = a3.SetLo(load4(base, idx[6])).SetHi(load4(base, idx[7]))
	a4 = a4.SetLo(load4(base, idx[8])).SetHi(load4(base, idx[9]))
	a5 = a5.SetLo(load4(base, idx[10])).SetHi(load4(base, idx[11]))
	a6 = a6.SetLo(load4(base, idx[12])).SetHi(load4(base, idx[13]))
	a7 = a7.SetLo(load4(base, idx[14])).SetHi(load4(base, idx[15]))
	var v0, v1, v2, v3 vec
	v0, v1, v2, v3 = v0.SetLo(a0).SetHi(a1), v1.SetLo(a2).SetHi(a3), v2.SetLo(a4).SetHi(a5), v3.SetLo(a6).SetHi(a7)
	return soa.Transpose(v0, v1, v2, v3)
}

// load4 is element j of the [][4]float32 that starts at base, j already checked.
func load4(base unsafe.Pointer, j int32) archsimd.Float32x4 {
	return archsimd.LoadFloat32x4((*[4]float32)(unsafe.Add(base, uintptr(j)*16)))
}

func splat(x float32) vec { return archsimd.BroadcastFloat32x16(x) }

// offsets is offset for each lane, r = p_i − q and |r|², with the lanes in narrowed to those within h (r² < h2).
func offsets(px, py, pz, qx, qy, qz, h2 vec, in archsimd.Mask32x16) (rx, ry, rz, r2 vec, within archsimd.Mask32x16) {
	rx, ry, rz = px.Sub(qx), py.Sub(qy), pz.Sub(qz)
	r2 = rx.Mul(rx).Add(ry.Mul(ry)).Add(rz.Mul(rz))
	return rx, ry, rz, r2, in.And(r2.Less(h2))
}

// spikyGrad is pairKernel.grad for each lane, gc the kernel's gradient coefficient: zero where r2 is.
func spikyGrad(r2, h, gc, zero vec) vec {
	dist := r2.Sqrt()
	e := h.Sub(dist)
	return gc.Mul(e).Mul(e).Div(dist).Masked(dist.Greater(zero))
}

// slot is the block's k-th gradients in pairG (grid.Slot).
func slot(pairG []float32, lo, stride int, k int32) *[16]float32 {
	o := lo*stride + grid.Block*int(k)
	return (*[16]float32)(pairG[o : o+16])
}

// lambdaBlock is lambdaPass.at for the fluid particles [lo, hi) side by side.
func lambdaBlock(l *lambdaPass, lo, hi int) {
	ls := newLanes(lo, hi, l.stride, l.count)
	kn := l.kn
	h2, h, wc, gc, mr, zero := splat(kn.h2), splat(kn.h), splat(kn.wCoef), splat(kn.gCoef), splat(l.mr), splat(0)
	px, py, pz, _ := ls.gather(l.p, &ls.self)
	rho, gx, gy, gz, sum2 := splat(l.w0), zero, zero, zero, zero
	cnt := archsimd.LoadInt32x16(&ls.count)
	for k := int32(0); k < ls.most; k++ {
		in := archsimd.BroadcastInt32x16(k).Less(cnt)
		qx, qy, qz, _ := ls.gather(l.p, ls.step(l.nbr, k))
		rx, ry, rz, r2, in := offsets(px, py, pz, qx, qy, qz, h2, in)
		d := h2.Sub(r2)
		rho = rho.Add(wc.Mul(d).Mul(d).Mul(d).Masked(in))
		gs := spikyGrad(r2, h, gc, zero)
		gs.Store(slot(l.pairG, lo, l.stride, k))
		g := mr.Mul(gs).Masked(in) // ±0 terms below where masked
		gjx, gjy, gjz := g.Mul(rx), g.Mul(ry), g.Mul(rz)
		sum2 = sum2.Add(gjx.Mul(gjx).Add(gjy.Mul(gjy)).Add(gjz.Mul(gjz)))
		gx, gy, gz = gx.Add(gjx), gy.Add(gjy), gz.Add(gjz)
	}
	var r, x, y, z, s [16]float32
	rho.Store(&r)
	gx.Store(&x)
	gy.Store(&y)
	gz.Store(&z)
	sum2.Store(&s)
	archsimd.ClearAVXUpperBits() // before the scalar code: see grid's scanner
	for q := range ls.used {
		l.finish(lo+q, r[q], x[q], y[q], z[q], s[q])
	}
}

// deltaBlock is deltaPass.at for the fluid particles [lo, hi) side by side.
func deltaBlock(d *deltaPass, lo, hi int) {
	ls := newLanes(lo, hi, d.stride, d.count)
	kn := d.kn
	h2, wc, inv, nk := splat(kn.h2), splat(kn.wCoef), splat(d.invWDq), splat(-d.scorrK)
	px, py, pz, li := ls.gather(d.packed, &ls.self)
	var dx, dy, dz vec
	cnt := archsimd.LoadInt32x16(&ls.count)
	for k := int32(0); k < ls.most; k++ {
		in := archsimd.BroadcastInt32x16(k).Less(cnt)
		qx, qy, qz, lj := ls.gather(d.packed, ls.step(d.nbr, k))
		rx, ry, rz, r2, in := offsets(px, py, pz, qx, qy, qz, h2, in)
		e := h2.Sub(r2)
		x := wc.Mul(e).Mul(e).Mul(e).Mul(inv)
		p := x
		for range d.n - 1 { // powN
			p = p.Mul(x)
		}
		g := li.Add(lj).Add(nk.Mul(p)).Mul(archsimd.LoadFloat32x16(slot(d.pairG, lo, d.stride, k))).Masked(in)
		dx, dy, dz = dx.Add(g.Mul(rx)), dy.Add(g.Mul(ry)), dz.Add(g.Mul(rz))
	}
	var x, y, z [16]float32
	dx.Store(&x)
	dy.Store(&y)
	dz.Store(&z)
	archsimd.ClearAVXUpperBits()
	for q := range ls.used {
		d.finish(lo+q, x[q], y[q], z[q])
	}
}

// vortBlock is vortPass.at for the fluid particles [lo, hi) side by side.
func vortBlock(vp *vortPass, lo, hi int) {
	ls := newLanes(lo, hi, vp.stride, vp.count)
	kn := vp.kn
	h2, h, wc, gc, zero := splat(kn.h2), splat(kn.h), splat(kn.wCoef), splat(kn.gCoef), splat(0)
	px, py, pz, _ := ls.gather(vp.p, &ls.self)
	vx, vy, vz, _ := ls.gather(vp.v, &ls.self)
	rho, wx, wy, wz := splat(vp.w0), zero, zero, zero
	cnt := archsimd.LoadInt32x16(&ls.count)
	for k := int32(0); k < ls.most; k++ {
		in := archsimd.BroadcastInt32x16(k).Less(cnt)
		js := ls.step(vp.nbr, k)
		qx, qy, qz, _ := ls.gather(vp.p, js)
		ux, uy, uz, _ := ls.gather(vp.v, js)
		rx, ry, rz, r2, in := offsets(px, py, pz, qx, qy, qz, h2, in)
		d := h2.Sub(r2)
		rho = rho.Add(wc.Mul(d).Mul(d).Mul(d).Masked(in))
		g := spikyGrad(r2, h, gc, zero)
		g.Store(slot(vp.pairG, lo, vp.stride, k))
		g = g.Masked(in) // ±0 terms below where masked
		gx, gy, gz := g.Mul(rx), g.Mul(ry), g.Mul(rz)
		ux, uy, uz = ux.Sub(vx), uy.Sub(vy), uz.Sub(vz)
		wx = wx.Add(gy.Mul(uz).Sub(gz.Mul(uy)))
		wy = wy.Add(gz.Mul(ux).Sub(gx.Mul(uz)))
		wz = wz.Add(gx.Mul(uy).Sub(gy.Mul(ux)))
	}
	var r, x, y, z [16]float32
	rho.Store(&r)
	wx.Store(&x)
	wy.Store(&y)
	wz.Store(&z)
	archsimd.ClearAVXUpperBits()
	for q := range ls.used {
		vp.finish(lo+q, r[q], x[q], y[q], z[q])
	}
}

// confineBlock is confinePass.at for the fluid particles [lo, hi) side by side.
func confineBlock(cp *confinePass, lo, hi int) {
	ls := newLanes(lo, hi, cp.stride, cp.count)
	kn := cp.kn
	h2, wc := splat(kn.h2), splat(kn.wCoef)
	px, py, pz, _ := ls.gather(cp.p, &ls.self)
	vx, vy, vz, wl := ls.gather(cp.vw, &ls.self)
	var ex, ey, ez, sx, sy, sz vec
	cnt := archsimd.LoadInt32x16(&ls.count)
	for k := int32(0); k < ls.most; k++ {
		in := archsimd.BroadcastInt32x16(k).Less(cnt)
		js := ls.step(cp.nbr, k)
		qx, qy, qz, _ := ls.gather(cp.p, js)
		ux, uy, uz, ul := ls.gather(cp.vw, js)
		rx, ry, rz, r2, in := offsets(px, py, pz, qx, qy, qz, h2, in)
		d := h2.Sub(r2)
		w := wc.Mul(d).Mul(d).Mul(d).Masked(in) // ±0 terms below where masked
		g := ul.Sub(wl).Mul(archsimd.LoadFloat32x16(slot(cp.pairG, lo, cp.stride, k))).Masked(in)
		ex, ey, ez = ex.Add(g.Mul(rx)), ey.Add(g.Mul(ry)), ez.Add(g.Mul(rz))
		sx = sx.Add(ux.Sub(vx).Mul(w))
		sy = sy.Add(uy.Sub(vy).Mul(w))
		sz = sz.Add(uz.Sub(vz).Mul(w))
	}
	var a, b, c, x, y, z [16]float32
	ex.Store(&a)
	ey.Store(&b)
	ez.Store(&c)
	sx.Store(&x)
	sy.Store(&y)
	sz.Store(&z)
	archsimd.ClearAVXUpperBits()
	for q := range ls.used {
		cp.finish(lo+q, a[q], b[q], c[q], x[q], y[q], z[q])
	}
}
