package video

import (
	"fmt"
	"image"
	"sync"
	"time"
)

// stallTimeout is how long WriteFrame waits for the encoder to free a buffer before it gives up on the recording.
const stallTimeout = 30 * time.Second

// pipeline hands frames to a goroutine that encodes them. The caller's frame is copied into one of depth buffers,
// so a render loop pays one copy per frame and waits only when the encoder is depth frames behind. After the
// encoder's first error no more frames are encoded, and put and failed return that error.
type pipeline struct {
	w, h int
	free chan []byte // buffers the encoder is done with; nil ones are allocated on first use
	work chan job
	done chan struct{} // closed when the encoding goroutine has returned
	n    int           // frames queued

	mu     sync.Mutex
	err    error
	closed bool
}

// job is one frame for the encoder: its number, from 0, and its pixels, RGBA with stride 4w.
type job struct {
	i   int
	pix []byte
}

func newPipeline(w, h, depth int, encode func(i int, pix []byte) error) *pipeline {
	p := &pipeline{w: w, h: h, free: make(chan []byte, depth), work: make(chan job, depth), done: make(chan struct{})}
	for range depth {
		p.free <- nil
	}
	go p.run(encode)
	return p
}

func (p *pipeline) run(encode func(i int, pix []byte) error) {
	defer close(p.done)
	for j := range p.work {
		if p.failed() == nil {
			if err := encode(j.i, j.pix); err != nil {
				p.fail(err)
			}
		}
		p.free <- j.pix
	}
}

// put copies img, which checkFrame passed, and queues it for the encoder.
func (p *pipeline) put(img *image.RGBA) error {
	if err := p.failed(); err != nil {
		return err
	}
	var buf []byte
	select {
	case buf = <-p.free:
	default:
		t := time.NewTimer(stallTimeout)
		select {
		case buf = <-p.free:
			t.Stop()
		case <-t.C:
			err := fmt.Errorf("the encoder has taken no frame for %v", stallTimeout)
			p.fail(err)
			return err
		}
	}
	if err := p.failed(); err != nil { // the encoder failed while we waited
		p.free <- buf
		return err
	}
	if buf == nil {
		buf = make([]byte, 4*p.w*p.h)
	}
	copyFrame(buf, img, p.w, p.h)
	p.work <- job{p.n, buf}
	p.n++
	return nil
}

// close tells the encoder that no more frames come; it is safe to call twice.
func (p *pipeline) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.closed = true
		close(p.work)
	}
}

// wait waits for the encoder to finish the queued frames, for at most d (forever when d is 0), and says whether it did.
func (p *pipeline) wait(d time.Duration) bool {
	if d == 0 {
		<-p.done
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
		return false
	}
}

func (p *pipeline) fail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err == nil {
		p.err = err
	}
}

// failed is the encoder's first error, or nil.
func (p *pipeline) failed() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// copyFrame copies the w × h pixels of img into dst, packed (stride 4w).
func copyFrame(dst []byte, img *image.RGBA, w, h int) {
	row := 4 * w
	if img.Stride == row {
		copy(dst, img.Pix[:row*h])
		return
	}
	for y := range h {
		copy(dst[y*row:(y+1)*row], img.Pix[y*img.Stride:])
	}
}
