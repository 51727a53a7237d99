package scene

import (
	"strings"
	"testing"
)

// strictHead is a valid scene's start, for the cases below to finish.
const strictHead = `{"name":"x","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.1},`

// A key given twice anywhere in a scene is refused with its path, instead of the decoder keeping the last one.
func TestSceneRefusesDuplicateKeys(t *testing.T) {
	sphere := `{"shape":"sphere","center":[0.5,0.5,0.5],"radius":0.2}`
	for _, c := range []struct{ data, want string }{
		{`{"name":"a","name":"b",` + strictHead[1:] + `"fluid":[` + sphere + `]}`, "dup.json: name: given twice (line 1, column 13)"},
		{strictHead + `"fluid":[` + sphere + `,{"shape":"box","center":[0.5,0.5,0.5],"size":[1,1,1],"shape":"sphere","radius":0.1}]}`,
			"dup.json: fluid[1].shape: given twice"},
		{strictHead + `"fluid":[` + sphere + `],"params":{"pbf.iterations":4,"pbf.iterations":40}}`, "dup.json: params.pbf.iterations: given twice"},
		{strictHead + `"fluid":[` + sphere + `],"camera":{"eye":[2,1,2],"target":[0,0,0],"Eye":[0,1,0]}}`,
			`dup.json: camera.Eye: given twice, as "eye" and "Eye"`},
	} {
		_, err := Parse([]byte(c.data), "dup.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.80s…: %v, want %q", c.data[len(strictHead):], err, c.want)
		}
	}
}

// null where a value is required is refused with the field's path; where a part is optional (a camera, a list)
// null is its absence, as encoding/json writes it.
func TestSceneNull(t *testing.T) {
	sphere := `{"shape":"sphere","center":[0.5,0.5,0.5],"radius":0.2}`
	for _, c := range []struct{ data, want string }{
		{`{"name":"x","domain":null,"particles":{"spacing":0.1},"fluid":[` + sphere + `]}`, "domain: want an object, got null"},
		{`{"name":"x","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":null},"fluid":[` + sphere + `]}`, "particles.spacing: want a number, got null"},
		{strictHead + `"fluid":[{"shape":"sphere","center":[0.5,0.5,0.5],"radius":null}]}`, "fluid[0].radius: want a number, got null"},
		{strictHead + `"fluid":[{"shape":"sphere","center":[0.5,null,0.5],"radius":0.2}]}`, "fluid[0].center[1]: want a number, got null"},
		{strictHead + `"fluid":null}`, "fluid: a scene needs at least one fluid block"},
		{strictHead + `"fluid":[` + sphere + `],"name":null}`, "given twice"},
	} {
		_, err := Parse([]byte(c.data), "null.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.80s: %v, want %q", c.data, err, c.want)
		}
	}
	if _, err := Parse([]byte(strictHead+`"fluid":[`+sphere+`],"camera":null,"bodies":null}`), "null.json"); err != nil {
		t.Errorf("null for an optional camera and an empty list: %v", err)
	}
}
