// Indexing that matches compute.Dispatch: beyond 65535 workgroups the dispatch continues in y.
// Include it after the local_size layout (gl_WorkGroupSize is defined by it).
uint groupIndex() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }
uint globalIndex() { return groupIndex() * gl_WorkGroupSize.x + gl_LocalInvocationID.x; }
