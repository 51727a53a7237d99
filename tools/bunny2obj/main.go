// Command bunny2obj converts the Stanford bunny from the `bunny` npm package (Mikola Lysenko's packaging of the
// Stanford 3D Scanning Repository's bunny) into the closed OBJ that slosh ships as assets/meshes/bunny.obj.
//
//	cd /tmp && npm pack bunny && tar xzf bunny-*.tgz
//	go run ./tools/bunny2obj /tmp/package/index.js > assets/meshes/bunny.obj
//
// The input is the package's index.js (`exports.positions=[[x,y,z],…]; exports.cells=[[i,j,k],…]`, 0-based) or a
// JSON object {"positions": …, "cells": …}. The scan is open where the bunny sat on the turntable: each boundary
// loop is closed with a fan of triangles around a new vertex at the loop's centroid, wound to match its
// neighbours. The coordinates are rounded to 5 significant digits, and the result must pass slosh's own mesh
// validation (closed, manifold, consistently oriented, no zero-area triangles) before it is written.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/slosh/slosh/sim/mesh"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./tools/bunny2obj PATH/TO/bunny/index.js > assets/meshes/bunny.obj")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "bunny2obj:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	positions, cells, err := decode(data)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	m := &mesh.Mesh{Name: "bunny"}
	for _, p := range positions {
		m.Vertices = append(m.Vertices, mesh.Vec3(p))
	}
	for i, c := range cells {
		for _, v := range c {
			if v < 0 || int(v) >= len(positions) {
				return fmt.Errorf("%s: cell %d: index %d out of range (%d positions)", path, i, v, len(positions))
			}
		}
		m.Triangles = append(m.Triangles, c)
	}
	loops, added, err := closeHoles(m)
	if err != nil {
		return err
	}
	// round as written, so that the validation sees exactly what the file will hold
	var buf bytes.Buffer
	if err := m.WriteOBJ(&buf, 5); err != nil {
		return err
	}
	out, err := mesh.Parse(buf.Bytes(), "bunny.obj")
	if err != nil {
		return err
	}
	if err := out.Validate(); err != nil {
		return err
	}
	if out.Volume() < 0 {
		out.FlipFaces()
	}
	lo, hi := out.Bounds()
	fmt.Fprintf(os.Stderr, "bunny2obj: %d vertices, %d triangles (%d holes closed with %d triangles), volume %.4g, bounds %v–%v\n",
		len(out.Vertices), len(out.Triangles), loops, added, out.Volume(), lo, hi)
	return out.WriteOBJ(os.Stdout, 0,
		"The Stanford bunny: Stanford 3D Scanning Repository, courtesy of the Stanford Computer Graphics Laboratory,",
		"via the `bunny` npm package (Mikola Lysenko). Holes closed and coordinates rounded by tools/bunny2obj.",
		fmt.Sprintf("%d vertices, %d triangles; closed and manifold.", len(out.Vertices), len(out.Triangles)))
}

// decode reads positions and cells from the package's index.js or a JSON object.
func decode(data []byte) (positions [][3]float64, cells [][3]int32, err error) {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		var obj struct {
			Positions [][3]float64 `json:"positions"`
			Cells     [][3]int32   `json:"cells"`
		}
		if err := json.Unmarshal(t, &obj); err != nil {
			return nil, nil, err
		}
		positions, cells = obj.Positions, obj.Cells
	} else {
		if err := decodeAfter(data, "positions", &positions); err != nil {
			return nil, nil, err
		}
		if err := decodeAfter(data, "cells", &cells); err != nil {
			return nil, nil, err
		}
	}
	if len(positions) == 0 || len(cells) == 0 {
		return nil, nil, errors.New("no positions or no cells")
	}
	return positions, cells, nil
}

// decodeAfter decodes the JSON array that follows `exports.NAME=` in a CommonJS module.
func decodeAfter(data []byte, name string, v any) error {
	key := []byte("exports." + name)
	i := bytes.Index(data, key)
	if i < 0 {
		return fmt.Errorf("no exports.%s", name)
	}
	rest := bytes.TrimLeft(data[i+len(key):], " \t\r\n")
	if len(rest) == 0 || rest[0] != '=' {
		return fmt.Errorf("exports.%s is not assigned", name)
	}
	if err := json.NewDecoder(bytes.NewReader(rest[1:])).Decode(v); err != nil {
		return fmt.Errorf("exports.%s: %w", name, err)
	}
	return nil
}

// closeHoles finds the boundary loops (directed edges whose reverse no triangle has) and closes each with a fan
// around a new vertex at the loop's centroid. Each fan triangle (centre, b, a) runs the boundary edge a→b
// backwards, so the result is consistently oriented.
func closeHoles(m *mesh.Mesh) (loops, added int, err error) {
	type edge struct{ a, b int32 }
	have := map[edge]int{}
	for _, t := range m.Triangles {
		for k := 0; k < 3; k++ {
			have[edge{t[k], t[(k+1)%3]}]++
		}
	}
	next := map[int32]int32{} // boundary edge a→b, keyed by a
	for e, n := range have {
		if n != 1 {
			return 0, 0, fmt.Errorf("edge %d→%d is used %d times in one direction: the input is not orientable as given", e.a, e.b, n)
		}
		if have[edge{e.b, e.a}] == 0 {
			if _, dup := next[e.a]; dup {
				return 0, 0, fmt.Errorf("vertex %d starts two boundary edges: a hole touches itself; close it by hand", e.a)
			}
			next[e.a] = e.b
		}
	}
	// walk the loops in vertex order, so the output does not depend on map order
	var starts []int32
	for a := range next {
		starts = append(starts, a)
	}
	slices.Sort(starts)
	done := map[int32]bool{}
	for _, s := range starts {
		if done[s] {
			continue
		}
		var loop []int32
		for v := s; !done[v]; v = next[v] {
			done[v] = true
			loop = append(loop, v)
			if _, ok := next[v]; !ok {
				return 0, 0, fmt.Errorf("boundary at vertex %d does not close into a loop", v)
			}
		}
		var c mesh.Vec3
		for _, v := range loop {
			c = c.Add(m.Vertices[v])
		}
		c = c.Scale(1 / float64(len(loop)))
		ci := int32(len(m.Vertices))
		m.Vertices = append(m.Vertices, c)
		for i, a := range loop {
			b := loop[(i+1)%len(loop)]
			m.Triangles = append(m.Triangles, [3]int32{ci, b, a})
			added++
		}
		loops++
	}
	return loops, added, nil
}
