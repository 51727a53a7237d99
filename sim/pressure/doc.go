// Package pressure solves pressure systems on a grid: 7-point matrices (plus low-rank terms for coupled rigid
// bodies), MIC(0), preconditioned conjugate gradients and MPRGP for the unilateral (complementarity) problem.
//
// It serves the FLIP mode (sim/flip) of issue 12: mass-full FLIP with unilateral incompressibility, Chapter 3 of
// Gerszewski's thesis (../shared/papers/000, §3.1; restated in DESIGN.md §4), and the classic incompressible FLIP
// it is compared against.
//
// # The systems
//
// A Matrix is a symmetric 7-point matrix on an Nx×Ny×Nz grid of cells (cell index i + Nx·(j + Ny·k)), a weighted
// Laplacian such as A = −Δt²·D(V_f/ρ_f)G: a cell is in the system iff Diag[c] > 0, and X, Y, Z hold the
// couplings to the +x, +y, +z neighbours; couplings to cells out of the system or past the grid's edge are ignored
// (so Dirichlet faces are simply counted on the diagonal and Neumann faces are not). Rigid bodies add
// Σ_k U_k W_k U_kᵀ (LowRank).
//
// One sign convention holds everywhere, the paper's: the unknown p, the vector b, and w = A p + b.
//   - CG solves the bilateral problem w = 0, i.e. A p = −b (classic FLIP).
//   - MPRGP solves the linear complementarity problem (eqs. 3.3–3.5) w = A p + b, p ≥ 0, w ≥ 0, pᵀw = 0, which is
//     the minimum of ½pᵀAp + bᵀp over p ≥ 0 (unilateral incompressibility: a cell is either full, w = 0, or at
//     zero pressure). MPRGPBounded takes per-cell lower bounds instead of 0 (−Inf: unconstrained), which the
//     paper uses to allow suction away from the liquid's surface.
//   - PGS solves the same complementarity problem by projected Gauss–Seidel: a slow, simple reference for tests.
//
// # The methods
//
// MIC(0) follows Bridson, "Fluid Simulation for Computer Graphics", ch. 5 (τ = 0.97, σ = 0.25), in the natural
// cell order; its diagonal includes the low-rank terms' diagonal (their off-diagonal part is left to the Krylov
// iteration). CG is MIC(0)-preconditioned conjugate gradients, warm-started, confirming convergence on the true
// residual.
//
// MPRGP is Dostál's modified proportioning with reduced gradient projections (Dostál, "Optimal Quadratic
// Programming Algorithms", 2009; Dostál & Schöberl 2005): CG steps on the free set, expansion steps with the
// fixed steplength ᾱ = 1.9/‖A‖ (inside (0, 2/‖A‖]), and proportioning steps when the chopped gradient dominates
// the reduced free gradient (Γ = 1). An expansion first tries the whole CG step projected onto the feasible set,
// and keeps it when it lowers the cost at least as much as the feasible part of Dostál's step does (the "projcg"
// expansion with fallback of PERMON, Kružík et al.): Dostál's gradient step moves the free cells by only 1.9/‖A‖
// of their gradient, and on the sand column at 1 cm the solve took 26 such steps of its 34; with the projected
// step first, 11–13 expansions of 26–28 steps. It is preconditioned in face: MIC(0) of the free set's submatrix A_FF,
// refactored whenever the free set changes (see MPRGPBounded for why that keeps it convergent). ‖A‖ comes from
// power iteration warm-started from the previous call's eigenvector (Solver.Eigen), as §3.1 recommends: on a
// slightly changed matrix it takes 2–3 products instead of about 50. The estimate is capped by the Gershgorin
// bound, which for grid Laplacians is nearly tight, so ᾱ never exceeds 2/‖A‖.
//
// # Parallelism, determinism, allocation
//
// Products, dot products, norms and vector updates run on Solver.Pool (sim/par). Every reduction sums over fixed
// blocks of 4096 cells and combines the blocks in order on the calling goroutine, and every product computes each
// cell the same way whatever the split, so a solve gives bit-identical results with any worker count (tested) —
// which save and load's bit-exact continuation relies on, together with Solver.Eigen, which is state to be saved.
// The loops visit only the runs of cells in the system along x-lines (air and solid cells cost nothing but one
// scan per solve). The MIC(0) factorisation and its triangular solves keep the natural order's dependencies, so they
// are exactly Bridson's MIC(0) of that order, but run pipelined (pipeline.go): each plane's y-lines are cut into one
// range per worker, and worker w does a plane once worker w−1 has done it, so the workers run a plane apart and
// every cell computes what the sequential pass computes (tested bit for bit). On the 64³ dam break (65k cells in
// the system) on 2 cores an application takes 0.42–0.45 ms pipelined against 0.81–0.88 ms sequentially, the
// factorisation 0.95 against 1.45 ms (BenchmarkMIC, BenchmarkMICFactor); systems under 16,384 cells stay
// sequential.
//
// Workspaces live in the Solver, grow to the largest system seen and are reused: once sized, a solve allocates
// nothing proportional to the grid (only par.For's goroutines and loop closures, a few small objects per loop).
//
// # Results and errors
//
// A solve returns a Result (steps, products, relative residual, convergence, MPRGP's step kinds and norm
// estimate) and an error: non-finite input or iterates give an error wrapping ErrNotFinite at once, never an
// endless loop; wrong vector lengths are programmer errors and panic. Not converging within maxIter is not an
// error: Converged is false.
package pressure
