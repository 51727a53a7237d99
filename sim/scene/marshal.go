package scene

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/slosh/slosh/internal/jsonmsg"
)

// Marshal writes the scene as a scene file that Parse reads back to an equal scene: one top-level field a line,
// the elements of materials, fluid, obstacles, bodies, emitters and blasts one a line, everything else inline, fields in the order
// they are declared and empty optional fields left out, numbers in the fewest digits that read back exactly.
//
// Mesh shapes keep their mesh name as written. A shipped mesh's name resolves wherever the file is saved; a path
// relative to the scene file it was read from is kept as it is, so a scene saved into another folder needs the
// OBJ file beside it there (or the name made absolute) to load again. Values that Validate normalised (an
// emitter's direction, a motion's axis) are written normalised. A NaN or infinite number is an error naming its
// field.
func (s *Scene) Marshal() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\n")
	fields := jsonFields(reflect.ValueOf(s).Elem())
	for i, f := range fields {
		b.WriteString("  ")
		writeString(&b, f.name)
		b.WriteString(": ")
		v := f.value
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Struct && v.Len() > 0 {
			b.WriteString("[\n")
			for j := 0; j < v.Len(); j++ {
				b.WriteString("    ")
				if err := encode(&b, v.Index(j), fmt.Sprintf("%s[%d]", f.name, j)); err != nil {
					return nil, err
				}
				if j < v.Len()-1 {
					b.WriteByte(',')
				}
				b.WriteByte('\n')
			}
			b.WriteString("  ]")
		} else if err := encode(&b, v, f.name); err != nil {
			return nil, err
		}
		if i < len(fields)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}\n")
	return b.Bytes(), nil
}

// field is a struct field of a scene file: its JSON name and value.
type field struct {
	name      string
	value     reflect.Value
	omitEmpty bool
}

// structFields lists the fields of struct v that a scene file holds, in declaration order, embedded structs
// flattened: what the decoder fills and Marshal writes.
func structFields(v reflect.Value) []field {
	var out []field
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			out = append(out, structFields(v.Field(i))...)
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		out = append(out, field{name, v.Field(i), opts == "omitempty"})
	}
	return out
}

// jsonFields is structFields less the omitempty fields that are empty (zero, or a vector of zeros).
func jsonFields(v reflect.Value) []field {
	var out []field
	for _, f := range structFields(v) {
		if f.omitEmpty {
			switch fv := f.value; fv.Kind() {
			case reflect.Slice, reflect.Map:
				if fv.Len() == 0 {
					continue
				}
			default:
				if fv.IsZero() {
					continue
				}
			}
		}
		out = append(out, f)
	}
	return out
}

// encode writes v as compact JSON with a space after each colon and comma; path names it in errors.
func encode(b *bytes.Buffer, v reflect.Value, path string) error {
	if v.Type() == rawType {
		if v.Len() == 0 {
			b.WriteString("null")
			return nil
		}
		var c bytes.Buffer
		if err := json.Compact(&c, v.Bytes()); err != nil {
			return errAt(path, "%v", err)
		}
		b.Write(c.Bytes())
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		return encode(b, v.Elem(), path)
	case reflect.Struct:
		b.WriteByte('{')
		for i, f := range jsonFields(v) {
			if i > 0 {
				b.WriteString(", ")
			}
			writeString(b, f.name)
			b.WriteString(": ")
			if err := encode(b, f.value, jsonmsg.Join(path, f.name)); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case reflect.Slice, reflect.Array:
		b.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			if err := encode(b, v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case reflect.Map:
		keys := make([]string, 0, v.Len())
		for _, k := range v.MapKeys() {
			keys = append(keys, k.String())
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeString(b, k)
			b.WriteString(": ")
			if err := encode(b, v.MapIndex(reflect.ValueOf(k).Convert(v.Type().Key())), jsonmsg.Join(path, k)); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case reflect.Float64:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return errAt(path, "%g cannot be written: a scene file holds finite numbers", f)
		}
		b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	case reflect.Int:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.String:
		writeString(b, v.String())
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	default:
		return errAt(path, "cannot write a %s", v.Type())
	}
	return nil
}

// writeString writes s as a JSON string, leaving <, > and & as they are.
func writeString(b *bytes.Buffer, s string) {
	var q bytes.Buffer
	enc := json.NewEncoder(&q)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.Write(bytes.TrimSuffix(q.Bytes(), []byte("\n")))
}
