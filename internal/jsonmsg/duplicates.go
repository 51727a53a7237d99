package jsonmsg

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// MaxDepth is how deeply Duplicates lets a file's arrays and objects nest. slosh's files nest a few levels (a
// replay's scene's fluid block's centre is five deep), so a deeper file is not one of them.
const MaxDepth = 100

// DuplicateError is an object key given twice: Path names it ("actions[3].body.shape"), First and Again are the
// key as the file writes it the first and the second time (they differ when they differ in case or escapes), and
// Where is the second one's line and column.
type DuplicateError struct {
	Path, First, Again, Where string
}

func (e *DuplicateError) Error() string {
	if e.First == e.Again {
		return fmt.Sprintf("%s: given twice (%s)", e.Path, e.Where)
	}
	return fmt.Sprintf("%s: given twice, as %s and %s (%s): names match regardless of case", e.Path, Quote(e.First),
		Quote(e.Again), e.Where)
}

// Prepare readies a JSON file that a stranger may have written for a strict decoder: Text (a UTF-8 byte-order
// mark, which editors on Windows write, is dropped; UTF-16 and UTF-32 are refused), then Duplicates. Every reader
// of slosh's JSON files (scenes, replays, presets, save-file headers) calls it before decoding.
func Prepare(data []byte) ([]byte, error) {
	data, err := Text(data)
	if err != nil {
		return nil, err
	}
	if err := Duplicates(data); err != nil {
		return nil, err
	}
	return data, nil
}

// Duplicates reports the first object key in data that is given twice in its object, as a *DuplicateError naming
// its path and place. encoding/json keeps the last of two (a replay naming "mode" twice ran the second), and
// matches struct fields regardless of case, so keys are compared as it compares them: after unescaping, with
// upper and lower case folded ("Mode" repeats "mode"). Nesting deeper than MaxDepth is an error too.
//
// It walks data once, keeping only the keys of the objects it is in, so its work is linear in len(data). Data
// that is not JSON is no concern of it: it stops where the syntax breaks and returns nil, and the decoder then
// says what is wrong there.
func Duplicates(data []byte) error {
	s := dupScanner{data: data}
	return s.run()
}

// dupScanner is Duplicates' state: the data, the position, and the arrays and objects it is in, innermost last.
type dupScanner struct {
	data  []byte
	pos   int
	stack []dupFrame
}

// dupFrame is an array or object being scanned.
type dupFrame struct {
	object bool
	index  int    // in an array: the element's index
	key    string // in an object: the current key, as decoded
	keys   []seenKey
	byFold map[string]seenKey // keys by their folded form, once there are many of them
}

// seenKey is a key of an object: as decoded, folded, and as written (for messages).
type seenKey struct {
	key, fold string
}

// manyKeys is the number of keys beyond which an object's keys are looked up in a map instead of a list.
const manyKeys = 16

func (s *dupScanner) run() error {
	for {
		s.space()
		if s.pos >= len(s.data) {
			return nil
		}
		// a value starts here
		switch c := s.data[s.pos]; c {
		case '{', '[':
			if len(s.stack) == MaxDepth {
				return fmt.Errorf("%s: nested deeper than %d levels: this is not a file slosh wrote", Position(s.data, int64(s.pos)), MaxDepth)
			}
			s.pos++
			s.push(c == '{')
			if s.space(); s.pos < len(s.data) && s.data[s.pos] == "}]"[btoi(c == '[')] {
				s.pos++
				s.stack = s.stack[:len(s.stack)-1]
				break
			}
			if c == '{' {
				if done, err := s.key(); done || err != nil {
					return err
				}
			}
			continue
		case '"':
			if _, ok := s.str(); !ok {
				return nil
			}
		default:
			start := s.pos
			for s.pos < len(s.data) && !isDelim(s.data[s.pos]) {
				s.pos++
			}
			if s.pos == start {
				return nil // not a value: the decoder says what
			}
		}
		// after a value: a comma and the next element or key, or the ends of arrays and objects
		for {
			if len(s.stack) == 0 {
				return nil // the value is the whole document: what follows it is the decoder's concern
			}
			s.space()
			if s.pos >= len(s.data) {
				return nil
			}
			f := &s.stack[len(s.stack)-1]
			c := s.data[s.pos]
			s.pos++
			switch {
			case c == ',' && f.object:
				if done, err := s.key(); done || err != nil {
					return err
				}
			case c == ',':
				f.index++
			case c == '}' && f.object, c == ']' && !f.object:
				s.stack = s.stack[:len(s.stack)-1]
				continue
			default:
				return nil
			}
			break
		}
	}
}

// push enters an array or object, reusing the list of keys of the last one scanned at that depth.
func (s *dupScanner) push(object bool) {
	n := len(s.stack)
	if n < cap(s.stack) {
		s.stack = s.stack[:n+1]
		f := &s.stack[n]
		*f = dupFrame{object: object, keys: f.keys[:0]}
		return
	}
	s.stack = append(s.stack, dupFrame{object: object})
}

// key reads an object's key and its colon, checks it against the object's keys so far and records it. done is
// true when the syntax breaks.
func (s *dupScanner) key() (done bool, err error) {
	s.space()
	at := s.pos
	raw, ok := s.str()
	if !ok {
		return true, nil
	}
	if s.space(); s.pos >= len(s.data) || s.data[s.pos] != ':' {
		return true, nil
	}
	s.pos++
	key, ok := decodeKey(raw)
	if !ok {
		return true, nil
	}
	f := &s.stack[len(s.stack)-1]
	f.key = key
	k := seenKey{key: key, fold: fold(key)}
	var first seenKey
	found := false
	if f.byFold != nil {
		first, found = f.byFold[k.fold]
	} else {
		for _, o := range f.keys {
			if o.fold == k.fold {
				first, found = o, true
				break
			}
		}
	}
	if found {
		return true, &DuplicateError{Path: s.path(), First: first.key, Again: key, Where: Position(s.data, int64(at))}
	}
	switch {
	case f.byFold != nil:
		f.byFold[k.fold] = k
	case len(f.keys) < manyKeys:
		f.keys = append(f.keys, k)
	default:
		f.byFold = make(map[string]seenKey, 2*manyKeys)
		for _, o := range f.keys {
			f.byFold[o.fold] = o
		}
		f.byFold[k.fold] = k
		f.keys = nil
	}
	return false, nil
}

// str reads a string at s.pos and returns it as written, quotes included; ok is false when there is none.
func (s *dupScanner) str() (raw []byte, ok bool) {
	if s.pos >= len(s.data) || s.data[s.pos] != '"' {
		return nil, false
	}
	for i := s.pos + 1; i < len(s.data); i++ {
		switch s.data[i] {
		case '\\':
			i++ // the escaped byte; \uXXXX's digits hold no quote
		case '"':
			raw = s.data[s.pos : i+1]
			s.pos = i + 1
			return raw, true
		}
	}
	return nil, false
}

// space skips white space as JSON defines it.
func (s *dupScanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// path names the current key: each array's index and object's key from the outermost in.
func (s *dupScanner) path() string {
	p := ""
	for _, f := range s.stack {
		if f.object {
			p = Join(p, f.key)
		} else {
			p += "[" + strconv.Itoa(f.index) + "]"
		}
	}
	return p
}

// decodeKey is a key as encoding/json decodes it: escapes resolved, and bytes that are not UTF-8 replaced.
func decodeKey(raw []byte) (string, bool) {
	plain := true
	for _, c := range raw {
		plain = plain && c != '\\' && c < utf8.RuneSelf
	}
	if plain {
		return string(raw[1 : len(raw)-1]), true
	}
	var k string
	if json.Unmarshal(raw, &k) != nil {
		return "", false
	}
	return k, true
}

// fold maps s so that fold(a) == fold(b) exactly when a and b are equal regardless of case, as encoding/json
// compares a key with a struct field's name: each rune becomes the smallest rune of its case-folding orbit
// (k, K and the Kelvin sign K all become K).
func fold(s string) string {
	plain := true
	for i := 0; i < len(s); i++ {
		plain = plain && s[i] < utf8.RuneSelf && !('a' <= s[i] && s[i] <= 'z')
	}
	if plain {
		return s
	}
	b := make([]byte, 0, len(s))
	for _, r := range s {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b = utf8.AppendRune(b, least)
	}
	return string(b)
}

// isDelim reports whether c ends a number or a literal (true, false, null).
func isDelim(c byte) bool {
	switch c {
	case ',', ']', '}', ':', '"', '[', '{', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
