// Package assets embeds everything slosh ships: scenes (JSON), and later meshes, fonts and environment maps.
// Nothing is fetched at run time.
package assets

import (
	"embed"
	"io/fs"
)

//go:embed scenes/*.json
var files embed.FS

// Scenes is the folder of shipped scenes, one NAME.json each.
func Scenes() fs.FS {
	sub, err := fs.Sub(files, "scenes")
	if err != nil {
		panic("assets: " + err.Error()) // the embed pattern guarantees the folder
	}
	return sub
}
