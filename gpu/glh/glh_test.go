package glh_test

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	gl43 "github.com/go-gl/gl/v4.3-core/gl"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/shaders"
)

func TestMain(m *testing.M) { gltest.Main(m) }

var testFS = fstest.MapFS{
	"common.glsl": {Data: []byte("float twice(float x) { return 2.0 * x; }\n")},
	"double.comp": {Data: []byte(`#version 430 core
#include "common.glsl"
layout(local_size_x = 64) in;
layout(std430, binding = BIND_DATA) buffer Data { float v[]; };
void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i < v.length()) v[i] = twice(v[i]) + OFFSET;
}
`)},
	"broken.comp": {Data: []byte(`#version 430 core
layout(local_size_x = 64) in;

void main() {
	undefined_thing = 1;
}
`)},
}

func TestComputeProgramWithIncludeAndDefines(t *testing.T) {
	ctx := gltest.Acquire(t)
	gltest.RequireCompute(t, ctx)
	prog, err := glh.NewProgram(testFS, []shaders.Define{shaders.Int("BIND_DATA", 3), {Name: "OFFSET", Value: "0.5"}}, "double.comp")
	if err != nil {
		t.Fatal(err)
	}
	defer prog.Delete()
	data := []float32{1, 2, 3, 4, 5}
	buf, err := glh.NewBuffer(len(data)*4, gl43.DYNAMIC_DRAW)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Delete()
	glh.Upload(buf, 0, data)
	prog.Use()
	gl43.BindBufferBase(gl43.SHADER_STORAGE_BUFFER, 3, buf.ID())
	gl43.DispatchCompute(1, 1, 1)
	gl43.MemoryBarrier(gl43.BUFFER_UPDATE_BARRIER_BIT)
	got := make([]float32, len(data))
	glh.Read(buf, 0, got)
	for i, v := range data {
		if want := 2*v + 0.5; got[i] != want {
			t.Errorf("v[%d] = %g, want %g", i, got[i], want)
		}
	}
	if err := glh.CheckError("compute test"); err != nil {
		t.Fatal(err)
	}
}

func TestCompileErrorNamesFileAndLine(t *testing.T) {
	gltest.Acquire(t)
	_, err := glh.NewProgram(testFS, nil, "broken.comp")
	if err == nil {
		t.Fatal("broken shader compiled")
	}
	if !strings.Contains(err.Error(), "broken.comp:5") {
		t.Errorf("error does not name broken.comp:5:\n%v", err)
	}
}

func TestTimersReportPasses(t *testing.T) {
	gltest.Acquire(t)
	var tm glh.Timers
	defer tm.Delete()
	tm.Begin()
	gl43.Clear(gl43.COLOR_BUFFER_BIT)
	tm.Mark("clear")
	gl43.Clear(gl43.COLOR_BUFFER_BIT)
	tm.Mark("clear")
	gl43.Finish()
	tm.Mark("finish")
	tm.End()
	gl43.Finish()
	passes, total, ok := tm.Poll()
	if !ok {
		t.Fatal("timer results not available after glFinish")
	}
	if len(passes) != 2 || passes[0].Name != "clear" || passes[1].Name != "finish" {
		t.Fatalf("passes = %+v, want clear (accumulated) and finish", passes)
	}
	if total < 0 || passes[0].Ms < 0 {
		t.Errorf("negative timings: %+v total %g", passes, total)
	}
}

func TestSharedCreatesOnceAndKeepsNoFailure(t *testing.T) {
	var c glh.Context
	calls := 0
	create := func() (any, error) { calls++; return calls, nil }
	a, err := c.Shared("k", create)
	b, _ := c.Shared("k", create)
	if err != nil || a != 1 || b != 1 || calls != 1 {
		t.Errorf("Shared: %v %v %v, %d creations", a, b, err, calls)
	}
	fail := func() (any, error) { return nil, errors.New("no") }
	if _, err := c.Shared("bad", fail); err == nil {
		t.Error("a failed create returned no error")
	}
	if v, err := c.Shared("bad", create); err != nil || v != 2 {
		t.Errorf("after a failure, Shared gave %v, %v; want a fresh creation", v, err)
	}
}
