package main

import (
	"math"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim/mesh"
)

// An open box (a cube without its top) is closed by a fan that passes validation, and the volume is the cube's.
func TestCloseHoles(t *testing.T) {
	m := &mesh.Mesh{Name: "open", Vertices: []mesh.Vec3{
		{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1},
	}}
	quads := [][4]int32{{0, 3, 2, 1}, {0, 1, 5, 4}, {3, 7, 6, 2}, {0, 4, 7, 3}, {1, 2, 6, 5}} // no +z face
	for _, q := range quads {
		m.Triangles = append(m.Triangles, [3]int32{q[0], q[1], q[2]}, [3]int32{q[0], q[2], q[3]})
	}
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "4 edges") {
		t.Fatalf("the open box should fail validation with 4 open edges: %v", err)
	}
	loops, added, err := closeHoles(m)
	if err != nil {
		t.Fatal(err)
	}
	if loops != 1 || added != 4 {
		t.Errorf("closed %d loops with %d triangles, want 1 and 4", loops, added)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if v := m.Volume(); math.Abs(v-1) > 1e-12 {
		t.Errorf("volume %g, want 1", v)
	}
}

func TestDecode(t *testing.T) {
	js := "exports.positions=[[0,0,0],[1,0,0],[0,1,0]];\nexports.cells=[[0,1,2]]\n"
	p, c, err := decode([]byte(js))
	if err != nil || len(p) != 3 || len(c) != 1 || p[1] != [3]float64{1, 0, 0} || c[0] != [3]int32{0, 1, 2} {
		t.Errorf("index.js: %v %v %v", p, c, err)
	}
	p, c, err = decode([]byte(`{"positions": [[0,0,0],[1,0,0],[0,1,0]], "cells": [[0,2,1]]}`))
	if err != nil || len(p) != 3 || c[0] != [3]int32{0, 2, 1} {
		t.Errorf("JSON: %v %v %v", p, c, err)
	}
	if _, _, err := decode([]byte("module.exports = 3")); err == nil {
		t.Error("a file without positions decoded")
	}
}
