package txn

import (
	"testing"

	"github.com/vfsctl/vfsctl/internal/winetest"
)

// Recovery rolling forward a redo that makes again a folder a command left mode 0000
// made it 0755 (or kept the bits it found), taking the recorded 0 for bits not
// known, as in a folder call's pending record. A command's 0 is mode 0000: the redo
// is killed at each of its changes to the disk, with killEachStepOfUndo's oracle
// (the tree after a clean redo has made/ 0000), alone and with a file's change.
func TestKillAtEachStepOfARedoOfAFolderLeft0000(t *testing.T) {
	winetest.NeedPOSIXModes(t, "a folder's mode 0000")
	for _, script := range []string{"mkdir made && chmod 000 made", "mkdir made && chmod 000 made && echo A > a.txt"} {
		t.Run(script, func(t *testing.T) { killEachStepOfUndo(t, newEntriesRigFor(t, script, "redo")) })
	}
}
