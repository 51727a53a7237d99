// Package jsonmsg words the errors of slosh's strict JSON readers (scenes, save-file headers, replays) for people:
// where in the file (line and column, or a field path like "fluid[1].size"), what was wanted and what was found.
package jsonmsg

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// Position is a byte offset of data as a line and column, counted from 1.
func Position(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
	return fmt.Sprintf("line %d, column %d", line, col)
}

// Join extends a field path: Join("fluid[1]", "size") is "fluid[1].size"; Join("", "size") is "size".
func Join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// Describe names a value of a JSON tree decoded with UseNumber: "null", "an object", "an array of 3", a quoted
// string, a number, true or false.
func Describe(tree any) string {
	switch x := tree.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return fmt.Sprintf("an array of %d", len(x))
	case string:
		return strconv.Quote(x)
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprintf("%T", tree)
}

// Type says what JSON a Go type wants: "a whole number", "a number", "a string", "an object", ...
func Type(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return t.String()
}

// Explain words an error of encoding/json decoding data: a syntax error with its line and column, a value of the
// wrong type with its field, what was wanted and where. empty is the message for no data at all ("empty file: a
// scene is a JSON object"); data that stops early is "truncated".
func Explain(data []byte, err error, empty string) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("%s: invalid JSON: %v", Position(data, se.Offset), se)
	case errors.As(err, &te):
		msg := fmt.Sprintf("want %s, got a JSON %s (%s)", Type(te.Type), te.Value, Position(data, te.Offset))
		if te.Field == "" {
			return msg
		}
		return te.Field + ": " + msg
	case errors.Is(err, io.EOF):
		return empty
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "unexpected end of the file: it is truncated"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
