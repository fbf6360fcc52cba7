package matcher

import "bytes"

// index is bytes.Index, made fast for oldText in source code. bytes.Index scans for
// the pattern's first byte, which in indented code is a tab or space found on every
// line; index scans for its rarest byte instead, by a fixed ranking of bytes in text,
// and checks each candidate whole. Where candidates turn out to be common after all,
// it hands the rest of the search to bytes.Index, so it is never much slower.
func index(s, sep []byte) int {
	n := len(sep)
	if n < 2 || len(s) < 1024 {
		return bytes.Index(s, sep)
	}
	k := 0
	for i := 1; i < n; i++ {
		if byteRank[sep[i]] < byteRank[sep[k]] {
			k = i
		}
	}
	c, last := sep[k], len(s)-n+k // last: where the rare byte of a match at the end lies
	misses := 0
	for i := k; i <= last; i++ {
		j := bytes.IndexByte(s[i:last+1], c)
		if j < 0 {
			return -1
		}
		i += j
		if bytes.Equal(s[i-k:i-k+n], sep) {
			return i - k
		}
		// More than one miss per 32 bytes scanned: the byte is common in this text.
		if misses++; misses > 8 && misses > (i-k)>>5 {
			if r := bytes.Index(s[i-k+1:], sep); r >= 0 {
				return i - k + 1 + r
			}
			return -1
		}
	}
	return -1
}

// byteRank ranks each byte by how common it is in source code and prose (0 the
// rarest), as counted over Go, Python, C, JavaScript, Markdown and HTML files.
var byteRank = [256]uint8{
	0, 50, 35, 36, 37, 38, 45, 48, 1, 233, 246, 2, 53, 81, 3, 4,
	39, 5, 6, 7, 40, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
	255, 170, 240, 195, 178, 165, 180, 198, 225, 226, 215, 172, 231, 234, 232, 236,
	228, 224, 221, 218, 211, 206, 208, 194, 205, 193, 230, 217, 207, 219, 214, 159,
	157, 210, 179, 202, 188, 213, 181, 183, 176, 196, 158, 168, 187, 186, 191, 197,
	192, 166, 203, 216, 212, 177, 182, 171, 173, 167, 164, 190, 185, 189, 163, 227,
	175, 248, 229, 244, 243, 254, 237, 235, 239, 251, 184, 204, 245, 238, 250, 252,
	241, 169, 247, 249, 253, 242, 220, 209, 222, 223, 174, 200, 201, 199, 160, 19,
	152, 139, 143, 135, 106, 103, 122, 128, 130, 119, 87, 76, 99, 79, 82, 129,
	114, 118, 95, 102, 150, 113, 136, 98, 155, 137, 94, 96, 134, 125, 84, 149,
	161, 112, 78, 104, 108, 93, 120, 117, 85, 127, 83, 140, 105, 92, 86, 90,
	101, 126, 110, 100, 121, 111, 133, 131, 147, 151, 148, 115, 123, 116, 124, 89,
	20, 21, 162, 154, 73, 74, 51, 61, 57, 67, 68, 56, 69, 62, 145, 142,
	153, 138, 54, 55, 52, 63, 80, 141, 107, 109, 58, 59, 47, 32, 34, 41,
	146, 97, 156, 132, 70, 91, 88, 77, 72, 71, 66, 65, 64, 60, 33, 75,
	144, 22, 23, 42, 44, 24, 43, 25, 26, 27, 28, 29, 30, 46, 31, 49,
}
