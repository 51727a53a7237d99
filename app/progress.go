package app

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// progress shows a long command's progress on stderr: on a terminal, one line redrawn in place ("\r"); elsewhere (a
// log file, a pipe, CI), a line for each tenth of the work and the last, so that a log holds a readable handful of
// lines instead of thousands of carriage returns.
type progress struct {
	w        io.Writer
	terminal bool
	shown    int  // the tenths written so far, off a terminal
	drew     bool // a line is on the terminal without its newline
}

func newProgress(w io.Writer) *progress {
	return &progress{w: w, terminal: isTerminal(w), shown: -1}
}

// isTerminal says whether w is a character device: a terminal, where "\r" redraws a line.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// show reports done of total with line (which ends in the work's own words, without a newline).
func (p *progress) show(done, total int, line string) {
	if p.terminal {
		fmt.Fprint(p.w, "\r"+line)
		p.drew = true
		return
	}
	tenth := 10 * done / max(total, 1)
	if tenth == p.shown && done != total {
		return
	}
	p.shown = tenth
	fmt.Fprintln(p.w, strings.TrimRight(line, " "))
}

// end finishes the progress: the terminal's line gets its newline.
func (p *progress) end() {
	if p.drew {
		fmt.Fprintln(p.w)
		p.drew = false
	}
}
