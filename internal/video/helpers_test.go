package video

import (
	"image"
	"math"
)

// pattern is a smooth test frame that drifts with f: three sines, one per channel, opaque.
func pattern(w, h, f int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	t := float64(f) / 30
	for y := range h {
		for x := range w {
			u, v := float64(x)/float64(w), float64(y)/float64(h)
			o := img.PixOffset(x, y)
			img.Pix[o+0] = unit8(0.5 + 0.4*math.Sin(2*math.Pi*(u+0.5*t)))
			img.Pix[o+1] = unit8(0.5 + 0.4*math.Cos(2*math.Pi*(0.8*v-0.3*t)))
			img.Pix[o+2] = unit8(0.5 + 0.4*math.Sin(2*math.Pi*(u+v+0.2*t)))
			img.Pix[o+3] = 255
		}
	}
	return img
}

// photo is a harder frame: on the left a gradient through the hues, darker towards the bottom; on the right
// coloured value noise of several octaves, like foliage or water.
func photo(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			o := img.PixOffset(x, y)
			var c [3]float64
			if x < w/2 {
				hue := float64(x) / float64(w/2) * 6
				light := 1 - 0.8*float64(y)/float64(h)
				for k := range 3 {
					c[k] = light * (0.5 + 0.5*math.Cos((hue-2*float64(k))*math.Pi/3))
				}
			} else {
				n := fractal(float64(x)/16, float64(y)/16)
				m := fractal(float64(x)/9+7.3, float64(y)/9+1.1)
				c = [3]float64{0.2 + 0.5*n, 0.3 + 0.6*n*m, 0.15 + 0.4*m}
			}
			for k := range 3 {
				img.Pix[o+k] = unit8(c[k])
			}
			img.Pix[o+3] = 255
		}
	}
	return img
}

// scene is like a frame of the sandbox: a still background (photo) and, over its lower part, water whose waving
// surface and shading move with f.
func scene(w, h, f int, bg *image.RGBA) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	copy(img.Pix, bg.Pix)
	t := float64(f) / 30
	for x := range w {
		u := float64(x) / float64(w)
		surface := int(float64(h) * (0.6 + 0.08*math.Sin(2*math.Pi*(1.5*u+0.7*t))))
		for y := max(0, surface); y < h; y++ {
			depth := float64(y-surface) / float64(h)
			shade := 0.1 * math.Sin(2*math.Pi*(4*u+3*depth-t))
			o := img.PixOffset(x, y)
			img.Pix[o+0] = unit8(0.1 + shade)
			img.Pix[o+1] = unit8(0.45 - depth + shade)
			img.Pix[o+2] = unit8(0.85 - 0.8*depth + shade)
		}
	}
	return img
}

// fractal is value noise summed over four octaves, in [0, 1).
func fractal(x, y float64) float64 {
	sum, amp, total := 0.0, 0.5, 0.0
	for range 4 {
		sum += amp * valueNoise(x, y)
		total += amp
		x, y, amp = 2*x, 2*y, amp/2
	}
	return sum / total
}

func valueNoise(x, y float64) float64 {
	x0, y0 := math.Floor(x), math.Floor(y)
	fx, fy := x-x0, y-y0
	fx, fy = fx*fx*(3-2*fx), fy*fy*(3-2*fy)
	at := func(i, j float64) float64 {
		h := uint32(int32(i))*374761393 + uint32(int32(j))*668265263
		h = (h ^ h>>13) * 1274126177
		return float64(h^h>>16) / (1 << 32)
	}
	a := at(x0, y0) + fx*(at(x0+1, y0)-at(x0, y0))
	b := at(x0, y0+1) + fx*(at(x0+1, y0+1)-at(x0, y0+1))
	return a + fy*(b-a)
}

func unit8(v float64) uint8 { return uint8(math.Round(255 * math.Min(1, math.Max(0, v)))) }

// meanAbsRGB is the mean absolute difference of the red, green and blue of two images over a's bounds.
func meanAbsRGB(a, b image.Image) float64 {
	r := a.Bounds()
	sum := 0.0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			sum += math.Abs(float64(r1>>8)-float64(r2>>8)) + math.Abs(float64(g1>>8)-float64(g2>>8)) +
				math.Abs(float64(b1>>8)-float64(b2>>8))
		}
	}
	return sum / float64(3*r.Dx()*r.Dy())
}
