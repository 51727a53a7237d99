// Shared by the per-particle vertex shaders (sphere impostors, ellipsoid splats, spray): the colour modes of
// render.color, each particle's fluid colour and the test for broken particles. Include after render_common.glsl.

uniform int uColorMode;      // COLOR_WATER, COLOR_SPEED, COLOR_DENSITY, COLOR_TEMPERATURE or COLOR_PHASE
uniform vec3 uWaterColor;
uniform int uPaletteSize;              // colours in uPalette; 0: every particle is uWaterColor
uniform vec3 uPalette[MAX_PALETTE];    // each material number's colour (render.Particles.Palette)

// aMaterial is the particle's material number (render.Particles.Material; 0 when the frame has none).
layout(location = ATTR_MATERIAL) in uint aMaterial;

// aBody is the particle's rigid body (−1: fluid; render.Particles.Body). Body particles are drawn as their body's
// shape, never as water.
layout(location = ATTR_BODY) in int aBody;

// aPhase is the particle's phase (render.Particles.Phase, scene.Phase: 0 liquid, 1 granular, 2 solid, 3 rigid).
// Grains and solids are drawn as shaded spheres (render_particles with uSolids), never as water.
layout(location = ATTR_PHASE) in uint aPhase;

// aTemperature is the particle's temperature, °C (render.Particles.Temperature), read when uHaveTemperature is 1.
layout(location = ATTR_TEMPERATURE) in float aTemperature;

// fluidColor is the colour of the fluid the particle is made of: its material's, or the water colour.
vec3 fluidColor() {
	if (uPaletteSize <= 0) {
		return uWaterColor;
	}
	return uPalette[min(int(aMaterial), uPaletteSize - 1)];
}
uniform float uSpeedMax;     // m/s at the top of the speed colormap
uniform float uDensityRange; // |ρ/ρ0 − 1| at the ends of the diverging map
uniform int uHaveTemperature; // 1: aTemperature holds the particles' temperatures; 0: the frame has none
uniform float uTempMin;      // °C at the cold end of the temperature colormap
uniform float uTempScale;    // 1/(max − min), 1/°C
uniform vec3 uPhaseColors[NUM_PHASES]; // render.PhaseColors

// Inf or NaN (exponent all ones); a bit test, which fast-math compilers cannot fold away like isnan.
bool nonFinite(vec3 v) {
	return any(equal((floatBitsToUint(v) >> 23u) & 0xFFu, uvec3(0xFFu)));
}

// temperatureKnown says whether the particle has a temperature to show: the frame has them and its is finite.
bool temperatureKnown() {
	return uHaveTemperature != 0 && !nonFinite(vec3(aTemperature));
}

// ownColor says whether the current colour mode draws the particle in its fluid's (material's) colour: the water
// mode, and the temperature mode for a particle without a temperature.
bool ownColor() {
	return uColorMode == COLOR_WATER || (uColorMode == COLOR_TEMPERATURE && !temperatureKnown());
}

// particleColor is a particle's colour in the current colour mode, from its velocity, density ratio ρ/ρ0,
// temperature and phase.
vec3 particleColor(vec3 vel, float rho) {
	if (ownColor()) {
		return fluidColor();
	}
	if (uColorMode == COLOR_SPEED) {
		return colormapSpeed(length(vel) / max(uSpeedMax, 1e-6));
	}
	if (uColorMode == COLOR_DENSITY) {
		return colormapDiverging((rho - 1.0) / max(uDensityRange, 1e-6));
	}
	if (uColorMode == COLOR_TEMPERATURE) {
		return colormapCoolWarm((aTemperature - uTempMin) * uTempScale);
	}
	if (uColorMode == COLOR_PHASE) {
		return aPhase < uint(NUM_PHASES) ? uPhaseColors[int(aPhase)] : vec3(0.5);
	}
	return fluidColor();
}

// liquid says whether the particle is part of the water: not a body's, of the liquid phase.
bool liquid() {
	return aBody < 0 && aPhase == 0u;
}

// culled is a clip position outside the view volume: a vertex placed there draws nothing.
const vec4 CULLED = vec4(2.0, 2.0, 2.0, 1.0);
