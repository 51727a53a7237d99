package scene

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/slosh/slosh/assets"
	"github.com/slosh/slosh/internal/jsonmsg"
	"github.com/slosh/slosh/internal/safeio"
)

// Parse decodes and validates a scene. source names it in errors (a path, or "builtin:NAME"). data may start with
// a UTF-8 byte-order mark; other encodings, more than MaxFileBytes and a key given twice anywhere (which a decoder
// would read as its last value) are refused before decoding (jsonmsg.Prepare). null is refused where a value is
// required, and is the absence of an optional part (a camera) or an empty list, as encoding/json writes them.
func Parse(data []byte, source string) (*Scene, error) {
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%s: the scene is %s, over the limit of %s for scene files", source, safeio.Bytes(int64(len(data))), safeio.Bytes(MaxFileBytes))
	}
	data, err := jsonmsg.Prepare(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, fmt.Errorf("%s: %s", source, jsonmsg.Explain(data, err, "empty file: a scene is a JSON object"))
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: %s: unexpected data after the scene object", source, jsonmsg.Position(data, dec.InputOffset()))
	}
	sc := &Scene{}
	if err := decode(tree, reflect.ValueOf(sc).Elem(), ""); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	sc.Source = source
	if err := sc.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return sc, nil
}

// LoadFile reads and parses a scene file: a regular file (not a pipe, device or folder) of at most MaxFileBytes.
func LoadFile(path string) (*Scene, error) {
	data, err := safeio.ReadFile(path, MaxFileBytes)
	if err != nil {
		var big *safeio.TooLargeError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("scene file %s does not exist", path)
		case errors.As(err, &big):
			return nil, fmt.Errorf("%w: a scene file is JSON of at most %s; is %s a scene?", err, safeio.Bytes(MaxFileBytes), path)
		}
		return nil, fmt.Errorf("reading scene: %w", err)
	}
	return Parse(data, path)
}

// BuiltinNames lists the scenes shipped in the binary, sorted.
func BuiltinNames() []string {
	entries, _ := fs.ReadDir(assets.Scenes(), ".")
	var out []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".json"); ok && !e.IsDir() {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Builtin loads a shipped scene by name.
func Builtin(name string) (*Scene, error) {
	data, err := fs.ReadFile(assets.Scenes(), name+".json")
	if err != nil {
		return nil, fmt.Errorf("no scene named %s; the shipped scenes are %s (or give a path to a .json file)", jsonmsg.Quote(name), strings.Join(BuiltinNames(), ", "))
	}
	return Parse(data, "builtin:"+name)
}

// Open loads a scene given by name (a shipped scene) or by path (anything with a path separator or ending in
// .json, or an existing file).
func Open(nameOrPath string) (*Scene, error) {
	if strings.ContainsRune(nameOrPath, filepath.Separator) || strings.ContainsRune(nameOrPath, '/') ||
		strings.HasSuffix(nameOrPath, ".json") {
		return LoadFile(nameOrPath)
	}
	if _, err := os.Stat(nameOrPath); err == nil {
		return LoadFile(nameOrPath)
	}
	return Builtin(nameOrPath)
}

// Clone returns a deep copy.
func (s *Scene) Clone() *Scene {
	c := *s
	c.Materials = append([]Material(nil), s.Materials...)
	for i, m := range c.Materials {
		if m.PhaseChange != nil {
			pc := *m.PhaseChange
			c.Materials[i].PhaseChange = &pc
		}
	}
	c.Fluid = append([]Fluid(nil), s.Fluid...)
	c.Obstacles = append([]Obstacle(nil), s.Obstacles...)
	for i, o := range c.Obstacles {
		if o.Motion != nil {
			m := *o.Motion
			c.Obstacles[i].Motion = &m
		}
	}
	c.Bodies = append([]Body(nil), s.Bodies...)
	c.Emitters = append([]Emitter(nil), s.Emitters...)
	c.Blasts = append([]Blast(nil), s.Blasts...)
	c.Heaters = append([]Heater(nil), s.Heaters...)
	// mesh shapes share their loaded MeshData, which nothing modifies
	if s.Camera != nil {
		cam := *s.Camera
		c.Camera = &cam
	}
	if s.Flat != nil {
		c.Flat = s.Flat.clone()
	}
	if s.Params != nil {
		c.Params = ParamValues{}
		for k, v := range s.Params {
			c.Params[k] = append(json.RawMessage(nil), v...)
		}
	}
	return &c
}

// pathErr is a decoding or validation error at a field path like "fluid[1].size".
type pathErr struct {
	path string
	msg  string
}

func (e *pathErr) Error() string {
	if e.path == "" {
		return e.msg
	}
	return e.path + ": " + e.msg
}

func errAt(path, format string, args ...any) error {
	return &pathErr{path: path, msg: fmt.Sprintf(format, args...)}
}

var rawType = reflect.TypeOf(json.RawMessage(nil))

// decode assigns a generic JSON tree to v, rejecting unknown fields and wrong types with the field's path.
func decode(tree any, v reflect.Value, path string) error {
	if v.Type() == rawType {
		b, err := json.Marshal(tree)
		if err != nil {
			return errAt(path, "%v", err)
		}
		v.SetBytes(b)
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		if tree == nil {
			return nil
		}
		p := reflect.New(v.Type().Elem())
		if err := decode(tree, p.Elem(), path); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case reflect.Struct:
		obj, ok := tree.(map[string]any)
		if !ok {
			return errAt(path, "want an object, got %s", jsonmsg.Describe(tree))
		}
		fields := map[string]reflect.Value{}
		var names []string
		collectFields(v, fields, &names)
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			f, ok := fields[k]
			if !ok {
				return errAt(jsonmsg.Join(path, k), "unknown field; known fields here are %s", strings.Join(names, ", "))
			}
			if err := decode(obj[k], f, jsonmsg.Join(path, k)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice:
		if tree == nil {
			return nil // null, as encoding/json writes an empty slice: none
		}
		arr, ok := tree.([]any)
		if !ok {
			return errAt(path, "want an array, got %s", jsonmsg.Describe(tree))
		}
		s := reflect.MakeSlice(v.Type(), len(arr), len(arr))
		for i, e := range arr {
			if err := decode(e, s.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	case reflect.Array:
		arr, ok := tree.([]any)
		if !ok || len(arr) != v.Len() {
			if _, num := tree.(json.Number); num && strings.HasSuffix(path, ".size") {
				return errAt(path, "want an array of %d numbers (a box's full extents), got %s; a mesh's size is its extent", v.Len(), jsonmsg.Describe(tree))
			}
			return errAt(path, "want an array of %d numbers, got %s", v.Len(), jsonmsg.Describe(tree))
		}
		for i, e := range arr {
			if err := decode(e, v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Map:
		obj, ok := tree.(map[string]any)
		if !ok {
			return errAt(path, "want an object, got %s", jsonmsg.Describe(tree))
		}
		m := reflect.MakeMapWithSize(v.Type(), len(obj))
		for k, e := range obj {
			ev := reflect.New(v.Type().Elem()).Elem()
			if err := decode(e, ev, jsonmsg.Join(path, k)); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(k), ev)
		}
		v.Set(m)
		return nil
	case reflect.Float64:
		n, ok := tree.(json.Number)
		if !ok {
			return errAt(path, "want a number, got %s", jsonmsg.Describe(tree))
		}
		f, err := n.Float64()
		if err != nil || math.IsInf(f, 0) {
			return errAt(path, "number %s is out of range", jsonmsg.Clip(n.String()))
		}
		v.SetFloat(f)
		return nil
	case reflect.Int:
		n, ok := tree.(json.Number)
		if !ok {
			return errAt(path, "want a whole number, got %s", jsonmsg.Describe(tree))
		}
		i, err := strconv.ParseInt(n.String(), 10, 64)
		if err != nil {
			return errAt(path, "want a whole number, got %s", jsonmsg.Clip(n.String()))
		}
		v.SetInt(i)
		return nil
	case reflect.String:
		s, ok := tree.(string)
		if !ok {
			return errAt(path, "want a string, got %s", jsonmsg.Describe(tree))
		}
		v.SetString(s)
		return nil
	case reflect.Bool:
		b, ok := tree.(bool)
		if !ok {
			return errAt(path, "want true or false, got %s", jsonmsg.Describe(tree))
		}
		v.SetBool(b)
		return nil
	}
	return errAt(path, "cannot decode into %s", v.Type())
}

// collectFields maps JSON names to the struct's settable fields, flattening embedded structs.
func collectFields(v reflect.Value, out map[string]reflect.Value, names *[]string) {
	for _, f := range structFields(v) {
		out[f.name] = f.value
		*names = append(*names, f.name)
	}
}

// Portable returns s, or a copy of it whose mesh paths no longer depend on where its file was: a mesh named
// relative to the scene file becomes an absolute path, so the scene can be written into another file (a save
// file, a replay) and read back from there. Shipped meshes keep their names; scenes made in code or shipped are
// returned as they are.
func (s *Scene) Portable() *Scene {
	if s.Source == "" || strings.HasPrefix(s.Source, "builtin:") {
		return s
	}
	dir := filepath.Dir(s.Source) // also right for "SAVE:scene", a scene read from a save file
	c := s.Clone()
	fix := func(sh *Shape) {
		if sh.Kind != ShapeMesh || sh.Mesh == "" || filepath.IsAbs(filepath.FromSlash(sh.Mesh)) {
			return
		}
		abs, err := filepath.Abs(filepath.Join(dir, filepath.FromSlash(sh.Mesh)))
		if err != nil {
			return
		}
		if fi, err := os.Stat(abs); err != nil || !fi.Mode().IsRegular() {
			return // a shipped mesh, by name
		}
		sh.Mesh = filepath.ToSlash(abs)
	}
	for i := range c.Fluid {
		fix(&c.Fluid[i].Shape)
	}
	for i := range c.Obstacles {
		fix(&c.Obstacles[i].Shape)
	}
	for i := range c.Bodies {
		fix(&c.Bodies[i].Shape)
	}
	return c
}
