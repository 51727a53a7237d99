// The statistics record of gpu/pbf (std430; mirrored by statsRecord in Go).
struct StatsRecord {
	float sumErr;  // Σ max(ρ/ρ0 − 1, 0)
	float maxErr;
	float maxV2;   // max |v|²
	uint bad;      // particles with non-finite state at the end of the step
	uint sumN;     // Σ neighbour counts
	uint maxN;
	uint clipped;  // neighbour lists cut short this step
	uint badTotal; // non-finite values seen by any pass since the counters were last cleared
	uint step;
	// what the next frames' substeps are planned from (gpu/pbf frame.go), over every particle, fluid or body:
	float maxV2All; // max |v|², a huge value for a non-finite velocity
	float upLo;     // min and max of the positions along −gravity
	float upHi;
	uint clamped;   // speeds real-time mode clamped this step (a counter, like clipped)
};

const float HUGE = 3.0e38;

StatsRecord emptyRecord() { return StatsRecord(0.0, 0.0, 0.0, 0u, 0u, 0u, 0u, 0u, 0u, 0.0, HUGE, -HUGE, 0u); }

StatsRecord combine(StatsRecord a, StatsRecord b) {
	a.sumErr += b.sumErr;
	a.maxErr = max(a.maxErr, b.maxErr);
	a.maxV2 = max(a.maxV2, b.maxV2);
	a.bad += b.bad;
	a.sumN += b.sumN;
	a.maxN = max(a.maxN, b.maxN);
	a.maxV2All = max(a.maxV2All, b.maxV2All);
	a.upLo = min(a.upLo, b.upLo);
	a.upHi = max(a.upHi, b.upHi);
	return a;
}

shared StatsRecord shared_r[GROUP_SIZE];

// Tree reduction over the workgroup; the result lands in shared_r[0].
void reduceGroup(StatsRecord r, uint t) {
	shared_r[t] = r;
	for (uint s = uint(GROUP_SIZE) / 2u; s > 0u; s >>= 1) {
		memoryBarrierShared();
		barrier();
		if (t < s) shared_r[t] = combine(shared_r[t], shared_r[t + s]);
	}
	memoryBarrierShared();
	barrier();
}
