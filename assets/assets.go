// Package assets embeds everything slosh ships: scenes (JSON), triangle meshes (OBJ), the panel's font, and later
// environment maps.
// Nothing is fetched at run time.
package assets

import (
	"embed"
	"io/fs"
)

//go:embed scenes/*.json meshes/*.obj fonts/DejaVuSans.ttf
var files embed.FS

// Scenes is the folder of shipped scenes, one NAME.json each.
func Scenes() fs.FS {
	sub, err := fs.Sub(files, "scenes")
	if err != nil {
		panic("assets: " + err.Error()) // the embed pattern guarantees the folder
	}
	return sub
}

// Meshes is the folder of shipped triangle meshes (OBJ), which scenes name by file name ("bunny.obj"); credits
// in meshes/CREDITS.md.
func Meshes() fs.FS {
	sub, err := fs.Sub(files, "meshes")
	if err != nil {
		panic("assets: " + err.Error()) // the embed pattern guarantees the folder
	}
	return sub
}

// PanelFont is DejaVu Sans (Bitstream Vera licence, fonts/LICENSE-DejaVu.txt): the panel's text face, chosen for
// its coverage of the Greek letters and mathematical symbols the parameters are named with (ε, ρ0, Δq, ∇, Σ).
func PanelFont() []byte {
	data, err := files.ReadFile("fonts/DejaVuSans.ttf")
	if err != nil {
		panic("assets: " + err.Error()) // the embed pattern guarantees the file
	}
	return data
}
