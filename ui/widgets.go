package ui

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/inkyblackness/imgui-go/v4"

	"github.com/slosh/slosh/sim/param"
)

// Parameter widgets: one small function per param.Kind. Each shows a value and returns the edited value and
// whether the user changed it; nothing writes through the parameter's pointer. Panels.commit applies the result
// with param.Param.Set.

var (
	colorError   = imgui.Vec4{X: 1, Y: 0.38, Z: 0.33, W: 1}
	colorWarning = imgui.Vec4{X: 1, Y: 0.72, Z: 0.25, W: 1}
)

// editWidget draws the widget for prm's kind showing cur.
func editWidget(prm *param.Param, label string, cur param.Value) (param.Value, bool) {
	switch prm.Kind {
	case param.Float:
		return floatWidget(prm, label, cur)
	case param.Int:
		return intWidget(prm, label, cur)
	case param.Bool:
		return boolWidget(label, cur)
	case param.Choice:
		return choiceWidget(prm, label, cur)
	case param.Vec3:
		return vec3Widget(prm, label, cur)
	}
	imgui.Text(fmt.Sprintf("%s: no widget for %v", prm.Label, prm.Kind))
	return cur, false
}

// sliderFlags: the slider spans the soft range; Ctrl+click types any value (clamped to the hard bounds later).
func sliderFlags(prm *param.Param) imgui.SliderFlags {
	flags := imgui.SliderFlagsNoRoundToFormat
	if prm.Log {
		flags |= imgui.SliderFlagsLogarithmic
	}
	return flags
}

// numberFormat is the slider's printf format with the unit as a suffix ("%.4g m/s").
func numberFormat(verb string, prm *param.Param) string {
	if prm.Unit == "" {
		return verb
	}
	return verb + " " + strings.ReplaceAll(prm.Unit, "%", "%%")
}

func floatWidget(prm *param.Param, label string, cur param.Value) (param.Value, bool) {
	f := float32(cur.F)
	changed := imgui.SliderFloatV(label, &f, float32(prm.SoftMin), float32(prm.SoftMax), numberFormat("%.4g", prm), sliderFlags(prm))
	return param.Value{F: float64(f)}, changed
}

func intWidget(prm *param.Param, label string, cur param.Value) (param.Value, bool) {
	i := int32(cur.F)
	lo, hi := int32(math.Ceil(prm.SoftMin)), int32(math.Floor(prm.SoftMax))
	flags := imgui.SliderFlagsNone
	if prm.Log {
		flags |= imgui.SliderFlagsLogarithmic
	}
	changed := imgui.SliderIntV(label, &i, lo, hi, numberFormat("%d", prm), flags)
	return param.Value{F: float64(i)}, changed
}

func boolWidget(label string, cur param.Value) (param.Value, bool) {
	b := cur.B
	changed := imgui.Checkbox(label, &b)
	return param.Value{B: b}, changed
}

func choiceWidget(prm *param.Param, label string, cur param.Value) (param.Value, bool) {
	i := int(cur.F)
	changed := combo(label, &i, prm.Items)
	return param.Value{F: float64(i)}, changed
}

func vec3Widget(prm *param.Param, label string, cur param.Value) (param.Value, bool) {
	v := [3]float32{float32(cur.V[0]), float32(cur.V[1]), float32(cur.V[2])}
	// Three narrow fields leave no room for the unit; the tooltip names it.
	changed := imgui.SliderFloat3V(label, &v, float32(prm.SoftMin), float32(prm.SoftMax), "%.3g", sliderFlags(prm))
	return param.Value{V: [3]float64{float64(v[0]), float64(v[1]), float64(v[2])}}, changed
}

// combo is a drop-down over items; *sel is the selected index. (imgui-go's Combo leaks two C strings per call, so
// it is built from BeginCombo and Selectable.)
func combo(label string, sel *int, items []string) bool {
	preview := ""
	if *sel >= 0 && *sel < len(items) {
		preview = items[*sel]
	}
	if !imgui.BeginComboV(label, preview, 0) {
		return false
	}
	changed := false
	for i, it := range items {
		selected := i == *sel
		if imgui.SelectableV(it+"##"+strconv.Itoa(i), selected, 0, imgui.Vec2{}) && !selected {
			*sel = i
			changed = true
		}
		if selected {
			imgui.SetItemDefaultFocus()
		}
	}
	imgui.EndCombo()
	return changed
}

// sceneCombo is the scene picker: each scene with its mode, and its description as the tooltip of its line.
func sceneCombo(m *Model, sel *int) {
	label := func(i int) string {
		if i < 0 || i >= len(m.Scenes) {
			return ""
		}
		if i < len(m.SceneInfo) && m.SceneInfo[i].Mode != "" {
			return m.Scenes[i] + "  (" + m.SceneInfo[i].Mode + ")"
		}
		return m.Scenes[i]
	}
	if !imgui.BeginComboV("##scene", label(*sel), imgui.ComboFlagsHeightLarge) {
		if imgui.IsItemHovered() && *sel >= 0 && *sel < len(m.SceneInfo) {
			sceneTooltip(m.SceneInfo[*sel].Desc)
		}
		return
	}
	for i := range m.Scenes {
		selected := i == *sel
		if imgui.SelectableV(label(i)+"##"+strconv.Itoa(i), selected, 0, imgui.Vec2{}) && !selected {
			*sel = i
		}
		if imgui.IsItemHovered() && i < len(m.SceneInfo) {
			sceneTooltip(m.SceneInfo[i].Desc)
		}
		if selected {
			imgui.SetItemDefaultFocus()
		}
	}
	imgui.EndCombo()
}

// sceneTooltip shows a scene's description, wrapped.
func sceneTooltip(desc string) {
	if desc == "" {
		return
	}
	imgui.BeginTooltip()
	imgui.PushTextWrapPosV(imgui.FontSize() * 28)
	imgui.Text(desc)
	imgui.PopTextWrapPos()
	imgui.EndTooltip()
}

// clampToHard brings a typed value inside prm's hard bounds: whole numbers for Int, a valid index for Choice,
// each component for Vec3. NaN cannot be clamped and is an error.
func clampToHard(prm *param.Param, v param.Value) (param.Value, error) {
	clamp := func(x, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, x)) }
	switch prm.Kind {
	case param.Float:
		if math.IsNaN(v.F) {
			return v, fmt.Errorf("%s: not a number", prm.Name)
		}
		v.F = clamp(v.F, prm.Min, prm.Max)
	case param.Int:
		if math.IsNaN(v.F) {
			return v, fmt.Errorf("%s: not a number", prm.Name)
		}
		v.F = clamp(math.Round(v.F), math.Ceil(prm.Min), math.Floor(prm.Max))
	case param.Choice:
		if math.IsNaN(v.F) {
			return v, fmt.Errorf("%s: not a choice", prm.Name)
		}
		v.F = clamp(math.Round(v.F), 0, float64(len(prm.Items)-1))
	case param.Vec3:
		for c, x := range v.V {
			if math.IsNaN(x) {
				return v, fmt.Errorf("%s[%d]: not a number", prm.Name, c)
			}
			v.V[c] = clamp(x, prm.Min, prm.Max)
		}
	}
	return v, nil
}

// paramTooltip explains the last item when it is hovered: description, name, unit, hard range, default, and
// whether it waits for a reset.
func paramTooltip(prm *param.Param) {
	if !imgui.IsItemHovered() {
		return
	}
	imgui.BeginTooltip()
	imgui.PushTextWrapPosV(imgui.FontSize() * 28)
	if prm.Desc != "" {
		imgui.Text(prm.Desc)
	}
	textDisabled(prm.Name)
	if prm.Unit != "" {
		imgui.Text("unit: " + prm.Unit)
	}
	switch prm.Kind {
	case param.Float, param.Int, param.Vec3:
		imgui.Text(fmt.Sprintf("range: %s to %s", fmtNum(prm.Min), fmtNum(prm.Max)))
		if prm.SoftMin != prm.Min || prm.SoftMax != prm.Max {
			textDisabled(fmt.Sprintf("slider %s to %s; Ctrl+click to type a value outside it",
				fmtNum(prm.SoftMin), fmtNum(prm.SoftMax)))
		} else {
			textDisabled("Ctrl+click to type a value")
		}
	case param.Choice:
		imgui.Text("one of: " + strings.Join(prm.Items, ", "))
	}
	imgui.Text("default: " + prm.Format(prm.Default()))
	if prm.OnReset {
		textColored(colorWarning, "restarts the scene: after an edit the panel offers \"Restart with …\" and waits")
	}
	imgui.PopTextWrapPos()
	imgui.EndTooltip()
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', 6, 64) }

func textColored(c imgui.Vec4, text string) {
	imgui.PushStyleColor(imgui.StyleColorText, c)
	imgui.Text(text)
	imgui.PopStyleColor()
}

func textDisabled(text string) {
	textColored(imgui.CurrentStyle().Color(imgui.StyleColorTextDisabled), text)
}

// textDisabledWrapped writes text in the disabled colour, wrapped at the window's right edge.
func textDisabledWrapped(text string) {
	imgui.PushStyleColor(imgui.StyleColorText, imgui.CurrentStyle().Color(imgui.StyleColorTextDisabled))
	textWrapped(text)
	imgui.PopStyleColor()
}

// textWrapped writes text wrapped at the window's right edge.
func textWrapped(text string) {
	imgui.PushTextWrapPosV(0)
	imgui.Text(text)
	imgui.PopTextWrapPos()
}

// groupNode is one section of the parameter panel: the parameters whose Group path ends here, and sub-sections
// in order of first registration.
type groupNode struct {
	name   string
	params []*param.Param
	kids   []*groupNode
}

func (g *groupNode) child(name string) *groupNode {
	for _, k := range g.kids {
		if k.name == name {
			return k
		}
	}
	k := &groupNode{name: name}
	g.kids = append(g.kids, k)
	return k
}

// buildGroups arranges a set's parameters by their "A|B|C" group paths.
func buildGroups(set *param.Set) *groupNode {
	root := &groupNode{}
	for _, prm := range set.All() {
		n := root
		if prm.Group != "" {
			for _, seg := range strings.Split(prm.Group, "|") {
				n = n.child(strings.TrimSpace(seg))
			}
		}
		n.params = append(n.params, prm)
	}
	return root
}
