// Package jsonmsg words the errors of slosh's strict JSON readers (scenes, save-file headers, replays, presets) for
// people: where in the file (line and column, or a field path like "fluid[1].size"), what was wanted and what was
// found. Input quoted in a message is cut to a readable length (Quote, Clip: other readers' messages use them too).
//
// Before decoding, every reader passes a file to Prepare, so that all of them take the same files:
//
//   - a UTF-8 byte-order mark, which Notepad and other editors on Windows write at the start of a file, is
//     skipped everywhere (a file people edit by hand should not stop working for being saved there), while
//     UTF-16 and UTF-32 text is refused saying what it is and what to do (Text);
//   - an object key given twice is refused with its path, "actions[3].body.shape: given twice" (Duplicates):
//     encoding/json keeps the last of the two, so a file could say one thing to a person reading it and do
//     another.
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

// MaxQuote is how many characters of a file's text a message repeats: a 10 MB field name or token is cut to this.
const MaxQuote = 60

// Clip returns s, or its first MaxQuote characters and "…" when it is longer.
func Clip(s string) string { return clip(s, MaxQuote) }

// clip cuts s to max characters and "…".
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := 0
	for i := range s { // rune boundaries, so a cut never splits a character
		if n == max {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// Quote is strconv.Quote of s cut by Clip, followed by the full length when it was cut:
// "aaaa…" (10485760 bytes).
func Quote(s string) string {
	c := Clip(s)
	if c == s {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s (%d bytes)", strconv.Quote(c), len(s))
}

// Text checks that data is in an encoding slosh reads (UTF-8, or ASCII) and drops a UTF-8 byte-order mark, which
// some editors on Windows write. UTF-16 and UTF-32 text, with a byte-order mark or recognised by the zero bytes of
// its first character, is an error that says so and what to do, instead of the decoder's "invalid character 'ÿ'".
func Text(data []byte) ([]byte, error) {
	if b, ok := bytes.CutPrefix(data, []byte{0xEF, 0xBB, 0xBF}); ok {
		return b, nil
	}
	enc, order := "", ""
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE, 0, 0}), len(data) >= 4 && data[0] != 0 && data[1] == 0 && data[2] == 0 && data[3] == 0:
		enc, order = "UTF-32", "little-endian"
	case bytes.HasPrefix(data, []byte{0, 0, 0xFE, 0xFF}), len(data) >= 4 && data[0] == 0 && data[1] == 0 && data[2] == 0 && data[3] != 0:
		enc, order = "UTF-32", "big-endian"
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), len(data) >= 2 && data[0] != 0 && data[1] == 0:
		enc, order = "UTF-16", "little-endian"
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}), len(data) >= 2 && data[0] == 0 && data[1] != 0:
		enc, order = "UTF-16", "big-endian"
	}
	if enc != "" {
		return nil, fmt.Errorf("the file is %s (%s) text, and slosh reads UTF-8: save it as UTF-8 (an editor's Save As, Encoding UTF-8; or iconv -f %s -t UTF-8)", enc, order, enc)
	}
	return data, nil
}

// Position is a byte offset of data as a line and column, counted from 1.
func Position(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
	return fmt.Sprintf("line %d, column %d", line, col)
}

// Join extends a field path: Join("fluid[1]", "size") is "fluid[1].size"; Join("", "size") is "size". A field
// name longer than MaxQuote characters is cut (Clip): paths are for messages.
func Join(path, field string) string {
	field = Clip(field)
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
		return Quote(x)
	case json.Number:
		return Clip(x.String())
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
		msg := fmt.Sprintf("want %s, got a JSON %s (%s)", Type(te.Type), Clip(te.Value), Position(data, te.Offset))
		if te.Field == "" {
			return msg
		}
		return Clip(te.Field) + ": " + msg
	case errors.Is(err, io.EOF):
		return empty
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "unexpected end of the file: it is truncated"
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	return clip(msg, 4*MaxQuote) // encoding/json quotes an unknown field's name whole
}
