module github.com/slosh/slosh

go 1.26.8

require (
	github.com/ByteArena/box2d v1.0.2
	github.com/go-gl/gl v0.0.0-20231021071112-07e5d0ea2e71
	github.com/go-gl/glfw/v3.3/glfw v0.0.0-20260823155953-d41da22a9587
	github.com/go-gl/mathgl v1.2.0
	github.com/inkyblackness/imgui-go/v4 v4.7.0
	gonum.org/v1/gonum v0.17.0
)
