package matcher

// hunk is one step of a line diff of a against b: a[i1:i2] became b[j1:j2]. An equal
// hunk has i2-i1 == j2-j1 and equal lines.
type hunk struct {
	equal          bool
	i1, i2, j1, j2 int
}

// maxDiffCells bounds the LCS table; past it the middle is one changed hunk. oldText of
// a few thousand lines is far beyond what models send in one edit.
const maxDiffCells = 1 << 22

// diffLines diffs two line lists with a longest common subsequence. Runs are merged into
// hunks, equal and changed alternating.
func diffLines(a, b []string) []hunk {
	// Trim common prefix and suffix first: the usual edit changes a few lines in the
	// middle of its context, and this keeps the table small.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var out []hunk
	add := func(equal bool, i1, i2, j1, j2 int) {
		if i1 == i2 && j1 == j2 {
			return
		}
		if n := len(out); n > 0 && out[n-1].equal == equal {
			out[n-1].i2, out[n-1].j2 = i2, j2
			return
		}
		out = append(out, hunk{equal, i1, i2, j1, j2})
	}
	add(true, 0, pre, 0, pre)
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	n, m := len(ma), len(mb)
	if n == 0 || m == 0 || (n+1)*(m+1) > maxDiffCells {
		add(false, pre, pre+n, pre, pre+m)
	} else {
		// lcs[i][j] = LCS length of ma[i:], mb[j:].
		w := m + 1
		lcs := make([]int32, (n+1)*w)
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
				} else if lcs[(i+1)*w+j] >= lcs[i*w+j+1] {
					lcs[i*w+j] = lcs[(i+1)*w+j]
				} else {
					lcs[i*w+j] = lcs[i*w+j+1]
				}
			}
		}
		i, j := 0, 0
		ci, cj := 0, 0 // start of the pending changed run
		for i < n && j < m {
			switch {
			case ma[i] == mb[j]:
				add(false, pre+ci, pre+i, pre+cj, pre+j)
				add(true, pre+i, pre+i+1, pre+j, pre+j+1)
				i++
				j++
				ci, cj = i, j
			case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
				i++
			default:
				j++
			}
		}
		add(false, pre+ci, pre+n, pre+cj, pre+m)
	}
	add(true, len(a)-suf, len(a), len(b)-suf, len(b))
	return out
}

// LineChange is a changed run of a line diff: a[A1:A2] became b[B1:B2].
type LineChange struct{ A1, A2, B1, B2 int }

// ChangedLines diffs two line lists as diffLines does and returns only the changed
// runs, in order: for callers that merge or rewind whole lines.
func ChangedLines(a, b []string) []LineChange {
	var out []LineChange
	for _, h := range diffLines(a, b) {
		if !h.equal {
			out = append(out, LineChange{h.i1, h.i2, h.j1, h.j2})
		}
	}
	return out
}
