// Package soa turns particles stored as (x, y, z, w) quadruples into vectors of one component each, for the SIMD
// passes (sim/grid's search, sim/pbf's pair passes). It exists only under GOEXPERIMENT=simd on amd64, where Go's
// simd/archsimd does; elsewhere it is empty and the passes run scalar.
package soa
