package judging

import (
	"github.com/verdict-oj/verdict/internal/protocol"
	"github.com/verdict-oj/verdict/webapp/internal/store"
)

// problemIO is the task's file I/O of a problem (nil: stdin and stdout).
// An output-only problem's tasks have none: there is no program.
func problemIO(p *store.Problem) *protocol.FileIO {
	if p.OutputOnly || (p.InputFile == "" && p.OutputFile == "") {
		return nil
	}
	return &protocol.FileIO{InputFile: p.InputFile, OutputFile: p.OutputFile}
}
