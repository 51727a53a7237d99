// Package reduced is the model-reduced 2D fluid of chapter 5 (§5.1–5.2) of the thesis in
// shared/papers/000_80182768fdc61ab5.txt, after Treuille et al. and De Witt et al.: the velocity in a W×H box
// with solid walls is u = B r, a few dozen divergence-free basis fields B and their coefficients r.
//
// The basis starts as the Laplacian eigenfunctions of the rectangle, the curls of the stream functions
// sin(k1πx/W)·sin(k2πy/H), the first Params.Modes by |eigenvalue| (73 in Table 5.1's game). Advection is the
// update r ← exp(Δt A(r)) r with A(r) = Σ_i r_i C_i (eqs. 5.7–5.9), each C_i holding −∫ b_k·(b_i·∇)b_j dA; for
// the eigenfunctions these integrals are in closed form and non-zero only where the wave numbers of k are
// sums or differences of those of i and j, so they are stored sparsely. The exponential times r is its Taylor
// series on short enough sub-steps. Viscosity is r ← exp(νΔt D) r with D = Bᵀ L B (eq. 5.6), diagonal for the
// eigenfunctions. Drawn currents (§5.2) are painted onto the grid (Grid.PaintStroke), made divergence free
// (Projector), deflated against the basis and orthonormalised by SVD (eq. 5.10), and join it (Model.Enrich); their
// coefficients with every other mode are computed on the grid, and their projections kept for
// Model.ExciteCurrent.
//
// Everything on the grid uses one staggered (MAC) layout over the rectangle, origin at its lower-left corner,
// NX×NY cells of DX = W/NX by DY = H/NY (65×65 by default), all arrays row-major with x fastest:
//
//	u: (NX+1)×NY values, face (i,j) at (i·DX, (j+½)·DY), index j·(NX+1)+i
//	v: NX×(NY+1) values, face (i,j) at ((i+½)·DX, j·DY), index j·NX+i
//	cells (divergence, pressure): NX×NY, cell (i,j) at ((i+½)·DX, (j+½)·DY), index j·NX+i
//
// with the inner product ⟨a,b⟩ = DX·DY·Σ_faces a·b, in which the basis is orthonormal: the eigenfunctions are
// sampled as the discrete curl of their stream function at the grid nodes, which makes them divergence free on
// the grid to rounding and mutually orthogonal exactly. A caller with its own face velocities (the vortex
// panels' feedback, §5.3.4) fills a Field of this shape and hands it to Model.Project or Model.AddField; tracers
// read Model.Velocity through Grid.Sample.
package reduced
