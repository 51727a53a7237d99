// Ellipsoid splats, shared by their vertex and fragment shaders. Include after render_common.glsl.
//
// An ellipsoid with eye-space centre c and mutually orthogonal semi-axes a0, a1, a2 (the columns of A) is the image
// of the unit sphere under u ↦ c + A·u. Its inverse is u = A⁻¹(x − c), and because the axes are orthogonal the
// rows of A⁻¹ are simply r_i = a_i / |a_i|². The vertex shader hands the rows and C = A⁻¹c to the fragment
// shader, which intersects the eye ray x = t·d in that frame: |t·A⁻¹d − C| = 1, a quadratic in t.

// ellipsoidBounds finds the NDC rectangle (xmin, ymin, xmax, ymax) that holds the perspective projection of the
// ellipsoid (c, A), after Sigg et al. 2006: with T = Proj·[A c; 0 1] taking the unit sphere to clip space, the
// planes x = λ·w tangent to the ellipsoid satisfy pᵀ·T·diag(1,1,1,−1)·Tᵀ·p = 0 for p = (1, 0, 0, −λ), a quadratic
// in λ whose roots are the rectangle's sides (likewise for y). The discriminant is rearranged as
// |β·a − α·b|² − |a × b|² (a, α: the x row of T; b, β: its w row) so that no large terms cancel, which keeps far,
// small particles exact in float. It returns false when the ellipsoid reaches the plane of the eye (its
// projection is unbounded) or lies behind it.
bool ellipsoidBounds(vec3 c, mat3 A, out vec4 box) {
	mat4 T = uProj * mat4(vec4(A[0], 0.0), vec4(A[1], 0.0), vec4(A[2], 0.0), vec4(c, 1.0));
	vec4 rx = vec4(T[0][0], T[1][0], T[2][0], T[3][0]);
	vec4 ry = vec4(T[0][1], T[1][1], T[2][1], T[3][1]);
	vec4 rw = vec4(T[0][3], T[1][3], T[2][3], T[3][3]);
	float r33 = dot(rw.xyz, rw.xyz) - rw.w * rw.w;
	box = vec4(0.0);
	if (!(r33 < 0.0) || rw.w <= 0.0) {
		return false;
	}
	float r03 = dot(rx.xyz, rw.xyz) - rx.w * rw.w;
	float r13 = dot(ry.xyz, rw.xyz) - ry.w * rw.w;
	vec3 ex = rw.w * rx.xyz - rx.w * rw.xyz, cx = cross(rx.xyz, rw.xyz);
	vec3 ey = rw.w * ry.xyz - ry.w * rw.xyz, cy = cross(ry.xyz, rw.xyz);
	float hx = sqrt(max(dot(ex, ex) - dot(cx, cx), 0.0)) / -r33;
	float hy = sqrt(max(dot(ey, ey) - dot(cy, cy), 0.0)) / -r33;
	vec2 mid = vec2(r03, r13) / r33;
	box = vec4(mid - vec2(hx, hy), mid + vec2(hx, hy));
	return true;
}

// rayEllipsoid intersects the eye ray t·d with the ellipsoid whose inverse has rows r0, r1, r2 and whose centre in
// the unit-sphere frame is C. On a hit t0 ≤ t1 are the ray parameters of entry and exit (eye depths, when
// d.z = −1). The closest approach to the centre is computed first, as for the sphere impostors, so that the
// discriminant never subtracts two large numbers.
bool rayEllipsoid(vec3 d, vec3 r0, vec3 r1, vec3 r2, vec3 C, out float t0, out float t1) {
	vec3 D = vec3(dot(r0, d), dot(r1, d), dot(r2, d));
	float a = dot(D, D);
	float tc = dot(D, C) / a;    // closest approach
	vec3 off = tc * D - C;       // from the centre to the ray there, unit-sphere frame
	float h2 = 1.0 - dot(off, off);
	t0 = t1 = tc;
	if (!(h2 >= 0.0)) {
		return false;
	}
	float h = sqrt(h2 / a);
	t0 = tc - h;
	t1 = tc + h;
	return true;
}

// ellipsoidNormal is the unit eye-space normal at the eye-space point x = t·d of the ellipsoid: the gradient of
// |A⁻¹(x − c)|², that is Σ u_i·r_i with u = A⁻¹(x − c).
vec3 ellipsoidNormal(vec3 d, float t, vec3 r0, vec3 r1, vec3 r2, vec3 C) {
	vec3 u = t * vec3(dot(r0, d), dot(r1, d), dot(r2, d)) - C;
	return normalize(u.x * r0 + u.y * r1 + u.z * r2);
}
