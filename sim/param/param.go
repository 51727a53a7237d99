// Package param is the registry of tunable parameters every solver exposes.
//
// A parameter is described once — name, label, group, unit, hard and soft bounds, default, a one-line description
// and a pointer to the live value — and from that description come the imgui panel, `--set name=value` on the
// command line, preset files and their validation, and the parameter-sweep tests.
//
// Values live where the solver reads them (the pointers given at registration), in the types imgui-go's widgets
// take: *float32, *int32, *bool, *[3]float32, and *int32 indices for choices.
package param

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Kind says which widget and value type a parameter has.
type Kind int

const (
	Float  Kind = iota // *float32
	Int                // *int32
	Bool               // *bool
	Choice             // *int32 index into Items
	Vec3               // *[3]float32, each component within [Min, Max]
)

func (k Kind) String() string {
	switch k {
	case Float:
		return "float"
	case Int:
		return "int"
	case Bool:
		return "bool"
	case Choice:
		return "choice"
	case Vec3:
		return "vec3"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Spec describes a parameter. Name is the full dotted name used on the command line and in presets
// ("pbf.iterations"); Group is a "|"-separated path of panel sections ("PBF|Solver").
type Spec struct {
	Name  string
	Label string
	Group string
	Unit  string
	Desc  string

	// Min and Max are the hard bounds: values outside them are rejected. SoftMin and SoftMax are the slider range
	// shown in the panel; when both are zero the hard bounds are used. Log asks for a logarithmic slider.
	Min, Max         float64
	SoftMin, SoftMax float64
	Log              bool

	// Items names the choices of a Choice parameter; the value is an index into it.
	Items []string

	// OnReset marks parameters that take effect only when the scene is reset (particle count, spacing).
	OnReset bool
}

// Param is one registered parameter.
type Param struct {
	Spec
	Kind Kind

	f *float32
	i *int32
	b *bool
	v *[3]float32

	def Value

	// OnChange, when set, is called after every successful change of the value (panel, --set, preset).
	OnChange func()
}

// Value is a parameter value independent of its kind: Float and Int (and Choice indices) use F, Bool uses B,
// Vec3 uses V.
type Value struct {
	F float64
	B bool
	V [3]float64
}

// Set is an ordered collection of parameters.
type Set struct {
	params []*Param
	byName map[string]*Param
	rules  []func() error
}

// Rule adds a check that involves several parameters (t_high above t_low), which no one parameter's bounds can
// say; Check runs them. Its error names the parameters as --set does.
func (s *Set) Rule(check func() error) { s.rules = append(s.rules, check) }

// Check runs the set's rules on the live values and returns the first error.
func (s *Set) Check() error {
	for _, r := range s.rules {
		if err := r(); err != nil {
			return err
		}
	}
	return nil
}

// NewSet returns an empty set.
func NewSet() *Set { return &Set{byName: map[string]*Param{}} }

func (s *Set) add(p *Param) *Param {
	if p.Name == "" {
		panic("param: parameter without a name")
	}
	if _, dup := s.byName[p.Name]; dup {
		panic("param: duplicate parameter " + p.Name)
	}
	if p.Label == "" {
		p.Label = p.Name
	}
	if p.Kind != Bool && p.Kind != Choice && !(p.Min < p.Max) {
		panic(fmt.Sprintf("param: %s: Min %g must be below Max %g", p.Name, p.Min, p.Max))
	}
	if p.SoftMin == 0 && p.SoftMax == 0 {
		p.SoftMin, p.SoftMax = p.Min, p.Max
	}
	p.def = p.Get()
	if err := p.check(p.def); err != nil {
		panic("param: default out of bounds: " + err.Error())
	}
	s.params = append(s.params, p)
	s.byName[p.Name] = p
	return p
}

// Float registers a float32 parameter whose current value is its default.
func (s *Set) Float(ptr *float32, spec Spec) *Param {
	return s.add(&Param{Spec: spec, Kind: Float, f: ptr})
}

// Int registers an int32 parameter.
func (s *Set) Int(ptr *int32, spec Spec) *Param {
	return s.add(&Param{Spec: spec, Kind: Int, i: ptr})
}

// Bool registers a boolean parameter.
func (s *Set) Bool(ptr *bool, spec Spec) *Param {
	return s.add(&Param{Spec: spec, Kind: Bool, b: ptr})
}

// Choice registers a choice among spec.Items; *ptr is the index of the current item.
func (s *Set) Choice(ptr *int32, spec Spec) *Param {
	if len(spec.Items) == 0 {
		panic("param: choice " + spec.Name + " without items")
	}
	return s.add(&Param{Spec: spec, Kind: Choice, i: ptr})
}

// Vec3 registers a 3-vector whose components each lie within [Min, Max].
func (s *Set) Vec3(ptr *[3]float32, spec Spec) *Param {
	return s.add(&Param{Spec: spec, Kind: Vec3, v: ptr})
}

// All returns the parameters in registration order.
func (s *Set) All() []*Param { return s.params }

// Lookup finds a parameter by full name.
func (s *Set) Lookup(name string) (*Param, bool) {
	p, ok := s.byName[name]
	return p, ok
}

// Groups returns the distinct groups in order of first registration.
func (s *Set) Groups() []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range s.params {
		if !seen[p.Group] {
			seen[p.Group] = true
			out = append(out, p.Group)
		}
	}
	return out
}

// Names returns all parameter names, sorted.
func (s *Set) Names() []string {
	out := make([]string, 0, len(s.params))
	for _, p := range s.params {
		out = append(out, p.Name)
	}
	sort.Strings(out)
	return out
}

// Get returns the live value.
func (p *Param) Get() Value {
	switch p.Kind {
	case Float:
		return Value{F: float64(*p.f)}
	case Int, Choice:
		return Value{F: float64(*p.i)}
	case Bool:
		return Value{B: *p.b}
	case Vec3:
		return Value{V: [3]float64{float64(p.v[0]), float64(p.v[1]), float64(p.v[2])}}
	}
	return Value{}
}

// Default returns the value the parameter had when it was registered.
func (p *Param) Default() Value { return p.def }

// Float32 returns a pointer to the live value of a Float parameter, for widgets; nil for other kinds.
func (p *Param) Float32() *float32 { return p.f }

// Int32 returns a pointer to the live value of an Int or Choice parameter, for widgets; nil for other kinds.
func (p *Param) Int32() *int32 { return p.i }

// BoolPtr returns a pointer to the live value of a Bool parameter, for widgets; nil for other kinds.
func (p *Param) BoolPtr() *bool { return p.b }

// Vec3Ptr returns a pointer to the live value of a Vec3 parameter, for widgets; nil for other kinds.
func (p *Param) Vec3Ptr() *[3]float32 { return p.v }

func (p *Param) check(v Value) error {
	inRange := func(x float64) bool { return !math.IsNaN(x) && x >= p.Min && x <= p.Max }
	switch p.Kind {
	case Float:
		if !inRange(v.F) {
			return fmt.Errorf("%s=%s: out of range [%s, %s]", p.Name, fmtNum(v.F), fmtNum(p.Min), fmtNum(p.Max))
		}
	case Int:
		if v.F != math.Trunc(v.F) {
			return fmt.Errorf("%s=%s: must be a whole number", p.Name, fmtNum(v.F))
		}
		if !inRange(v.F) {
			return fmt.Errorf("%s=%s: out of range [%s, %s]", p.Name, fmtNum(v.F), fmtNum(p.Min), fmtNum(p.Max))
		}
	case Choice:
		if v.F != math.Trunc(v.F) || v.F < 0 || int(v.F) >= len(p.Items) {
			return fmt.Errorf("%s: no choice %s; choose one of %s", p.Name, fmtNum(v.F), strings.Join(p.Items, ", "))
		}
	case Vec3:
		for c, x := range v.V {
			if !inRange(x) {
				return fmt.Errorf("%s[%d]=%s: out of range [%s, %s]", p.Name, c, fmtNum(x), fmtNum(p.Min), fmtNum(p.Max))
			}
		}
	}
	return nil
}

// Set validates v against the hard bounds and stores it; OnChange runs when the value changed.
func (p *Param) Set(v Value) error {
	if err := p.check(v); err != nil {
		return err
	}
	old := p.Get()
	switch p.Kind {
	case Float:
		*p.f = float32(v.F)
	case Int, Choice:
		*p.i = int32(v.F)
	case Bool:
		*p.b = v.B
	case Vec3:
		*p.v = [3]float32{float32(v.V[0]), float32(v.V[1]), float32(v.V[2])}
	}
	if p.OnChange != nil && old != p.Get() {
		p.OnChange()
	}
	return nil
}

// Parse reads a value written as on the command line: a number, true/false, a choice name or index, or three
// comma-separated numbers for a vector ("0,-9.81,0").
func (p *Param) Parse(text string) (Value, error) {
	text = strings.TrimSpace(text)
	switch p.Kind {
	case Float, Int:
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return Value{}, fmt.Errorf("%s=%q: not a number", p.Name, text)
		}
		return Value{F: f}, nil
	case Bool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return Value{}, fmt.Errorf("%s=%q: want true or false", p.Name, text)
		}
		return Value{B: b}, nil
	case Choice:
		for i, it := range p.Items {
			if strings.EqualFold(it, text) {
				return Value{F: float64(i)}, nil
			}
		}
		if i, err := strconv.Atoi(text); err == nil {
			return Value{F: float64(i)}, nil
		}
		return Value{}, fmt.Errorf("%s=%q: choose one of %s", p.Name, text, strings.Join(p.Items, ", "))
	case Vec3:
		parts := strings.Split(strings.Trim(text, "[]() "), ",")
		if len(parts) != 3 {
			return Value{}, fmt.Errorf("%s=%q: want three comma-separated numbers, like 0,-9.81,0", p.Name, text)
		}
		var v Value
		for c, s := range parts {
			f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				return Value{}, fmt.Errorf("%s=%q: component %d is not a number", p.Name, text, c)
			}
			v.V[c] = f
		}
		return v, nil
	}
	return Value{}, fmt.Errorf("%s: unknown kind %v", p.Name, p.Kind)
}

// Format writes a value the way Parse reads it.
func (p *Param) Format(v Value) string {
	switch p.Kind {
	case Float:
		return fmtNum32(v.F)
	case Int:
		return fmtNum(v.F)
	case Bool:
		return strconv.FormatBool(v.B)
	case Choice:
		if i := int(v.F); i >= 0 && i < len(p.Items) {
			return p.Items[i]
		}
		return fmtNum(v.F)
	case Vec3:
		return fmtNum32(v.V[0]) + "," + fmtNum32(v.V[1]) + "," + fmtNum32(v.V[2])
	}
	return "?"
}

// String is the current value as Format writes it.
func (p *Param) String() string { return p.Format(p.Get()) }

// fmtNum writes whole numbers in full (16777216, not 1.6777216e+07) and others with the fewest digits.
func fmtNum(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// fmtNum32 writes a value that lives in a float32 with the fewest digits that read back to the same float32:
// 0.05, not 0.05000000074505806.
func fmtNum32(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e7 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 32)
}

// FormatBound writes a bound (or any number) of the parameter the way Format writes its values.
func (p *Param) FormatBound(x float64) string {
	if p.Kind == Float || p.Kind == Vec3 {
		return fmtNum32(x)
	}
	return fmtNum(x)
}

// SetString parses and assigns "value" to the named parameter.
func (s *Set) SetString(name, value string) error {
	p, ok := s.byName[name]
	if !ok {
		return fmt.Errorf("unknown parameter %q%s", name, s.suggest(name))
	}
	v, err := p.Parse(value)
	if err != nil {
		return err
	}
	return p.Set(v)
}

// Assign applies one "name=value" assignment, as given to --set.
func (s *Set) Assign(assignment string) error {
	name, value, ok := strings.Cut(assignment, "=")
	if !ok {
		return fmt.Errorf("--set %q: want name=value", assignment)
	}
	return s.SetString(strings.TrimSpace(name), value)
}

func (s *Set) suggest(name string) string {
	var close []string
	for _, p := range s.params {
		if strings.Contains(p.Name, name) || strings.Contains(name, lastPart(p.Name)) || editDistance(name, p.Name) <= 2 {
			close = append(close, p.Name)
		}
	}
	if len(close) == 0 {
		return "; `slosh params` lists them"
	}
	if len(close) > 4 {
		close = close[:4]
	}
	return "; did you mean " + strings.Join(close, " or ") + "?"
}

func lastPart(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// Snapshot is a copy of every value of a set, by name.
type Snapshot map[string]Value

// Snapshot copies the live values.
func (s *Set) Snapshot() Snapshot {
	out := make(Snapshot, len(s.params))
	for _, p := range s.params {
		out[p.Name] = p.Get()
	}
	return out
}

// Restore assigns every value in snap that names a parameter of s. It validates all values first and changes
// nothing when any is invalid.
func (s *Set) Restore(snap Snapshot) error {
	for name, v := range snap {
		if p, ok := s.byName[name]; ok {
			if err := p.check(v); err != nil {
				return err
			}
		}
	}
	for _, p := range s.params {
		if v, ok := snap[p.Name]; ok {
			if err := p.Set(v); err != nil {
				return err
			}
		}
	}
	return nil
}

// ResetDefaults puts every parameter back to its registered default.
func (s *Set) ResetDefaults() {
	for _, p := range s.params {
		_ = p.Set(p.def) // defaults were validated at registration
	}
}

// Changed lists the parameters whose values differ between two snapshots, in registration order.
func (s *Set) Changed(a, b Snapshot) []*Param {
	var out []*Param
	for _, p := range s.params {
		if a[p.Name] != b[p.Name] {
			out = append(out, p)
		}
	}
	return out
}
