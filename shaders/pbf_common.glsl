// Shared by the PBF compute passes (gpu/pbf): the parameter block, kernels, obstacle distances, collisions and the
// boundary density. The neighbour grid comes from gpu/nsearch (nsearch.glsl). Every function mirrors its Go counterpart in sim/pbf operation for operation, so the CPU and
// GPU solvers agree to float rounding. Binding points and sizes come from Go as #defines.
#include "nsearch.glsl"

// Mirrors gpu/pbf.params (std140: scalars packed four to a vec4 slot).
layout(std140, binding = BIND_PARAMS) uniform Params {
	uint n;          // particles
	uint stride;     // neighbour-list capacity per particle
	uint numObstacles;
	uint numBodies;  // rigid bodies; with none, the passes skip their body branches
	float h;
	float h2;
	float w0;        // poly6(0)
	float mOverR0;   // m / ρ0
	float poly6Coef;
	float spikyGCoef;
	float invWDq;    // 1 / poly6(|Δq|)
	float scorrK;    // k of eq. 13, absolute, for this step's Δt (cpbf.ScorrPerStep)
	float epsilon;   // ε of eq. 11, absolute
	float vorticity; // ε of eq. 16
	float xsph;      // c of eq. 17
	float dt;
	vec4 gravity;
	vec4 lo;         // domain shrunk by the radius; w = particle radius
	vec4 hi;
	float wallInvStep; // the solids' density table (sim/pbf WallKernel): 1 / its step
	int wallLast;      // its last entry in use
	int scorrN;
	int unilateral;
	float maxSpeed;    // real-time mode's speed limit at this step, m/s (sim.CFL.SpeedLimit); 0: off
	                   // (std140 pads the 12 bytes after it: wall starts on a vec4)
	vec4 wall[WALL_TABLE]; // (Φ(d_k), A(d_k), Φ(d_k+1) − Φ(d_k), A(d_k+1) − A(d_k))
} P;

// Obstacles as sim/pbf.Obstacle packs them (std430, five vec4s).
struct Obstacle {
	vec4 a; // centre or capsule end a; w = kind
	vec4 b; // half extents / capsule end b (w = radius) / cylinder radius, half height; sphere: w = radius
	vec4 r[3]; // rotation rows, local to world
};

#define KIND_SPHERE 0
#define KIND_BOX 1
#define KIND_CAPSULE 2
#define KIND_CYLINDER 3

// Counters the passes bump; read back with the statistics.
layout(std430, binding = BIND_COUNTERS) buffer Counters {
	uint badValues;     // non-finite values seen this step
	uint clippedLists;  // neighbour lists cut at the stride
	uint clampedSpeeds; // speeds real-time mode clamped this step (pbf_confine.comp)
	uint pad1;
} counters;

bool finite(vec3 v) {
	// exponent all ones means Inf or NaN; bit tests survive fast-math compilers
	uvec3 e = (floatBitsToUint(v) >> 23u) & 0xFFu;
	return all(notEqual(e, uvec3(0xFFu)));
}

float poly6(float r2) {
	if (r2 >= P.h2) return 0.0;
	float d = P.h2 - r2;
	return P.poly6Coef * d * d * d;
}

// g with ∇W_spiky = g · r for the offset r of length dist.
float spikyGradScale(float dist) {
	if (dist >= P.h || dist <= 0.0) return 0.0;
	float d = P.h - dist;
	return P.spikyGCoef * d * d / dist;
}

float sgn(float x) { return x < 0.0 ? -1.0 : 1.0; }

vec3 toLocal(Obstacle o, vec3 p) {
	vec3 q = p - o.a.xyz;
	return vec3(o.r[0].x * q.x + o.r[1].x * q.y + o.r[2].x * q.z,
	            o.r[0].y * q.x + o.r[1].y * q.y + o.r[2].y * q.z,
	            o.r[0].z * q.x + o.r[1].z * q.y + o.r[2].z * q.z);
}

vec3 toWorld(Obstacle o, vec3 n) {
	return vec3(o.r[0].x * n.x + o.r[0].y * n.y + o.r[0].z * n.z,
	            o.r[1].x * n.x + o.r[1].y * n.y + o.r[1].z * n.z,
	            o.r[2].x * n.x + o.r[2].y * n.y + o.r[2].z * n.z);
}

// distance from an offset q to a sphere of radius r around its origin, and the outward normal
vec4 pointDist(vec3 q, float r) {
	float l = sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
	if (l == 0.0) return vec4(0.0, 1.0, 0.0, -r);
	return vec4(q.x / l, q.y / l, q.z / l, l - r);
}

// Signed distance (w) and outward normal (xyz) of an obstacle at p.
vec4 obstacleSDF(Obstacle o, vec3 p) {
	int kind = int(o.a.w);
	if (kind == KIND_SPHERE) {
		return pointDist(p - o.a.xyz, o.b.w);
	}
	if (kind == KIND_CAPSULE) {
		vec3 ab = o.b.xyz - o.a.xyz;
		vec3 ap = p - o.a.xyz;
		float t = 0.0;
		float l2 = ab.x * ab.x + ab.y * ab.y + ab.z * ab.z;
		if (l2 > 0.0) t = min(1.0, max(0.0, (ap.x * ab.x + ap.y * ab.y + ap.z * ab.z) / l2));
		return pointDist(vec3(ap.x - t * ab.x, ap.y - t * ab.y, ap.z - t * ab.z), o.b.w);
	}
	if (kind == KIND_BOX) {
		vec3 l = toLocal(o, p);
		vec3 q = abs(l) - o.b.xyz;
		if (q.x > 0.0 || q.y > 0.0 || q.z > 0.0) {
			vec3 e = max(q, vec3(0.0));
			float len = sqrt(e.x * e.x + e.y * e.y + e.z * e.z);
			return vec4(toWorld(o, vec3(sgn(l.x) * e.x / len, sgn(l.y) * e.y / len, sgn(l.z) * e.z / len)), len);
		}
		if (q.x >= q.y && q.x >= q.z) return vec4(toWorld(o, vec3(sgn(l.x), 0.0, 0.0)), q.x);
		if (q.y >= q.z) return vec4(toWorld(o, vec3(0.0, sgn(l.y), 0.0)), q.y);
		return vec4(toWorld(o, vec3(0.0, 0.0, sgn(l.z))), q.z);
	}
	if (kind == KIND_CYLINDER) {
		vec3 l = toLocal(o, p);
		float rho = sqrt(l.x * l.x + l.z * l.z);
		float rx = 0.0, rz = 1.0;
		if (rho > 0.0) {
			rx = l.x / rho;
			rz = l.z / rho;
		}
		float dr = rho - o.b.x;
		float dy = abs(l.y) - o.b.y;
		if (dr > 0.0 && dy > 0.0) {
			float len = sqrt(dr * dr + dy * dy);
			return vec4(toWorld(o, vec3(rx * dr / len, sgn(l.y) * dy / len, rz * dr / len)), len);
		}
		if (dr > 0.0 || dr > dy && dy <= 0.0) return vec4(toWorld(o, vec3(rx, 0.0, rz)), dr);
		return vec4(toWorld(o, vec3(0.0, sgn(l.y), 0.0)), dy);
	}
	return vec4(0.0, 1.0, 0.0, 1e30);
}

layout(std430, binding = BIND_OBSTACLES) readonly buffer Obstacles { Obstacle obstacles[]; };

// Project a position out of every obstacle, then into the domain (sim/pbf Collider.Apply).
vec3 collide(vec3 p) {
	float r = P.lo.w;
	for (uint i = 0u; i < P.numObstacles; i++) {
		vec4 s = obstacleSDF(obstacles[i], p);
		if (s.w < r) {
			float k = r - s.w;
			p = vec3(p.x + k * s.x, p.y + k * s.y, p.z + k * s.z);
		}
	}
	return min(max(p, P.lo.xyz), P.hi.xyz);
}

// (Φ(d), A(d)): the solids' density beyond a plane at distance d, as a fraction of ρ0 — the fluid's lattice
// continued beyond it — and the magnitude of its gradient, interpolated in the table (sim/pbf WallKernel.At).
vec2 wallTerm(float d) {
	if (d >= P.h) return vec2(0.0);
	float t = max(d, 0.0) * P.wallInvStep;
	int k = min(int(t), P.wallLast - 1);
	float f = t - float(k);
	vec4 e = P.wall[k];
	return vec2(e.x + f * e.z, e.y + f * e.w);
}

// The solids' density Φ (w) and its gradient (xyz) at p: the domain's six walls and the obstacles, combined as the
// volume of their union, in one pass without storing the contacts (sim/pbf Collider.Boundary).
float bInside;
vec3 bSum;

void addSolid(float d, vec3 n) {
	if (d < P.h) {
		vec2 w = wallTerm(d);
		bInside *= 1.0 - w.x;
		float g = w.y / (1.0 - w.x);
		bSum = vec3(bSum.x - g * n.x, bSum.y - g * n.y, bSum.z - g * n.z);
	}
}

vec4 boundary(vec3 p) {
	bInside = 1.0;
	bSum = vec3(0.0);
	float r = P.lo.w;
	for (int k = 0; k < 3; k++) {
		vec3 axis = vec3(0.0);
		axis[k] = 1.0;
		addSolid(p[k] - (P.lo[k] - r), axis);
		addSolid((P.hi[k] + r) - p[k], -axis);
	}
	for (uint i = 0u; i < P.numObstacles; i++) {
		vec4 s = obstacleSDF(obstacles[i], p);
		addSolid(s.w, s.xyz);
	}
	return vec4(bInside * bSum.x, bInside * bSum.y, bInside * bSum.z, 1.0 - bInside);
}
