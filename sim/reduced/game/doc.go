// Package game is the reduced mode: the 2D model-reduced fluid of sim/reduced and the vortex panels of
// sim/reduced/panel coupled two ways with Box2D rigid bodies (000 ch. 5), played as a game — steer crates on the
// currents into the goal zone before the time runs out, drawing currents of your own with the mouse.
package game
