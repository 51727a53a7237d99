package app

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/slosh/slosh/gpu/render"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
)

// ListScenes prints the shipped scenes with their default modes and descriptions.
func ListScenes(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENE\tMODE\tDESCRIPTION")
	for _, name := range scene.BuiltinNames() {
		sc, err := scene.Builtin(name)
		if err != nil {
			return fmt.Errorf("shipped scene %s: %w", name, err)
		}
		mode := sc.Mode
		if mode == "" {
			mode = DefaultMode
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", name, mode, sc.Description)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nOpen one with `slosh --scene NAME`, or give the path of a scene file (JSON) instead of a name.")
	return nil
}

// ListModes prints the mode table.
func ListModes(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, m := range Modes() {
		fmt.Fprintf(tw, "  %s\t%s\n", m.Name, m.Desc)
	}
	tw.Flush()
}

// ListParams prints every parameter of a mode — name, kind, unit, default, hard range, description — grouped as
// in the panel, then the surface's surface.*, mesh.* and upsample.* and the renderer's render.* parameters, which every
// mode has and --set accepts. It needs no OpenGL: the sets are registered with their defaults, without a context.
func ListParams(w io.Writer, o Options) error {
	if err := o.check(); err != nil {
		return err
	}
	name := o.Mode
	if name == "" {
		name = DefaultMode
	}
	m, err := lookupMode(Modes(), name)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Parameters of mode %s (%s).\nSet them with --set NAME=VALUE; ranges are hard bounds.\n", m.Name, m.Desc)
	printParams(w, m.Params())

	fmt.Fprintln(w, "\nSurface parameters (every mode): the anisotropic kernels the surface and ellipsoids are drawn with, the\n"+
		"mesh of render.mode mesh, Save mesh and export --mesh (mesh.*), and the upsampled surface (upsample.*).")
	printParams(w, SurfaceParams())

	fmt.Fprintln(w, "\nRender parameters (every mode).")
	printParams(w, render.NewParams())
	return nil
}

func printParams(w io.Writer, set *param.Set) {
	for _, g := range set.Groups() {
		fmt.Fprintf(w, "\n[%s]\n", strings.ReplaceAll(g, "|", " / "))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, p := range set.All() {
			if p.Group != g {
				continue
			}
			unit := p.Unit
			if unit == "" {
				unit = "-"
			}
			note := ""
			if p.OnReset {
				note = " (on reset)"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\tdefault %s\t%s\t%s%s\n", p.Name, p.Kind, unit, p.Format(p.Default()), hardRange(p), p.Desc, note)
		}
		tw.Flush()
	}
}

func hardRange(p *param.Param) string {
	switch p.Kind {
	case param.Bool:
		return "true|false"
	case param.Choice:
		return strings.Join(p.Items, "|")
	case param.Vec3:
		return fmt.Sprintf("[%s, %s] each", p.FormatBound(p.Min), p.FormatBound(p.Max))
	}
	return fmt.Sprintf("[%s, %s]", p.FormatBound(p.Min), p.FormatBound(p.Max))
}
