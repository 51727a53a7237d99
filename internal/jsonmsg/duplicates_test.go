package jsonmsg

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestDuplicates(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{`{"mode":"a","mode":"b"}`, `mode: given twice (line 1, column 13)`},
		{"{\n \"a\": 1,\n \"b\": {\"x\": [1, {\"y\": 2, \"y\": 3}]}\n}", `b.x[1].y: given twice (line 3, column 26)`},
		{`{"actions":[{},{},{},{"body":{"shape":"box","size":[1,1,1],"shape":"sphere"}}]}`, `actions[3].body.shape: given twice`},
		{`[{"a":1},{"a":1,"a":2}]`, `[1].a: given twice`},
		// the same name written with an escape, and in another case (encoding/json matches struct fields so)
		{`{"mode":1,"m\u006fde":2}`, `mode: given twice`},
		{`{"particles":1,"Particles":2}`, `Particles: given twice, as "particles" and "Particles" (line 1, column 16): names match regardless of case`},
		{`{"k":1,"\u212a":2}`, "given twice, as \"k\" and \"\u212a\""}, // the Kelvin sign folds to k, as in encoding/json
		{`{"` + strings.Repeat("n", 100) + `":1,"` + strings.Repeat("n", 100) + `":2}`, `nnnnn…: given twice`},
	} {
		err := Duplicates([]byte(c.data))
		var de *DuplicateError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &de) {
			t.Errorf("%.60s: %v, want %q", c.data, err, c.want)
		}
	}
	for _, data := range []string{
		``, `null`, `1`, `"x"`, `[]`, `{}`, `{"a":{"a":{"a":1}}}`, `[{"a":1},{"a":2}]`, `{"a":1,"b":{"a":2},"c":[{"a":3}]}`,
		`{"a\"b":1,"a\\b":2,"ab":3}`, `{"x":"{\"x\":1,\"x\":2}"}`, ` { "a" : [ 1 , 2 ] , "b" : true } `,
		// not JSON, or broken: left to the decoder, which says where
		`{"a":1,"a"`, `{"a" 1, "a": 2}`, `{"a":1,}`, `[1,2`, `{"a":"`, `{]`, `{"a":1} {"a":1,"a":2}`,
	} {
		if err := Duplicates([]byte(data)); err != nil {
			t.Errorf("%q: %v", data, err)
		}
	}
}

// Nesting is bounded, and so is the work: a million keys in one object, or a million small objects, take one pass.
func TestDuplicatesBounds(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	if err := Duplicates([]byte(deep)); err == nil || !strings.Contains(err.Error(), "nested deeper than") {
		t.Errorf("%d levels: %v", MaxDepth+1, err)
	}
	ok := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if err := Duplicates([]byte(ok)); err != nil {
		t.Errorf("%d levels: %v", MaxDepth, err)
	}
	var b strings.Builder
	b.WriteString(`{"big":{`)
	for i := range 1 << 18 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k`)
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(itoa(i))
		b.WriteString(`":0`)
	}
	b.WriteString(`},"small":[`)
	for i := range 1 << 18 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"a":1,"b":2}`)
	}
	b.WriteString(`]}`)
	data := []byte(b.String())
	start := time.Now()
	if err := Duplicates(data); err != nil {
		t.Error(err)
	}
	t.Logf("%d MB in %v", len(data)>>20, time.Since(start))
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var d []byte
	for ; i > 0; i /= 10 {
		d = append([]byte{byte('0' + i%10)}, d...)
	}
	return string(d)
}

// Prepare drops a UTF-8 byte-order mark, refuses other encodings and duplicate keys.
func TestPrepare(t *testing.T) {
	if b, err := Prepare([]byte("\xEF\xBB\xBF{\"a\":1}")); err != nil || string(b) != `{"a":1}` {
		t.Errorf("a BOM: %q, %v", b, err)
	}
	if _, err := Prepare([]byte("\xFF\xFE{\x00")); err == nil || !strings.Contains(err.Error(), "UTF-16") {
		t.Errorf("UTF-16: %v", err)
	}
	if _, err := Prepare([]byte("\xEF\xBB\xBF{\"a\":1,\n\"a\":2}")); err == nil || err.Error() != "a: given twice (line 2, column 1)" {
		t.Errorf("a duplicate after a BOM: %v", err)
	}
}

// BenchmarkDuplicates scans a replay-like file: a few keys, and long arrays of numbers.
func BenchmarkDuplicates(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"format":"slosh-replay","actions":[`)
	for i := range 20000 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"step":12,"op":"add_fluid","fluid":{"pos":[[0.1,0.25,0.125],[0.2,0.25,0.125]],"vel":[[0,-1,0],[0,-1,0]]}}`)
	}
	sb.WriteString(`]}`)
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := Duplicates(data); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzDuplicates checks Duplicates against a slow reference built on encoding/json's tokens: on valid JSON within
// MaxDepth both find a key given twice, compared regardless of case, or neither does; on anything else Duplicates
// only must not fail to return.
func FuzzDuplicates(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"b":{"a":2,"A":3}}`, `[{"x":[{"y":1,"y":2}]}]`, `{"k":1,"\u212a":2}`, `{"a\"":1,"a\\":2}`, `{"é":1,"É":2}`,
		`{"a":1,"a"`, `[[[[`, "\"\\u00e9\"", `{"ſ":1,"S":2}`, `{"\ud800":1,"\ufffd":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := Duplicates(data)
		if !json.Valid(data) {
			return
		}
		want, deep := referenceDuplicate(data)
		if deep {
			return
		}
		if (err != nil) != want {
			t.Fatalf("Duplicates: %v; the reference finds a duplicate: %v", err, want)
		}
	})
}

// referenceDuplicate walks data's tokens and reports whether an object has two keys equal regardless of case, and
// whether data nests deeper than MaxDepth.
func referenceDuplicate(data []byte) (dup, deep bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	type level struct {
		object, wantKey bool
		keys            []string
	}
	var stack []level
	for {
		tok, err := dec.Token()
		if err != nil {
			return dup, deep
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].wantKey = true
				}
				stack = append(stack, level{object: v == '{', wantKey: v == '{'})
				if len(stack) > MaxDepth {
					return dup, true
				}
			default:
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].wantKey = true
				}
			}
			continue
		case string:
			if l := &stack; len(*l) > 0 && (*l)[len(*l)-1].object && (*l)[len(*l)-1].wantKey {
				top := &(*l)[len(*l)-1]
				for _, k := range top.keys {
					if strings.EqualFold(k, v) {
						dup = true
					}
				}
				top.keys = append(top.keys, v)
				top.wantKey = false
				continue
			}
		}
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].wantKey = true
		}
	}
}
