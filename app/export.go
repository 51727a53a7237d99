package app

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/slosh/slosh/internal/atomicfile"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/export"
)

// ExportOptions configure `slosh export`.
type ExportOptions struct {
	Options
	Frames int    // simulated frames of 1/60 s, one PLY file each
	Out    string // the folder for the frames and the sidecar
	Stdout io.Writer
}

// SidecarName is the sidecar's file name in an export folder.
const SidecarName = "slosh-export.json"

// Export simulates o.Frames frames and writes each as a particle cache, o.Out/frame_000001.ply on (sim/export:
// binary little-endian PLY with positions, velocities, density, id and body), with a JSON sidecar describing the
// run. Every file is written under a temporary name and renamed, so a failure (a full disk, say) leaves the frames
// written so far valid, and the sidecar lists them.
func Export(o ExportOptions) error {
	modes := Modes()
	if o.Frames <= 0 {
		return usagef("--frames %d: must be at least 1", o.Frames)
	}
	if o.Out == "" {
		return usagef("--out: name the folder for the frames")
	}
	stderr := o.stderr()
	st, err := prepare(modes, &o.Options)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return fmt.Errorf("export: cannot make the folder %s: %w (choose a writable folder)", o.Out, err)
	}
	ss, _, err := openHeadless(modes, st, o.GLCap, stderr)
	if err != nil {
		return err
	}
	defer ss.CloseAll()

	sceneJSON, err := st.sc.Marshal()
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	car := &export.Sidecar{
		Software: "slosh", Version: softwareVersion(), Mode: ss.mode.Name, Scene: st.sc.Source,
		SceneJSON: json.RawMessage(sceneJSON), Params: ss.solver.Params().Preset(ss.mode.Name).Params,
		FrameDt: FrameDt, StepsPerFrame: substeps(ss.solver.Params()),
	}
	writeCar := func() error {
		return export.WriteSidecar(filepath.Join(o.Out, SidecarName), car)
	}
	start := time.Now()
	var steps []sim.Stats
	var frame sim.Frame
	for f := 1; f <= o.Frames; f++ {
		if steps, err = ss.frame(steps[:0]); err != nil {
			writeCar()
			return fmt.Errorf("frame %d: %w (frames 1–%d are in %s)", f, err, f-1, o.Out)
		}
		ss.solver.Frame(&frame)
		cols := export.FrameColumns(&frame)
		path := export.FrameName(o.Out, f)
		if err := writePLYFile(path, frame.N, cols, fmt.Sprintf("slosh %s, scene %s, frame %d, t=%.6f s", ss.mode.Name, st.sc.Name, f, frame.Time)); err != nil {
			writeCar()
			return fmt.Errorf("export: %w (frames 1–%d are in %s)", err, f-1, o.Out)
		}
		car.Files = append(car.Files, filepath.Base(path))
		car.Columns = export.Names(cols)
		car.Frames = f
		fmt.Fprintf(stderr, "\rslosh: exported %d/%d frames, %d particles, %s left   ", f, o.Frames, frame.N,
			eta(time.Since(start), f, o.Frames))
	}
	fmt.Fprintln(stderr)
	if err := writeCar(); err != nil {
		return err
	}
	fmt.Fprintf(orStdout(o.Stdout), "wrote %d frames and %s to %s\n", o.Frames, SidecarName, o.Out)
	return nil
}

// writePLYFile writes one frame atomically, so an interrupted export leaves only whole frames.
func writePLYFile(path string, n int, cols []export.Column, comment string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		if err := export.WritePLY(bw, n, cols, comment); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// eta estimates the time left after done of total items took elapsed.
func eta(elapsed time.Duration, done, total int) string {
	if done <= 0 {
		return "?"
	}
	left := time.Duration(float64(elapsed) / float64(done) * float64(total-done))
	return left.Round(time.Second).String()
}

// softwareVersion is the module version and VCS revision slosh was built from, as far as the build recorded them.
func softwareVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}
