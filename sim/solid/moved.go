package solid

import (
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// Moved packs a scene's obstacles at time t — the moving ones displaced along their paths — and the
// paddle, when there is one, as a sphere after them.
func Moved(sc *scene.Scene, t float64, paddle *sim.Paddle) []Obstacle {
	obs := sc.Obstacles
	if sc.HasMotion() {
		obs = make([]scene.Obstacle, len(sc.Obstacles))
		for i := range sc.Obstacles {
			obs[i] = scene.Obstacle{Shape: sc.Obstacles[i].ShapeAt(t)}
		}
	}
	out := PackObstacles(obs)
	if paddle != nil {
		c := paddle.Center
		out = append(out, Obstacle{A: [4]float32{c[0], c[1], c[2], KindSphere}, B: [4]float32{0, 0, 0, paddle.Radius}})
	}
	return out
}
