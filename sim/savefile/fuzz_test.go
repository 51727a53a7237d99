package savefile

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"
)

// fuzzSeeds are small save files: a valid one and the bad cases slosh has met (a state entry claiming more than
// the header's particles can take, one inflating far beyond them, a time of 1e300, an archive whose directory
// claims megabytes, a truncated file, text).
func fuzzSeeds(f *testing.F) [][]byte {
	params, _ := newParams()
	sc := builtin(f)
	file, err := Capture("pbf", params, sc, &fakeSolver{kind: "pbf", state: []byte("slosh pbf state\n")}, 0.5, 30, 2)
	if err != nil {
		f.Fatal(err)
	}
	archive := func(hdrEdit func(h map[string]any), state []byte, claim uint64) []byte {
		hdr, err := file.marshalHeader(file.Saved)
		if err != nil {
			f.Fatal(err)
		}
		if hdrEdit != nil {
			var h map[string]any
			json.Unmarshal(hdr, &h)
			hdrEdit(h)
			hdr, _ = json.Marshal(h)
		}
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: HeaderEntry, Method: zip.Store})
		w.Write(hdr)
		if claim > 0 { // a stored entry whose header claims claim bytes
			w, _ = zw.CreateRaw(&zip.FileHeader{Name: StateEntry, Method: zip.Store, CompressedSize64: uint64(len(state)), UncompressedSize64: claim})
		} else {
			w, _ = zw.CreateHeader(&zip.FileHeader{Name: StateEntry, Method: zip.Deflate})
		}
		w.Write(state)
		zw.Close()
		return buf.Bytes()
	}
	valid := archive(nil, file.State, 0)
	// the end record of a zip claiming a 1 MiB directory of 65535 entries
	eocd := make([]byte, 22)
	copy(eocd, "PK\x05\x06")
	binary.LittleEndian.PutUint16(eocd[10:], 0xffff)
	binary.LittleEndian.PutUint32(eocd[12:], 1<<20)
	return [][]byte{
		valid,
		archive(nil, []byte("tiny"), MaxState+1),
		// over what one particle may take (a 2 MiB state inflated from a seed stalled the fuzzer's workers)
		archive(func(h map[string]any) { h["particles"] = 1 }, []byte("tiny"), uint64(StateBudget(1))+1),
		archive(func(h map[string]any) { h["time"] = 1e300 }, file.State, 0),
		archive(func(h map[string]any) { h["time"] = -1 }, file.State, 0),
		archive(func(h map[string]any) { h["particles"], h["steps"] = nil, nil }, file.State, 0), // null read as 0 (issue 24)
		append([]byte("PK\x03\x04"), eocd...),
		valid[:len(valid)/2],
		[]byte(`{"mode": "pbf"}`),
	}
}

// FuzzLoad feeds arbitrary bytes to the save file reader: it never panics, its errors name the file, and what it
// accepts saves and loads back the same.
func FuzzLoad(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const path = "fuzz.slosh"
		g, err := read(bytes.NewReader(data), int64(len(data)), path)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("the error does not name the file: %v", err)
			}
			return
		}
		hdr, err := g.marshalHeader(g.saved())
		if err != nil {
			t.Fatalf("a loaded file does not save: %v", err)
		}
		gs, err := g.StateBytes()
		if err != nil {
			return // a damaged state is found as it inflates, when a solver reads it
		}
		var buf bytes.Buffer
		if err := writeArchive(&buf, hdr, gs, g.saved()); err != nil {
			t.Fatal(err)
		}
		h, err := read(bytes.NewReader(buf.Bytes()), int64(buf.Len()), path)
		if err != nil {
			t.Fatalf("a loaded file, saved again, does not load: %v", err)
		}
		if h.Mode != g.Mode || h.Kind != g.Kind || h.Time != g.Time || h.Steps != g.Steps || h.Particles != g.Particles ||
			!bytes.Equal(stateOf(t, h), gs) || sceneJSON(t, h.Scene) != sceneJSON(t, g.Scene) {
			t.Fatalf("saved again, it loads differently")
		}
	})
}

// FuzzHeader feeds arbitrary bytes to the header decoder directly (in an archive, nearly every change to the
// header breaks its checksum first): nothing panics, errors name the file, and what it accepts writes back as a
// header that decodes the same.
func FuzzHeader(f *testing.F) {
	params, _ := newParams()
	file, err := Capture("pbf", params, builtin(f), &fakeSolver{kind: "pbf", state: []byte("s")}, 0.5, 30, 2)
	if err != nil {
		f.Fatal(err)
	}
	hdr, err := file.marshalHeader(file.Saved)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(hdr)
	for _, edit := range []func(h map[string]any){
		func(h map[string]any) { h["time"] = 1e300 },
		func(h map[string]any) { h["time"] = -1 },
		func(h map[string]any) { h["steps"] = 1e19 },
		func(h map[string]any) { h["particles"] = 2e28 },
		func(h map[string]any) { h["mode"] = "flip" },
		func(h map[string]any) {
			h["params"].(map[string]any)["params"].(map[string]any)["pbf.iterations"] = 1000
		},
		func(h map[string]any) { h["format"] = 2 },
		func(h map[string]any) { delete(h, "scene") },
		// null, read as a zero before issue 24
		func(h map[string]any) { h["particles"] = nil },
		func(h map[string]any) { h["saved"] = nil },
		func(h map[string]any) { h["params"].(map[string]any)["params"] = nil },
	} {
		f.Add(editHeader(f, edit))
	}
	// a key given twice, in another case, and a byte-order mark (issue 24)
	f.Add(bytes.Replace(hdr, []byte(`"particles": `), []byte(`"particles": 7, "Particles": `), 1))
	f.Add(bytes.Replace(hdr, []byte(`"mode": `), []byte(`"mode": "flip", "mode": `), 1))
	f.Add(append([]byte("\xEF\xBB\xBF"), hdr...))
	f.Fuzz(func(t *testing.T, data []byte) {
		const path = "fuzz.slosh"
		g, err := decodeHeader(path, data)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("the error does not name the file: %v", err)
			}
			return
		}
		again, err := g.marshalHeader(g.saved())
		if err != nil {
			t.Fatalf("an accepted header does not write: %v", err)
		}
		h, err := decodeHeader(path, again)
		if err != nil {
			t.Fatalf("an accepted header, written again, is refused: %v", err)
		}
		if h.Mode != g.Mode || h.Kind != g.Kind || h.Time != g.Time || h.Steps != g.Steps || h.Particles != g.Particles ||
			sceneJSON(t, h.Scene) != sceneJSON(t, g.Scene) {
			t.Fatal("an accepted header, written again, decodes differently")
		}
	})
}

// stateOf is a loaded file's whole state; a damage the fuzzer made in it fails the test.
func stateOf(t *testing.T, f *File) []byte {
	t.Helper()
	b, err := f.StateBytes()
	if err != nil {
		t.Fatalf("the state of a file written by writeArchive does not read back: %v", err)
	}
	return b
}
