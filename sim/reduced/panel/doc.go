// Package panel couples rigid bodies to a 2D fluid with vortex panels: §5.3 of the dissertation in
// ../shared/papers/000_80182768fdc61ab5.txt (chapter 5, model-reduced fluids with two-way solid coupling). It is
// plain Go, knows nothing of the fluid's basis (the caller samples its velocity where asked), and nothing of the
// rigid-body engine (it returns forces).
//
// Conventions: world space is the fluid domain [0, W]×[0, H], y up, metres and seconds. A Shape is an outline in
// body space about the body's origin, counter-clockwise, cut into straight panels with outward normals; a Body
// places a shape at a position and angle (counter-clockwise radians) with a linear and an angular velocity. A
// panel's strength γ is vorticity per unit length, counter-clockwise positive.
//
// Solid to fluid (§5.3.1). A panel of constant strength induces the velocity of eq. 5.11 (the integral of point
// vortices along it), regularised by ε = DefaultEpsilon × its length at its ends. The strengths cancel the normal
// velocity of the total field relative to the body at collocation points, CollocationPoints per panel, with zero
// total circulation (eq. 5.15). The matrix of a shape (normal velocity per unit strength, eq. 5.12) is built and
// pseudo-inverted once, in body space, when the shape is made, with the circulation constraint imposed exactly;
// at run time a body's strengths are one matrix-vector product under any pose (see newShape for why the plain
// inverse does not exist and why two points per panel).
//
// Several bodies (§5.3.2). System.Solve solves each body alone (eq. 5.16), then sweeps the bodies in order
// (Schwarz, eq. 5.17), each with the velocity of the others' panels and of all mirrored panels at the newest
// strengths, until no strength changes by more than Options.Tolerance of the largest or Options.MaxIterations;
// sweeps that blow up instead (a body overlapping another or its own mirror image) stop, and the bodies keep
// the strengths they had alone.
// The velocity of every panel at every collocation point per unit strength is computed once per Solve, so a
// sweep costs a matrix-vector product. Result reports the sweeps and the last change.
//
// Domain walls (§5.3.3). A body whose estimated error at a wall, (R/d)² for radius R at distance d, exceeds
// Options.ImageThreshold is mirrored across the nearer wall in x and in y (and across both, the corner, when
// both), the mirrors with opposite strength (twice mirrored: the same); mirrored panels act only on points inside
// the domain. The panels' flow through a wall next to a mirrored body is then zero.
//
// Evaluation and feedback (§5.3.4). System.Velocity evaluates all panels at any points, in parallel (sim/par);
// eq. 5.11 stays finite on and near the panels: ε bounds the logarithm at the ends, and on a panel's own line the
// subtended angle takes its principal value. Feedback puts the panels' velocity on a staggered grid (Grid gives
// the layout): Naive at every face, or Quadtree, which descends a quadtree of the grid (leaves of at most 4×4
// cells) per panel and evaluates the panel once at a node's centre for all its faces where the precomputed error
// metric (eq. 5.19, per depth and distance) times the panel's strength is under a threshold; at threshold 0 it
// equals Naive exactly. Both are deterministic on any number of workers.
//
// Fluid to solid (§5.3.5). System.Forces gives each body the dynamic pressure force of eq. 5.21, q = ½ρ|u|² of
// the relative velocity its panels cancelled pushed along each panel's outward normal times its length, and the
// buoyancy of eq. 5.22 with the depth below the domain's top, which sums to ρ·area·g upward; both with their
// torques about the body's position.
package panel
