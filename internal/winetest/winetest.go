//go:build windows && wine

package winetest

import _ "unsafe" // go:linkname

//go:linkname deleteatFallback internal/syscall/windows.TestDeleteatFallback
var deleteatFallback bool

func init() { deleteatFallback = wine() }
