package reduced

import (
	"fmt"
	"math"
)

// Grid is the staggered (MAC) background grid over the rectangle [0,W]×[0,H]: NX×NY square-ish cells of size
// DX = W/NX by DY = H/NY, the origin at the rectangle's lower-left corner.
//
//   - u (the x velocity) lives on vertical faces: (NX+1)×NY values, face (i,j) at (i·DX, (j+½)·DY),
//     index j·(NX+1)+i, i = 0..NX, j = 0..NY-1. Faces i = 0 and i = NX lie on the walls.
//   - v (the y velocity) lives on horizontal faces: NX×(NY+1) values, face (i,j) at ((i+½)·DX, j·DY),
//     index j·NX+i, i = 0..NX-1, j = 0..NY. Faces j = 0 and j = NY lie on the walls.
//   - cell-centred quantities (divergence, pressure): NX×NY values, cell (i,j) at ((i+½)·DX, (j+½)·DY),
//     index j·NX+i.
//
// Rows are y, so every array is row-major with x varying fastest. The inner product of two face fields is
// ⟨a,b⟩ = DX·DY·(Σ a.U·b.U + Σ a.V·b.V) over all faces, the discrete ∫ a·b dA; the basis is orthonormal in it.
type Grid struct {
	NX, NY int
	W, H   float64
	DX, DY float64
}

// Field is a velocity field on a Grid's faces, laid out as Grid describes: len(U) = (NX+1)·NY,
// len(V) = NX·(NY+1).
type Field struct {
	U, V []float64
}

// NewGrid returns the grid of nx×ny cells over a w×h rectangle.
func NewGrid(w, h float64, nx, ny int) (Grid, error) {
	if !(w > 0) || !(h > 0) || math.IsInf(w, 0) || math.IsInf(h, 0) {
		return Grid{}, fmt.Errorf("reduced: rectangle %g×%g: sides must be positive and finite", w, h)
	}
	if nx < 2 || ny < 2 || nx > MaxGridSide || ny > MaxGridSide {
		return Grid{}, fmt.Errorf("reduced: grid %d×%d cells: each side must be in [2, %d]", nx, ny, MaxGridSide)
	}
	return Grid{NX: nx, NY: ny, W: w, H: h, DX: w / float64(nx), DY: h / float64(ny)}, nil
}

// NU is the number of u faces, (NX+1)·NY.
func (g Grid) NU() int { return (g.NX + 1) * g.NY }

// NV is the number of v faces, NX·(NY+1).
func (g Grid) NV() int { return g.NX * (g.NY + 1) }

// Cells is the number of cells, NX·NY.
func (g Grid) Cells() int { return g.NX * g.NY }

// UIndex is the index of u face (i,j), i in [0,NX], j in [0,NY).
func (g Grid) UIndex(i, j int) int { return j*(g.NX+1) + i }

// VIndex is the index of v face (i,j), i in [0,NX), j in [0,NY].
func (g Grid) VIndex(i, j int) int { return j*g.NX + i }

// UPos is the position of u face (i,j).
func (g Grid) UPos(i, j int) (x, y float64) { return float64(i) * g.DX, (float64(j) + 0.5) * g.DY }

// VPos is the position of v face (i,j).
func (g Grid) VPos(i, j int) (x, y float64) { return (float64(i) + 0.5) * g.DX, float64(j) * g.DY }

// NewField allocates a zero field on g.
func (g Grid) NewField() Field {
	return Field{U: make([]float64, g.NU()), V: make([]float64, g.NV())}
}

// Check reports whether f has g's shape.
func (g Grid) Check(f Field) error {
	if len(f.U) != g.NU() || len(f.V) != g.NV() {
		return fmt.Errorf("reduced: field has %d u and %d v faces, grid %d×%d needs %d and %d",
			len(f.U), len(f.V), g.NX, g.NY, g.NU(), g.NV())
	}
	return nil
}

// Dot is the grid inner product ⟨a,b⟩ = DX·DY·Σ a·b over all faces. Both fields must have g's shape.
func (g Grid) Dot(a, b Field) float64 {
	return g.DX * g.DY * (dot(a.U, b.U) + dot(a.V, b.V))
}

// Norm is √⟨f,f⟩.
func (g Grid) Norm(f Field) float64 { return math.Sqrt(g.Dot(f, f)) }

// Divergence writes the discrete divergence of f into dst (one value per cell, index j·NX+i):
// (u(i+1,j) − u(i,j))/DX + (v(i,j+1) − v(i,j))/DY.
func (g Grid) Divergence(dst []float64, f Field) {
	nx, ny := g.NX, g.NY
	if len(dst) != nx*ny {
		panic("reduced: Divergence: dst has the wrong length")
	}
	for j := 0; j < ny; j++ {
		for i := 0; i < nx; i++ {
			u0 := f.U[j*(nx+1)+i]
			u1 := f.U[j*(nx+1)+i+1]
			v0 := f.V[j*nx+i]
			v1 := f.V[(j+1)*nx+i]
			dst[j*nx+i] = (u1-u0)/g.DX + (v1-v0)/g.DY
		}
	}
}

// ZeroWalls sets the velocity normal to the walls (u on i = 0 and NX, v on j = 0 and NY) to zero.
func (g Grid) ZeroWalls(f Field) {
	nx, ny := g.NX, g.NY
	for j := 0; j < ny; j++ {
		f.U[j*(nx+1)] = 0
		f.U[j*(nx+1)+nx] = 0
	}
	for i := 0; i < nx; i++ {
		f.V[i] = 0
		f.V[ny*nx+i] = 0
	}
}

// Sample returns the velocity of f at (x, y), each component bilinear from its own faces. Points outside the
// rectangle are clamped onto it; near the walls the tangential component is held constant over the last half
// cell (free slip).
func (g Grid) Sample(f Field, x, y float64) (vx, vy float64) {
	vx = bilinear(f.U, g.NX+1, g.NY, x/g.DX, y/g.DY-0.5)
	vy = bilinear(f.V, g.NX, g.NY+1, x/g.DX-0.5, y/g.DY)
	return vx, vy
}

// bilinear interpolates a row-major nx×ny array at fractional index (fx, fy), clamped to the array.
func bilinear(a []float64, nx, ny int, fx, fy float64) float64 {
	if !(fx > 0) { // also NaN
		fx = 0
	}
	if !(fy > 0) {
		fy = 0
	}
	if fx > float64(nx-1) {
		fx = float64(nx - 1)
	}
	if fy > float64(ny-1) {
		fy = float64(ny - 1)
	}
	i0 := min(int(fx), nx-2)
	j0 := min(int(fy), ny-2)
	tx := fx - float64(i0)
	ty := fy - float64(j0)
	a00 := a[j0*nx+i0]
	a10 := a[j0*nx+i0+1]
	a01 := a[(j0+1)*nx+i0]
	a11 := a[(j0+1)*nx+i0+1]
	return (1-ty)*((1-tx)*a00+tx*a10) + ty*((1-tx)*a01+tx*a11)
}

// Laplacian writes the discrete vector Laplacian of f into dst with free-slip walls: the 5-point stencil on
// each component's own faces, wall-normal faces held at zero (Dirichlet) and a mirrored ghost across the walls
// along each face row (Neumann). The Laplacian eigenfunctions of the basis are its exact eigenvectors.
func (g Grid) Laplacian(dst, f Field) {
	nx, ny := g.NX, g.NY
	ix2, iy2 := 1/(g.DX*g.DX), 1/(g.DY*g.DY)
	for j := 0; j < ny; j++ {
		for i := 0; i <= nx; i++ {
			k := j*(nx+1) + i
			if i == 0 || i == nx {
				dst.U[k] = 0
				continue
			}
			c := f.U[k]
			dn, up := c, c // mirrored ghosts at the horizontal walls
			if j > 0 {
				dn = f.U[k-(nx+1)]
			}
			if j < ny-1 {
				up = f.U[k+nx+1]
			}
			dst.U[k] = (f.U[k-1]-2*c+f.U[k+1])*ix2 + (dn-2*c+up)*iy2
		}
	}
	for j := 0; j <= ny; j++ {
		for i := 0; i < nx; i++ {
			k := j*nx + i
			if j == 0 || j == ny {
				dst.V[k] = 0
				continue
			}
			c := f.V[k]
			lf, rt := c, c
			if i > 0 {
				lf = f.V[k-1]
			}
			if i < nx-1 {
				rt = f.V[k+1]
			}
			dst.V[k] = (lf-2*c+rt)*ix2 + (f.V[k-nx]-2*c+f.V[k+nx])*iy2
		}
	}
}

// Advection writes (a·∇)b on the faces into dst: on each face, a's own component there and its other component
// averaged from the four nearest faces, b's derivatives by central differences with mirrored ghosts along the
// walls. Wall-normal faces are left zero (every basis field vanishes there, so they never count in a projection).
func (g Grid) Advection(dst, a, b Field) {
	nx, ny := g.NX, g.NY
	hx, hy := 0.5/g.DX, 0.5/g.DY
	for j := 0; j < ny; j++ {
		for i := 0; i <= nx; i++ {
			k := j*(nx+1) + i
			if i == 0 || i == nx {
				dst.U[k] = 0
				continue
			}
			ua := a.U[k]
			va := 0.25 * (a.V[j*nx+i-1] + a.V[j*nx+i] + a.V[(j+1)*nx+i-1] + a.V[(j+1)*nx+i])
			c := b.U[k]
			dn, up := c, c
			if j > 0 {
				dn = b.U[k-(nx+1)]
			}
			if j < ny-1 {
				up = b.U[k+nx+1]
			}
			dst.U[k] = ua*(b.U[k+1]-b.U[k-1])*hx + va*(up-dn)*hy
		}
	}
	for j := 0; j <= ny; j++ {
		for i := 0; i < nx; i++ {
			k := j*nx + i
			if j == 0 || j == ny {
				dst.V[k] = 0
				continue
			}
			va := a.V[k]
			ua := 0.25 * (a.U[(j-1)*(nx+1)+i] + a.U[(j-1)*(nx+1)+i+1] + a.U[j*(nx+1)+i] + a.U[j*(nx+1)+i+1])
			c := b.V[k]
			lf, rt := c, c
			if i > 0 {
				lf = b.V[k-1]
			}
			if i < nx-1 {
				rt = b.V[k+1]
			}
			dst.V[k] = ua*(rt-lf)*hx + va*(b.V[k+nx]-b.V[k-nx])*hy
		}
	}
}

func dot(a, b []float64) float64 {
	var s float64
	b = b[:len(a)]
	for i, x := range a {
		s += x * b[i]
	}
	return s
}
