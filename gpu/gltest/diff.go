package gltest

import "image"

// PictureDiff compares two pictures of one size, as the tests that state how close two renderings are measure it:
// the mean absolute difference over the colour channels (0–255), and the fraction of pixels whose largest channel
// difference exceeds off.
func PictureDiff(a, b *image.RGBA, off int) (mad, fracOff float64) {
	var sum, n, over int
	for k := 0; k+3 < len(a.Pix) && k+3 < len(b.Pix); k += 4 {
		worst := 0
		for c := 0; c < 3; c++ {
			d := int(a.Pix[k+c]) - int(b.Pix[k+c])
			if d < 0 {
				d = -d
			}
			sum += d
			worst = max(worst, d)
		}
		n++
		if worst > off {
			over++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return float64(sum) / float64(3*n), float64(over) / float64(n)
}
