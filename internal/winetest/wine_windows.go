package winetest

import (
	"sync"

	"golang.org/x/sys/windows"
)

var wine = sync.OnceValue(func() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
})
