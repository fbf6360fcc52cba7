//go:build windows && wine

package winetest

import (
	_ "unsafe" // go:linkname

	"golang.org/x/sys/windows"
)

//go:linkname deleteatFallback internal/syscall/windows.TestDeleteatFallback
var deleteatFallback bool

// Wine reports its version from ntdll; Windows has no such export.
func init() {
	if windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil {
		deleteatFallback = true
	}
}
