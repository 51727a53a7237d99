package video

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/slosh/slosh/internal/atomicfile"
)

// ErrNoFFmpeg is wrapped by Create's error for an MP4 when there is no usable ffmpeg: none in PATH, the program
// Options.FFmpeg names does not run, or it has no libx264 encoder. Record a PNG sequence instead and show
// FallbackHint, or record a GIF.
var ErrNoFFmpeg = errors.New("no usable ffmpeg")

// ErrNoFrames is wrapped by Close's error when the recording got no frames; no file was written.
var ErrNoFrames = errors.New("no frames were recorded")

const (
	// finishTimeout bounds how long Close waits for ffmpeg to encode the frames it holds and end the file.
	finishTimeout = 30 * time.Second
	// exitTimeout bounds how long a writer waits for an ffmpeg that stopped reading its frames to exit.
	exitTimeout = 5 * time.Second
	// mp4Depth is how many frames may wait for ffmpeg before WriteFrame waits.
	mp4Depth = 3
)

// mp4Writer pipes raw frames into an ffmpeg process that encodes them with libx264 into a fragmented MP4.
//
// ffmpeg never opens a path: it writes the MP4 to its standard output, which is a file this writer opened
// itself (see openOutput), so that a symbolic link, a pipe or a device put at the path cannot make it write
// anywhere else.
type mp4Writer struct {
	path    string
	out     *os.File    // the file ffmpeg writes: path itself, made by this recording, or a temporary file beside it
	replace fs.FileInfo // when out is a temporary file: the file at path that it replaces once it holds a frame
	cmd     *exec.Cmd
	stdin   *os.File    // the frames go here
	stderr  *tailBuffer // ffmpeg's messages, the last few KB
	exited  chan struct{}
	exitErr error // cmd.Wait's result, set before exited is closed
	pipe    *pipeline
	fps     float64

	// how long to wait for ffmpeg: finishTimeout and exitTimeout, fields so that a test can make them long enough
	// to show that a dead ffmpeg is noticed by its exit, not by a timer
	finishWait, exitWait time.Duration

	stopErr error // stopped's error, set on the pipeline's goroutine

	closed   bool
	closeErr error

	// settle's result: once ffmpeg has exited, the frames in the output's complete fragments, where the output
	// went, and why it went nowhere
	settled              bool
	saved                int
	settleErr, commitErr error
}

// createMP4 starts ffmpeg, writing into a file of our own (openOutput): a recording cut short by a crash or a full
// disk keeps every complete fragment (one per keyframe, at least one a second) and plays up to there.
func createMP4(path string, o Options) (*mp4Writer, error) {
	there, err := checkTarget(path)
	if err != nil {
		return nil, err
	}
	prog, err := findFFmpeg(o.FFmpeg)
	if err != nil {
		return nil, fmt.Errorf("recording %s: %w", path, err)
	}
	m := &mp4Writer{path: path, stderr: newTailBuffer(4096), exited: make(chan struct{}),
		fps: o.FPS, finishWait: finishTimeout, exitWait: exitTimeout}
	if m.out, m.replace, err = openOutput(path, there); err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		m.discard()
		return nil, fmt.Errorf("recording %s: a pipe to ffmpeg: %w", path, err)
	}
	m.stdin = w
	m.cmd = exec.Command(prog, ffmpegArgs(o)...)
	m.cmd.Stdin = r
	m.cmd.Stdout = m.out // ffmpeg's output is the file we opened, and nothing else
	m.cmd.Stderr = m.stderr
	m.cmd.WaitDelay = exitTimeout // a child of ffmpeg holding its stderr open must not hang Wait
	err = m.cmd.Start()
	r.Close() // ffmpeg has its own copy; ours would keep the pipe open after ffmpeg dies
	if err != nil {
		w.Close()
		m.discard()
		return nil, fmt.Errorf("recording %s: starting %s: %w (%w)", path, prog, ErrNoFFmpeg, err)
	}
	go func() {
		m.exitErr = m.cmd.Wait()
		close(m.exited)
	}()
	m.pipe = newPipeline(o.Width, o.Height, mp4Depth, m.send)
	return m, nil
}

// openOutput opens the file ffmpeg is to write for a recording at path, where checkTarget found there (nil:
// nothing). Only files made here are opened, so nothing at the path is ever written through:
//
//   - with nothing at path, path itself, made with O_CREATE|O_EXCL, which fails on anything that is there by
//     then, a symbolic link (even a dangling one), a pipe or a device included, and opens nothing of it;
//   - with a regular file at path, a new temporary file beside it (atomicfile.CreateTemp), which takes its place
//     once it holds a frame (settle): a recording that gets no frame, or whose ffmpeg dies before writing one,
//     leaves the file that was there as it was.
//
// Anything else at path, or put there since checkTarget looked, is refused with atomicfile.Check's message.
func openOutput(path string, there fs.FileInfo) (out *os.File, replace fs.FileInfo, err error) {
	if there == nil {
		out, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			return out, nil, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, nil, atomicfile.Explain(path, err)
		}
		// something was put at path since checkTarget looked: a link or a pipe is refused, a file replaced
		if there, err = atomicfile.Check(path); err != nil {
			return nil, nil, err
		}
		if there == nil {
			return nil, nil, fmt.Errorf("recording %s: a file appeared and went at that name while the recording started: try again", path)
		}
	}
	if out, err = atomicfile.CreateTemp(path); err != nil {
		return nil, nil, err
	}
	return out, there, nil
}

// ffmpegArgs is ffmpeg's command line for a recording: raw RGBA frames on stdin, a fragmented H.264 MP4 on
// stdout. No path is named: ffmpeg writes only the file its stdout is (openOutput).
func ffmpegArgs(o Options) []string {
	crf := [...]string{High: "18", Medium: "23", Low: "28"}[o.Quality]
	// yuv420p halves the chroma resolution, so both sides must be even: crop the last column or row. Convert
	// with the BT.709 matrix and tag the stream BT.709, so that players convert back with the same matrix.
	vf := "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p"
	if w, h := o.Width&^1, o.Height&^1; w != o.Width || h != o.Height {
		vf = fmt.Sprintf("crop=%d:%d:0:0,%s", w, h, vf)
	}
	return []string{
		"-hide_banner", "-loglevel", "error", "-nostats", // only errors on stderr, so its tail explains a failure
		"-f", "rawvideo", "-pix_fmt", "rgba", "-s", fmt.Sprintf("%dx%d", o.Width, o.Height),
		"-framerate", formatRate(o.FPS), "-i", "pipe:0",
		"-an", "-vf", vf,
		"-c:v", "libx264", "-preset", "veryfast", "-crf", crf, "-pix_fmt", "yuv420p",
		"-g", strconv.Itoa(int(math.Ceil(o.FPS))), // a keyframe, so a fragment, at least every second
		"-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv",
		// a fragment per keyframe, written out as soon as it is complete: the file plays up to its last
		// fragment if ffmpeg is killed or the disk fills; a fragmented MP4 needs no seeking back, so the
		// output may be a pipe (ffmpeg treats pipe:1 as one, whatever the file behind it)
		"-movflags", "+frag_keyframe+empty_moov+default_base_moof", "-flush_packets", "1",
		"-f", "mp4", "pipe:1",
	}
}

// formatRate writes a frame rate the way ffmpeg reads it: 30, 29.97, 59.94.
func formatRate(fps float64) string { return strconv.FormatFloat(fps, 'f', -1, 64) }

// findFFmpeg finds the ffmpeg program (prog, or "ffmpeg" in PATH when prog is "") and checks that it runs and
// has libx264.
func findFFmpeg(prog string) (string, error) {
	name := prog
	if name == "" {
		name = "ffmpeg"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%w: %s not found (install ffmpeg, or record a GIF or PNG frames): %v", ErrNoFFmpeg, name, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoFFmpeg, err)
	}
	key := fmt.Sprintf("%s %d %d", path, fi.Size(), fi.ModTime().UnixNano())
	if _, ok := goodFFmpeg.Load(key); ok {
		return path, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "-hide_banner", "-loglevel", "error", "-encoders").Output()
	if err != nil {
		return "", fmt.Errorf("%w: %s does not run as ffmpeg (%s -encoders: %v)", ErrNoFFmpeg, path, path, err)
	}
	if !bytes.Contains(out, []byte(" libx264 ")) {
		return "", fmt.Errorf("%w: %s has no libx264 (H.264) encoder: install an ffmpeg built with it", ErrNoFFmpeg, path)
	}
	goodFFmpeg.Store(key, true)
	return path, nil
}

// goodFFmpeg remembers the ffmpeg programs findFFmpeg checked, by path, size and time of change, so that only the
// first recording pays for running `ffmpeg -encoders`.
var goodFFmpeg sync.Map

func (m *mp4Writer) WriteFrame(img *image.RGBA) error {
	if m.closed {
		return fmt.Errorf("recording %s: WriteFrame after Close", m.path)
	}
	if err := checkFrame(img, m.pipe.w, m.pipe.h); err != nil {
		return fmt.Errorf("recording %s: %w", m.path, err)
	}
	return m.pipe.put(img)
}

// send is the pipeline's encoder: it writes frame i to ffmpeg.
func (m *mp4Writer) send(i int, pix []byte) error {
	if _, err := m.stdin.Write(pix); err != nil {
		return m.stopped(i, err)
	}
	return nil
}

// stopped explains why ffmpeg did not take frame i: it waits a little for the process to exit, so that the exit
// status and ffmpeg's last messages go into the error, and then says what the file it left holds.
func (m *mp4Writer) stopped(i int, err error) error {
	if !m.waitExit(m.exitWait) {
		m.cmd.Process.Kill() // it closed its input but goes on: stop it, the file keeps what it has
		<-m.exited
	}
	if m.exitErr != nil {
		err = m.exitErr
	}
	m.stopErr = m.cut(fmt.Sprintf("ffmpeg stopped at frame %d (%v)%s", i+1, err, m.stderr.said()))
	return m.stopErr
}

// cut is the error of a recording that ended early because of what: it settles the file ffmpeg left (ffmpeg has
// exited) and says how many frames it keeps, or that nothing was saved, and then the error names no file.
func (m *mp4Writer) cut(what string) error {
	n, err := m.settle()
	switch {
	case n > 0 && m.commitErr != nil:
		return fmt.Errorf("recording %s: %s; %v", m.path, what, m.commitErr)
	case n > 0 && err != nil:
		return fmt.Errorf("recording %s: %s; the file keeps its first %d frames (%.1f s), and after them it is damaged (%v)",
			m.path, what, n, float64(n)/m.fps, err)
	case n > 0:
		return fmt.Errorf("recording %s: %s; the file keeps its first %d frames (%.1f s), those of its complete fragments",
			m.path, what, n, float64(n)/m.fps)
	}
	return fmt.Errorf("recording the MP4: %s; nothing was saved (ffmpeg had written no complete fragment)", what)
}

// settle decides, once, where the output goes, after ffmpeg has exited: it counts the frames of the output's
// complete fragments (Saved) and returns them with the error of reading it back. An output that holds a frame
// stays, a temporary one taking the place of the file it replaces; one that holds none is removed, so that a
// file that was at the path stays as it was and a new one does not stay empty.
func (m *mp4Writer) settle() (int, error) {
	if m.settled {
		return m.saved, m.settleErr
	}
	m.settled = true
	m.saved, m.settleErr = m.readBack()
	if m.saved == 0 {
		m.discard()
		return 0, m.settleErr
	}
	if m.replace == nil {
		m.out.Close()
		return m.saved, m.settleErr
	}
	if err := atomicfile.Commit(m.out, m.path, m.replace.Mode().Perm()); err != nil {
		m.commitErr = fmt.Errorf("the recording's %d frames are in %s: putting it in place of the file there failed (%v)",
			m.saved, m.out.Name(), atomicfile.Explain(m.path, err))
	}
	return m.saved, m.settleErr
}

// discard closes and removes the output, which holds nothing of use: the temporary file, or the file this
// recording made at the path if the path still names it.
func (m *mp4Writer) discard() {
	name := m.out.Name()
	ours, err := m.out.Stat()
	m.out.Close()
	if m.replace == nil {
		if now, lerr := os.Lstat(name); err != nil || lerr != nil || !os.SameFile(ours, now) {
			return // not ours any more: leave it
		}
	}
	os.Remove(name)
}

// readBack is the number of frames in the complete fragments of the output, which ffmpeg has finished with; it
// reads the file through our own descriptor, whatever is at the path now.
func (m *mp4Writer) readBack() (int, error) {
	fi, err := m.out.Stat()
	if err != nil {
		return 0, fmt.Errorf("reading %s back: %w", m.path, err)
	}
	return playableIn(m.out, fi.Size(), m.path)
}

// waitExit waits at most d for ffmpeg to exit and says whether it did.
func (m *mp4Writer) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-m.exited:
		return true
	case <-t.C:
		return false
	}
}

// Close sends ffmpeg the end of the frames and waits for it to finish the file; ffmpeg is killed if it does not
// within finishTimeout, and then the file keeps its complete fragments. Then it reads the file back: an error
// says how many frames it keeps, or that nothing was saved, and Saved is that count.
func (m *mp4Writer) Close() error {
	if m.closed {
		return m.closeErr
	}
	m.closed = true
	m.closeErr = m.finish()
	m.settle() // after a recording of no frames: removes the file made for it
	return m.closeErr
}

// finish is Close's work but settling the output where ffmpeg got no frame.
func (m *mp4Writer) finish() error {
	m.pipe.close()
	if m.pipe.n == 0 {
		// ffmpeg writes nothing before it has a frame: stop it, and Close's settle removes the empty output (a
		// file already at the path was never opened)
		m.cmd.Process.Kill()
		m.stdin.Close()
		<-m.exited
		m.pipe.wait(0)
		return fmt.Errorf("recording %s: %w; nothing was written", m.path, ErrNoFrames)
	}
	if !m.pipe.wait(m.finishWait) {
		m.cmd.Process.Kill() // a write blocked on a stuck ffmpeg fails once it is gone
		m.pipe.wait(0)
	}
	m.stdin.Close() // the end of the input: ffmpeg encodes what it holds and ends the file
	if !m.waitExit(m.finishWait) {
		m.cmd.Process.Kill()
		<-m.exited
		return m.cut(fmt.Sprintf("ffmpeg did not finish the file within %v and was stopped%s", m.finishWait, m.stderr.said()))
	}
	if err := m.pipe.failed(); err != nil {
		if err == m.stopErr {
			return err // it says what the file keeps
		}
		return m.cut(err.Error()) // the pipeline's own: it waited too long for ffmpeg to take a frame
	}
	if m.exitErr != nil {
		return m.cut(fmt.Sprintf("ffmpeg failed finishing the file (%v)%s", m.exitErr, m.stderr.said()))
	}
	// ffmpeg says it wrote every frame: check that the file holds them
	n, err := m.settle()
	if m.commitErr != nil {
		return fmt.Errorf("recording %s: %v", m.path, m.commitErr)
	}
	if err != nil {
		return m.cut(fmt.Sprintf("ffmpeg ended without an error, yet the file cannot be read back (%v)", err))
	}
	if n != m.pipe.n {
		return m.cut(fmt.Sprintf("ffmpeg ended without an error, yet the file holds %d of the %d frames", n, m.pipe.n))
	}
	return nil
}

func (m *mp4Writer) Frames() int  { return m.pipe.n }
func (m *mp4Writer) Saved() int   { return m.saved }
func (m *mp4Writer) Path() string { return m.path }

// FallbackHint is the command line that turns the PNG sequence pattern (as PNGSequence.Pattern gives it) into an
// H.264 MP4 at out, at fps frames per second, for the message shown when an MP4 was asked for and there was no
// ffmpeg to make it. Arguments are quoted for the system's shell.
func FallbackHint(pattern string, fps float64, out string) string {
	args := []string{"ffmpeg", "-framerate", formatRate(fps), "-start_number", "1", "-i", pattern,
		"-vf", "crop=trunc(iw/2)*2:trunc(ih/2)*2", "-c:v", "libx264", "-crf", "18", "-pix_fmt", "yuv420p", out}
	for i, a := range args {
		args[i] = shellQuote(a)
	}
	return strings.Join(args, " ")
}

// shellQuote quotes a for a POSIX shell (single quotes) or, on Windows, for cmd and PowerShell (double quotes),
// when it holds anything but letters, digits and -_./:=+,%.
func shellQuote(a string) string {
	plain := a != ""
	for _, c := range a {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./:=+,%", c)) {
			plain = false
			break
		}
	}
	switch {
	case plain:
		return a
	case runtime.GOOS == "windows":
		return `"` + strings.ReplaceAll(a, `"`, `""`) + `"`
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

// tailBuffer keeps the last max bytes written to it: ffmpeg's messages, for error reports. It is safe for the
// goroutine that copies ffmpeg's stderr and the one that reports an error at once.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
	cut bool // bytes were dropped from the front
}

// newTailBuffer keeps max bytes, and one more, which tells whether they start at the beginning of a line.
func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max + 1} }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) > t.max {
		p = p[len(p)-t.max:]
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	t.buf = append(t.buf, p...)
	if n > len(p) {
		t.cut = true
	}
	return n, nil
}

// said is what ffmpeg wrote, on one line after a colon, or "" when it wrote nothing.
func (t *tailBuffer) said() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(t.buf)
	if t.cut { // start at a whole line; the first byte is the one before the kept ones
		if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
			s = s[i+1:]
		} else {
			s = s[1:]
		}
		s = "… " + s
	}
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return "; ffmpeg said: " + strings.Join(lines, " / ")
}
