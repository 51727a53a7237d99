// What the grid-building passes of gpu/nsearch share: the parameters, the cell function, and the build's buffers
// (writable here, where nsearch.glsl declares the results read-only for consumers).
#include "compute_common.glsl"

#include "nsearch_params.glsl"

layout(std430, binding = NS_BIND_POS) readonly buffer NSPos { vec4 nsPos[]; };
layout(std430, binding = NS_BIND_KEY) readonly buffer NSKey { uint nsKey[]; };
layout(std430, binding = NS_BIND_CELL) buffer NSCell { uint nsCell[]; };
layout(std430, binding = NS_BIND_START) buffer NSCount { uint nsCount[]; };
layout(std430, binding = NS_BIND_FILL) buffer NSFill { uint nsFill[]; };
layout(std430, binding = NS_BIND_ORDER) buffer NSOrderW { uint nsOrderW[]; };
