package game

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/slosh/slosh/sim/reduced"
	"github.com/slosh/slosh/sim/scene"
)

// paintReference is the dye's painting as it was: every cell in the polyline's box measured against every
// segment. dyeField.paint visits only the cells near each segment and must paint exactly the same.
func paintReference(d *dyeField, pts [][2]float32, radius float64, col [3]float32) {
	lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	for _, p := range pts {
		for k := range 2 {
			lo[k], hi[k] = min(lo[k], float64(p[k])-radius), max(hi[k], float64(p[k])+radius)
		}
	}
	i0, i1 := max(int(lo[0]/d.dx), 0), min(int(hi[0]/d.dx)+1, d.nx)
	j0, j1 := max(int(lo[1]/d.dy), 0), min(int(hi[1]/d.dy)+1, d.ny)
	for j := j0; j < j1; j++ {
		for i := i0; i < i1; i++ {
			x, y := (float64(i)+0.5)*d.dx, (float64(j)+0.5)*d.dy
			dist := math.Inf(1)
			for k := range pts {
				ax, ay := float64(pts[k][0]), float64(pts[k][1])
				bx, by := ax, ay
				if k+1 < len(pts) {
					bx, by = float64(pts[k+1][0]), float64(pts[k+1][1])
				}
				ex, ey := bx-ax, by-ay
				t := 0.0
				if l2 := ex*ex + ey*ey; l2 > 0 {
					t = min(max(((x-ax)*ex+(y-ay)*ey)/l2, 0), 1)
				}
				dist = min(dist, math.Hypot(x-ax-t*ex, y-ay-t*ey))
			}
			if dist >= radius {
				continue
			}
			a := float32(1 - dist/radius)
			c := &d.c[j*d.nx+i]
			for k := range c {
				c[k] += a * (col[k] - c[k])
			}
		}
	}
}

func TestDyePaintMatchesReference(t *testing.T) {
	g, err := reduced.NewGrid(2, 1.2, 65, 39)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 20; trial++ {
		var a, b dyeField
		a.reset(g)
		b.reset(g)
		n := 1 + rng.IntN(40)
		pts := make([][2]float32, n)
		for k := range pts {
			pts[k] = [2]float32{float32(-0.2 + 2.4*rng.Float64()), float32(-0.2 + 1.6*rng.Float64())}
			if k > 0 && rng.IntN(4) == 0 {
				pts[k] = pts[k-1] // a repeated point
			}
		}
		radius := 0.01 + 0.5*rng.Float64()
		col := [3]float32{0.9, 0.2, 0.4}
		a.paint(pts, radius, col)
		paintReference(&b, pts, radius, col)
		for k := range a.c {
			if a.c[k] != b.c[k] {
				t.Fatalf("trial %d: cell %d painted %v, the reference %v", trial, k, a.c[k], b.c[k])
			}
		}
	}
}

// heavyScene is n currents of pts points each, width wide, winding across a 2 × 1.2 m tank.
func heavyScene(n, pts int, width float64) string {
	var cs []string
	for c := 0; c < n; c++ {
		var ps []string
		for k := 0; k < pts; k++ {
			x := 0.05 + 1.9*float64(k)/float64(pts-1)
			y := 0.6 + 0.5*math.Sin(float64(k)*0.05+float64(c))
			ps = append(ps, fmt.Sprintf("[%.4f,%.4f]", x, y))
		}
		cs = append(cs, fmt.Sprintf(`{"points":[%s],"speed":0.5,"width":%g}`, strings.Join(ps, ","), width))
	}
	return fmt.Sprintf(`{"name":"heavy","flat":{"size":[2,1.2],"currents":[%s]}}`, strings.Join(cs, ","))
}

// Sixteen 1024-point currents on a 512 grid took 105 s for two frames, most of it adding the currents to the basis
// (issue 24): the scene is refused at once, saying what to lower, and the solver keeps its state.
func TestWorkBudgetRefusesScene(t *testing.T) {
	sc, err := scene.Parse([]byte(heavyScene(16, 1024, 0.3)), "heavy.json")
	if err != nil {
		t.Fatal(err)
	}
	s := newGame(t, level1)
	if err := s.Params().Assign("reduced.grid=512"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = s.Reset(sc)
	took := time.Since(start)
	if err == nil {
		t.Fatal("the scene was accepted")
	}
	t.Logf("refused in %v: %v", took, err)
	for _, w := range []string{"flat.currents[", "reduced.grid", "reduced.modes", "fewer"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%v: want it to say %q", err, w)
		}
	}
	if s.sc.Name != "l1" {
		t.Errorf("the refusal changed the solver's scene to %q", s.sc.Name)
	}
	// the same scene on the default grid fits
	s = New()
	est, _, _ := s.sceneWork(sc)
	if est > workBudget {
		t.Errorf("on the default grid the scene's currents are estimated at %.3g s, over the budget", est/1e9)
	}
}

// The shipped levels are inside the budget, on the default grid and on the finest (where the estimate, 4 s, is
// what adding reduced-1's current measured here).
func TestWorkBudgetLevels(t *testing.T) {
	for _, name := range []string{"reduced-1", "reduced-2", "reduced-3"} {
		sc, err := scene.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, grid := range []string{"65", "512"} {
			s := New()
			if err := s.Params().Assign("reduced.grid=" + grid); err != nil {
				t.Fatal(err)
			}
			est, _, _ := s.sceneWork(sc)
			t.Logf("%s on a %s grid: %.3g s", name, grid, est/1e9)
			if est > workBudget {
				t.Errorf("%s on a %s grid: %.3g s of the %.3g s budget", name, grid, est/1e9, workBudget/1e9)
			}
		}
	}
}

// The player's strokes (and a replay's) stay within the budget: a stroke too costly to paint is refused; once
// the currents kept in the basis would take more than the budget to draw again (what loading the sitting does),
// a stroke is projected onto the basis instead of joining it; and a saved state whose currents exceed the budget
// is refused before they are drawn. The budget is lowered here to keep the test fast.
func TestWorkBudgetStrokes(t *testing.T) {
	s := newGame(t, `{"name":"e","flat":{"size":[2,1.2]}}`)
	strokes := [][][2]float32{{{0.2, 0.3}, {1, 0.5}, {1.8, 0.3}}, {{0.2, 0.9}, {1, 0.7}, {1.8, 1}}, {{0.3, 0.1}, {0.3, 1.1}}}
	p, b := s.strokeWork(strokes[0], 0.2, s.model.Modes(), true)
	defer func(old float64) { workBudget = old }(workBudget)
	workBudget = 2.5 * (p + b)
	for k := 0; k < 2; k++ {
		msg, err := s.Draw(strokes[k], 0.5, 0.2)
		if err != nil || !strings.Contains(msg, "joins the basis") {
			t.Fatalf("stroke %d: %q, %v", k, msg, err)
		}
	}
	msg, err := s.Draw(strokes[2], 0.5, 0.2)
	if err != nil || !strings.Contains(msg, "projected") || len(s.strokes) != 2 {
		t.Fatalf("the third stroke: %q, %v (%d kept)", msg, err, len(s.strokes))
	}
	t.Log(msg)
	var long [][2]float32
	for k := 0; k < 1024; k++ {
		long = append(long, [2]float32{float32(0.05 + 1.9*float64(k)/1023), float32(0.6 + 0.5*math.Sin(float64(k)*0.05))})
	}
	if _, err := s.Draw(long, 0.5, 2); err == nil || !strings.Contains(err.Error(), "narrower") {
		t.Fatalf("a full-width 1024-point stroke: %v", err)
	} else {
		t.Log(err)
	}
	var saved bytes.Buffer
	if err := s.WriteState(&saved); err != nil {
		t.Fatal(err)
	}
	workBudget *= 1.5 // the state's two currents fit; with a tighter budget they do not
	fresh := newGame(t, `{"name":"e","flat":{"size":[2,1.2]}}`)
	if err := fresh.ReadState(bytes.NewReader(saved.Bytes())); err != nil {
		t.Fatal(err)
	}
	workBudget = 1.5 * (p + b)
	fresh = newGame(t, `{"name":"e","flat":{"size":[2,1.2]}}`)
	if err := fresh.ReadState(bytes.NewReader(saved.Bytes())); err == nil || !strings.Contains(err.Error(), "drawn current 1") {
		t.Fatalf("a state over the budget: %v", err)
	} else {
		t.Log(err)
	}
}
