package app

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"time"

	"github.com/slosh/slosh/internal/atomicfile"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/export"
	"github.com/slosh/slosh/sim/export/usd"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/surface/field"
	"github.com/slosh/slosh/sim/trimesh"
)

// usdExport writes a run as one USD stage (sim/export/usd): each frame's particles, the liquid's surface, each
// granular material's surface and the rigid bodies' poses as a layer of its own, and after each frame the small
// root stage that plays them (value clips) with its manifest, so that a run stopped at any frame leaves a stage
// that plays the frames written.
type usdExport struct {
	settings field.Settings
	mesher   *frameMesher
	grains   []grainObject // the scene's granular materials, meshed apart (setGrains)
	shapes   []scene.Shape
	stage    usd.Stage
	took     time.Duration
	// the liquid's positions, ids and velocities of a frame with bodies or grains, reused between frames
	pos [][4]float32
	ids []uint32
	vel [][4]float32
}

// newUSDExport exports sc's run with the mesh settings s, the camera cam (nil: none) and a doc line for the stage.
func newUSDExport(s field.Settings, sc *scene.Scene, cam *usd.Camera, doc string) *usdExport {
	return &usdExport{settings: s, mesher: newFrameMesher(), shapes: bodyShapes(sc),
		stage: usd.Stage{Doc: doc, FPS: 1 / FrameDt, Surface: true, Velocities: true, Camera: cam}}
}

// setGrains makes the export mesh each granular material of mats apart from the liquid, under /World/Grains.
func (u *usdExport) setGrains(mats []export.Material) {
	u.grains = grainObjects(mats)
	u.stage.Grains = nil
	for _, g := range u.grains {
		u.stage.Grains = append(u.stage.Grains, g.object)
	}
}

// usdCamera is the scene's view (its camera, or one framed on its domain) as the stage's camera, for a 16:9
// picture.
func usdCamera(sc *scene.Scene) *usd.Camera {
	c := sceneCamera(sc)
	eye := c.Eye()
	n, f := c.Near, c.Far
	if !(n > 0 && f > n) {
		n, f = 0.01*c.Distance, 100*c.Distance
	}
	return &usd.Camera{
		Eye:    [3]float64{short(eye[0]), short(eye[1]), short(eye[2])},
		Target: [3]float64{short(c.Target[0]), short(c.Target[1]), short(c.Target[2])},
		Up:     [3]float64{0, 1, 0},
		FovY:   short(c.FovY), Aspect: 16.0 / 9, Near: short(n), Far: short(f),
	}
}

// short is x as the float64 its shortest decimal names (0.8 for float32(0.8), not 0.800000011920929), so that
// the stage says the numbers the scene says.
func short(x float32) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
	return v
}

// surfaces are a frame's meshes already made for the mesh export, so that the stage need not mesh them again.
type surfaces struct {
	surface *trimesh.Mesh
	grains  []*trimesh.Mesh // in grainObjects' order
}

// write writes frame n (f, whose PLY columns are cols) into dir, meshing its surfaces unless made holds them, then
// the root stage and the manifest for frames 1..n. It returns the frame layer's name.
func (u *usdExport) write(dir string, n int, f *sim.Frame, cols []export.Column, made *surfaces) (string, error) {
	start := time.Now()
	primvars, cols := usd.FramePrimvars(cols)
	fd := usd.FrameData{N: n, Particles: f, Columns: cols, Doc: fmt.Sprintf("slosh frame %d, t=%.6f s", n, f.Time)}
	if made != nil {
		fd.Surface = made.surface
	} else {
		m, _, err := u.mesher.surface(f, u.settings)
		if err != nil {
			return "", err
		}
		fd.Surface = m
	}
	pos, _ := fluidOnly(f, &u.pos, &u.ids)
	vel, err := liquidVelocities(f, &u.vel)
	if err != nil {
		return "", fmt.Errorf("usd: %w", err)
	}
	if fd.SurfaceVelocities, err = u.vertexVelocities(f, pos, vel, fd.Surface); err != nil {
		return "", err
	}
	for k, g := range u.grains {
		var m *trimesh.Mesh
		if made != nil && k < len(made.grains) {
			m = made.grains[k]
		} else {
			var err error
			if m, _, err = u.mesher.grains(f, g.number, u.settings); err != nil {
				return "", fmt.Errorf("%s: %w", g.object, err)
			}
		}
		u.pos, u.vel = u.pos[:0], u.vel[:0]
		for i := range f.N {
			if grainOf(f, i, g.number) {
				u.pos, u.vel = append(u.pos, f.Pos[i]), append(u.vel, f.Vel[i])
			}
		}
		v, err := u.vertexVelocities(f, u.pos, u.vel, m)
		if err != nil {
			return "", fmt.Errorf("%s: %w", g.object, err)
		}
		fd.Grains = append(fd.Grains, usd.Grain{Name: g.object, Mesh: m, Velocities: v})
	}
	if n == 1 {
		// the bodies' shapes as placed, once: the frames move them
		rest := make([]sim.BodyState, len(f.Bodies))
		for b, s := range f.Bodies {
			rest[b] = sim.BodyState{Center: s.Origin, Rot: [4]float32{0, 0, 0, 1}, Origin: s.Origin}
		}
		if len(f.Bodies) == len(u.shapes) {
			meshes, err := u.mesher.bodies(u.shapes, rest)
			if err != nil {
				return "", err
			}
			u.stage.Bodies = meshes
		}
	}
	if len(u.stage.Bodies) > 0 && len(f.Bodies) == len(u.stage.Bodies) {
		fd.Poses = f.Bodies
	}
	name := usd.FrameName(n)
	if err := atomicfile.Write(filepath.Join(dir, name), func(w io.Writer) error { return usd.WriteFrame(w, &fd) }); err != nil {
		return "", err
	}
	u.stage.Frames = n
	u.stage.Primvars = usd.AddPrimvars(u.stage.Primvars, primvars)
	u.stage.Radius = float64(f.Radius)
	if err := u.writeStage(dir); err != nil {
		return "", err
	}
	u.took = time.Since(start)
	return name, nil
}

// vertexVelocities are the velocities at the vertices of m, the surface of the particles at pos (of f's radius)
// moving at vel: at each vertex, the mean of their velocities weighted with the surface's own kernel
// (field.Field.MeansAt, as the VDB's velocity grid).
func (u *usdExport) vertexVelocities(f *sim.Frame, pos, vel [][4]float32, m *trimesh.Mesh) ([][3]float32, error) {
	cfg, err := u.settings.Config(2*float64(f.Radius), 0)
	if err != nil {
		return nil, fmt.Errorf("usd: %w", err)
	}
	fld, err := field.New(pos, cfg)
	if err != nil {
		return nil, fmt.Errorf("usd: surface velocities: %w", err)
	}
	out := make([][3]float32, len(m.Positions))
	if err := fld.MeansAt(out, vel, m.Positions); err != nil {
		return nil, fmt.Errorf("usd: surface velocities: %w", err)
	}
	return out, nil
}

// writeStage writes the manifest and the root stage for the frames written so far.
func (u *usdExport) writeStage(dir string) error {
	if err := atomicfile.Write(filepath.Join(dir, usd.ManifestName), func(w io.Writer) error {
		return usd.WriteManifest(w, &u.stage)
	}); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, usd.RootName), func(w io.Writer) error {
		return usd.WriteStage(w, &u.stage)
	})
}
