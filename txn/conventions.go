package txn

import (
	"bytes"
	"strings"
)

var bom = []byte("\xef\xbb\xbf")

// keepConventions gives content that replaces a file whole the file's CRLF line
// breaks where the content has no CR, and the file's byte order mark where the
// content (not empty) has none: models write LF and no BOM, and a Windows file
// rewritten so would show every line changed. A CR or a BOM the content has of its
// own is the model's choice, and a file of mixed line breaks has no convention to
// keep. It returns what to write, and a note for the reply when that is not what was
// sent.
func keepConventions(old, content []byte) ([]byte, string) {
	var kept []string
	if crlf := bytes.Count(old, []byte("\r\n")); crlf > 0 && crlf == bytes.Count(old, []byte("\n")) &&
		bytes.IndexByte(content, '\r') < 0 && bytes.IndexByte(content, '\n') >= 0 {
		content = bytes.ReplaceAll(content, []byte("\n"), []byte("\r\n"))
		kept = append(kept, "CRLF line breaks")
	}
	if bytes.HasPrefix(old, bom) && !bytes.HasPrefix(content, bom) && len(content) > 0 {
		content = append(bytes.Clone(bom), content...)
		kept = append(kept, "byte order mark (BOM)")
	}
	if len(kept) == 0 {
		return content, ""
	}
	return content, "Written with the file's " + strings.Join(kept, " and ") + ", which the content sent did not have."
}
